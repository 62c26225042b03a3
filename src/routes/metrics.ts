/** GET /metrics: Prometheus text for admins, or for anyone holding METRICS_TOKEN. */
import { existsSync, statSync } from "node:fs";
import { Elysia, t } from "elysia";
import { backupPeriodSeconds } from "../config/backup-schedule.ts";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import { problems } from "../http/schemas.ts";

export function metricsRoutes(ctx: HubContext, access: Access) {
  const pages = ctx.db.sqlite.query<{ bytes: number }, []>("SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS bytes");
  const walPath = `${ctx.db.path}-wal`;
  return new Elysia({ name: "routes/metrics" }).use(access.plugin).get(
    "/metrics",
    () => {
      const text = ctx.metrics.render({
        streamsOpen: ctx.streams.openCount,
        streamsDropped: ctx.streams.droppedCount,
        readingsAccepted: ctx.ingest.counters.accepted,
        readingsRejected: ctx.ingest.counters.rejected,
        eventEntriesSkipped: ctx.eventReports.skippedCounts,
        databaseBytes: pages.get()?.bytes ?? 0,
        walBytes: existsSync(walPath) ? statSync(walPath).size : 0,
        agentsEnabled: ctx.agents.enabledCount(),
        regionsReporting: ctx.live.freshSlotCount(),
        uptimeSeconds: Math.floor((ctx.now() - ctx.startedAt) / 1000),
        storage: ctx.storage.state,
        clockBehindSeconds: ctx.clock.check(),
        backupLast: (() => {
          const { last, lastBytes } = ctx.backups.status();
          return last === null || lastBytes === null ? null : { at: last, bytes: lastBytes };
        })(),
        backupPeriodSeconds: backupPeriodSeconds(ctx.config.backupSchedule),
        webhookDeliveries: ctx.alerts.worker.results,
        grip: ctx.fanout?.counters() ?? null,
        gripHolds: ctx.fanout?.holds ?? 0,
        gripNodes: ctx.gripNodes?.snapshot() ?? null,
      }) + ctx.push.metricsText();
      return new Response(text, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
    },
    {
      access: "metrics",
      response: { 200: t.String({ description: "Prometheus text exposition format" }), ...problems(401, 403) },
      detail: {
        tags: ["system"],
        summary: "Metrics",
        description:
          "Prometheus text: the version that runs (`hub_build_info`), requests by route and status, open streams, readings accepted and rejected by reason, event-report entries skipped by reason, ingest and history latency histograms, database size, whether storage can be written (`hub_storage_ok`), how far the clock is behind the newest reading, the last backup and the schedule's period, webhook and push deliveries by result; with GRIP, publishes by proxy and, with GRIP_STATS_URL, the connections each node holds (`hub_grip_node_viewers`). " +
          "Admins, or `Authorization: Bearer <METRICS_TOKEN>` when the operator set one.",
        "x-media-type": "text/plain",
        "x-response-headers": { 200: ["Cache-Control"] },
      },
    },
  );
}
