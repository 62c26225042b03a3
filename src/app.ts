/**
 * The whole HTTP application, assembled from plugins. It never listens:
 * the serve command hands it to Bun.serve, and tests call app.handle().
 */
import { Elysia, type AnyElysia } from "elysia";
import type { HubContext } from "./context.ts";
import { errorHandling } from "./http/errors.ts";
import { requestLog } from "./http/request-log.ts";
import { securityHeaders } from "./http/security.ts";
import { docsRoutes } from "./routes/docs/index.ts";
import { healthRoutes } from "./routes/health.ts";

export function createApp(ctx: HubContext) {
  const { config, log } = ctx;
  const app: AnyElysia = new Elysia({ name: "hub" })
    .use(securityHeaders({ https: config.origin.startsWith("https:"), cors: config.corsOrigins }))
    .use(requestLog(log, config.trustedProxies))
    .use(errorHandling(log, () => app.routes))
    .use(healthRoutes(ctx))
    .use(docsRoutes(() => app));
  return app;
}

export type HubApp = ReturnType<typeof createApp>;
