/**
 * The whole HTTP application, assembled from plugins. It never listens:
 * the serve command hands it to Bun.serve, and tests call app.handle().
 */
import { Elysia, type AnyElysia } from "elysia";
import type { HubContext } from "./context.ts";
import { createAccess } from "./http/access.ts";
import { errorHandling } from "./http/errors.ts";
import { jsonResponses } from "./http/json.ts";
import { requestLog } from "./http/request-log.ts";
import { securityHeaders } from "./http/security.ts";
import { agentRoutes } from "./routes/agent.ts";
import { docsRoutes } from "./routes/docs/index.ts";
import { healthRoutes } from "./routes/health.ts";
import { historyRoutes } from "./routes/history.ts";
import { publicRoutes } from "./routes/public.ts";
import { streamRoutes } from "./routes/stream.ts";

export function createApp(ctx: HubContext) {
  const { config, log } = ctx;
  const access = createAccess({ settings: ctx.settings, agents: ctx.agents });
  const app: AnyElysia = new Elysia({ name: "hub" })
    .use(securityHeaders({ https: config.origin.startsWith("https:"), cors: config.corsOrigins }))
    .use(requestLog(log, config.trustedProxies))
    .use(errorHandling(log, () => app.routes))
    .use(jsonResponses())
    .use(healthRoutes(ctx, access))
    .use(publicRoutes(ctx, access))
    .use(historyRoutes(ctx, access))
    .use(streamRoutes(ctx, access))
    .use(agentRoutes(ctx, access))
    .use(docsRoutes(() => app, access));
  return app;
}

export type HubApp = ReturnType<typeof createApp>;
