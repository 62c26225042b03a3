/**
 * The whole HTTP application, assembled from plugins. It never listens:
 * the serve command hands it to Bun.serve, and tests call app.handle().
 */
import { Elysia, type AnyElysia } from "elysia";
import { AgentAdmin } from "./admin/agents.ts";
import { EventAdmin } from "./admin/events.ts";
import { UserAdmin } from "./auth/admin-users.ts";
import { Mfa } from "./auth/mfa.ts";
import { OPTIONS, type OptionTable } from "./config/options.ts";
import type { HubContext } from "./context.ts";
import { createAccess } from "./http/access.ts";
import { errorHandling } from "./http/errors.ts";
import { hostCheck } from "./http/host.ts";
import type { IncentivesReplies } from "./http/incentives.ts";
import { requestLog } from "./http/request-log.ts";
import { storageGate } from "./http/storage-gate.ts";
import { responseFinisher } from "./http/security.ts";
import { adminAgentRoutes } from "./routes/admin/agents.ts";
import { adminAuditRoutes } from "./routes/admin/audit.ts";
import { adminBackupRoutes } from "./routes/admin/backups.ts";
import { adminEventRoutes } from "./routes/admin/events.ts";
import { adminSettingsRoutes } from "./routes/admin/settings.ts";
import { adminUserRoutes } from "./routes/admin/users.ts";
import { adminWebhookRoutes } from "./routes/admin/webhooks.ts";
import { adminPushRoutes } from "./routes/admin/push.ts";
import { agentRoutes, READINGS_ROUTE } from "./routes/agent.ts";
import { apiKeyRoutes } from "./routes/apikeys.ts";
import { authRoutes } from "./routes/auth.ts";
import { docsRoutes } from "./routes/docs/index.ts";
import { eventRoutes } from "./routes/events.ts";
import { healthRoutes } from "./routes/health.ts";
import { historyRoutes } from "./routes/history.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { mfaRoutes } from "./routes/mfa.ts";
import { publicRoutes } from "./routes/public.ts";
import { pushRoutes } from "./routes/push.ts";
import { shareRoutes } from "./routes/share.ts";
import { streamRoutes } from "./routes/stream.ts";

/** `settingsTable` decides which settings GET /api/v1/meta publishes: the hub's own table unless a test gives a copy. */
export function createApp(ctx: HubContext, incentives: IncentivesReplies, notFoundPage: ((request: Request) => Promise<Response>) | null = null, settingsTable: OptionTable = OPTIONS) {
  const { config, log } = ctx;
  const { accounts } = ctx;
  const access = createAccess({ config, settings: ctx.settings, agents: ctx.agents, accounts });
  const mfa = new Mfa(ctx.db, accounts, config.rpName, ctx.now);
  const userAdmin = new UserAdmin(ctx.db, accounts, ctx.now, (id) => ctx.push.subscriptions.deleteOwnedBy(id));
  const agentAdmin = new AgentAdmin(ctx.db, config.catalogue, ctx.agents, ctx.live, ctx.ingest, ctx.now, ctx.events);
  const eventAdmin = new EventAdmin(ctx.db, ctx.events, ctx.live, ctx.now);
  const responses = responseFinisher({ https: config.origin.startsWith("https:"), cors: config.corsOrigins, metrics: ctx.metrics });
  const app: AnyElysia = new Elysia({ name: "hub" })
    .use(responses.plugin)
    .use(requestLog(log, config.trustedProxies))
    .use(errorHandling(log, () => app.routes, responses.finish, (error) => ctx.storage.refusalFor(error), notFoundPage))
    .use(hostCheck(config, responses.finish))
    .use(storageGate(ctx.storage, new Set([READINGS_ROUTE])))
    .use(healthRoutes(ctx, access))
    .use(publicRoutes(ctx, access, incentives, settingsTable))
    .use(eventRoutes(ctx, access))
    .use(historyRoutes(ctx, access))
    .use(shareRoutes(ctx, access))
    .use(streamRoutes(ctx, access))
    .use(pushRoutes(ctx, access, ctx.push))
    .use(agentRoutes(ctx, access))
    .use(authRoutes(ctx, access, accounts))
    .use(mfaRoutes(ctx, access, mfa))
    .use(apiKeyRoutes(ctx, access, accounts))
    .use(adminUserRoutes(access, userAdmin))
    .use(adminSettingsRoutes(ctx, access, accounts))
    .use(adminAgentRoutes(ctx, access, agentAdmin))
    .use(adminEventRoutes(access, eventAdmin))
    .use(adminAuditRoutes(ctx, access))
    .use(adminWebhookRoutes(ctx, access))
    .use(adminPushRoutes(ctx, access))
    .use(adminBackupRoutes(ctx, access))
    .use(metricsRoutes(ctx, access))
    .use(docsRoutes(() => app, access, config.origin));
  return app;
}

export type HubApp = ReturnType<typeof createApp>;
