/** Admin: how Web Push is doing (SPEC §23), in counts only: a subscription's endpoint is a bearer capability and never shown. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../../context.ts";
import type { Access } from "../../http/access.ts";
import { problems } from "../../http/schemas.ts";

const DAY = 86_400_000;

const PushSummarySchema = t.Object(
  {
    enabled: t.Boolean({ description: "Whether the hub offers push" }),
    offReason: t.Nullable(t.String({ description: "Why push is off, saying what to set; null while it is on" })),
    subscriptions: t.Integer({ minimum: 0, description: "Devices subscribed" }),
    failing: t.Integer({ minimum: 0, description: "Subscriptions whose push service refused a message (400, 401, 403 or 413); they stay until the device subscribes again or is removed" }),
    pending: t.Integer({ minimum: 0, description: "Messages waiting to be sent or retried" }),
    delivered24h: t.Integer({ minimum: 0, description: "Messages push services took in the last 24 hours" }),
    failed24h: t.Integer({ minimum: 0, description: "Messages refused or given up (past their 15-minute TTL) in the last 24 hours" }),
  },
  { title: "PushSummary", examples: [{ enabled: true, offReason: null, subscriptions: 1200, failing: 3, pending: 0, delivered24h: 5400, failed24h: 12 }] },
);

export function adminPushRoutes(ctx: HubContext, access: Access) {
  const counts = ctx.db.sqlite.query<{ failing: number; pending: number; delivered: number; failed: number }, [number, number]>(
    "SELECT (SELECT COUNT(*) FROM push_subscriptions WHERE failing_since IS NOT NULL) AS failing, " +
      "(SELECT COUNT(*) FROM push_deliveries WHERE status = 'pending') AS pending, " +
      "(SELECT COUNT(*) FROM push_deliveries WHERE status = 'delivered' AND finished_at >= ?) AS delivered, " +
      "(SELECT COUNT(*) FROM push_deliveries WHERE status IN ('failed', 'expired') AND finished_at >= ?) AS failed",
  );
  return new Elysia({ name: "routes/admin/push", prefix: "/api/v1/admin" }).use(access.plugin).get(
    "/push",
    ({ set }) => {
      set.headers["cache-control"] = "no-store";
      const since = ctx.now() - DAY;
      const row = counts.get(since, since);
      return {
        enabled: ctx.push.enabled,
        offReason: ctx.push.offReason,
        subscriptions: ctx.push.subscriptions.count,
        failing: row?.failing ?? 0,
        pending: row?.pending ?? 0,
        delivered24h: row?.delivered ?? 0,
        failed24h: row?.failed ?? 0,
      };
    },
    {
      access: "admin",
      response: { 200: PushSummarySchema, ...problems(401, 403) },
      detail: { tags: ["admin-alerts"], summary: "Web Push at a glance", description: "Counts of push subscriptions and messages; never an endpoint, which is the device's credential." },
    },
  );
}
