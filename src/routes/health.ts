/** GET /healthz: liveness and a short status summary, never gated, never cached. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import { storageStateSchema } from "../http/vocabularies.ts";
import { HUB_VERSION } from "../version.ts";

/**
 * What the public health answer says of a failed backup (SPEC §16.4): that it failed, never where backups go or
 * what the storage server said; the target, the bucket and the server's words are the admin's (the console, the log).
 */
export const BACKUP_FAILED = "the last backup failed; an admin can see why in the console";

export const HealthSchema = t.Object(
  {
    status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("unhealthy")], {
      description: "ok; degraded when the database answers but cannot be written (see storage); unhealthy when it does not answer",
    }),
    version: t.String(),
    uptimeSeconds: t.Integer({ minimum: 0 }),
    agentsConfigured: t.Nullable(t.Integer({ minimum: 0, description: "Enabled agents; null when the database does not answer" })),
    regionsReporting: t.Nullable(t.Integer({ minimum: 0, description: "(platform, region) pairs whose live reading is fresh" })),
    db: t.Union([t.Literal("ok"), t.Literal("error")]),
    storage: storageStateSchema(
      "ok only when a write can succeed; else why not, from the last write and a check every second (free space below MIN_FREE_MB counts as full)",
    ),
    backup: t.Object(
      {
        last: t.Nullable(t.Integer({ description: "When the last backup that was uploaded and checked was taken, epoch ms; null when none is known" })),
        lastError: t.Nullable(
          t.String({
            description: `"${BACKUP_FAILED}" when the last run failed after the last success; null otherwise. Why it failed is for admins only (GET /api/v1/admin/backups, the console's Backups page, the log)`,
          }),
        ),
        next: t.Nullable(t.Integer({ description: "When the next scheduled run or retry starts, epoch ms; null when none is planned" })),
      },
      { description: "Backups off the machine (BACKUP_SCHEDULE, BACKUP_TARGET); all null when none are set up" },
    ),
  },
  {
    title: "Health",
    examples: [{ status: "ok", version: HUB_VERSION, uptimeSeconds: 3600, agentsConfigured: 12, regionsReporting: 9, db: "ok", storage: "ok", backup: { last: 1795300000000, lastError: null, next: 1795386400000 } }],
  },
);

export function healthRoutes(ctx: HubContext, access: Access) {
  const ping = ctx.db.sqlite.query<{ ok: number }, []>("SELECT 1 AS ok");
  return new Elysia({ name: "routes/health" }).use(access.plugin).get(
    "/healthz",
    ({ set }) => {
      set.headers["cache-control"] = "no-store";
      const now = ctx.now();
      const uptimeSeconds = Math.max(0, Math.floor((now - ctx.startedAt) / 1000));
      const storage = ctx.storage.state;
      const { last, lastError, next } = ctx.backups.status();
      const backup = { last, lastError: lastError === null ? null : BACKUP_FAILED, next };
      try {
        ping.get();
        const agentsConfigured = ctx.agents.enabledCount();
        const regionsReporting = ctx.live.freshSlotCount();
        if (storage !== "ok") set.status = 503;
        return { status: storage === "ok" ? ("ok" as const) : ("degraded" as const), version: HUB_VERSION, uptimeSeconds, agentsConfigured, regionsReporting, db: "ok" as const, storage, backup };
      } catch (error) {
        ctx.log.error("health check: the database does not answer", { cause: error instanceof Error ? error.message : String(error) });
        set.status = 503;
        return { status: "unhealthy" as const, version: HUB_VERSION, uptimeSeconds, agentsConfigured: null, regionsReporting: null, db: "error" as const, storage, backup };
      }
    },
    {
      access: "public",
      response: { 200: HealthSchema, 503: HealthSchema },
      detail: {
        tags: ["system"],
        summary: "Health",
        description:
          "Liveness and a short status summary. Answers 503 with `status: \"degraded\"` when the database answers but a write cannot succeed " +
          "(`storage` says why: full, read-only, locked, file-missing, corrupt; reads are still served), and with `status: \"unhealthy\"` when the database does not answer.",
      },
    },
  );
}
