/** Admin: backups off the machine (SPEC §25): list, "Back up now", the last error, downloads. */
import { Elysia, t } from "elysia";
import { actorOf } from "../../auth/accounts.ts";
import { parseBackupName } from "../../backup/format.ts";
import { BackupUnavailable } from "../../backup/service.ts";
import type { HubContext } from "../../context.ts";
import { audit } from "../../db/audit.ts";
import type { Access } from "../../http/access.ts";
import { HttpProblem } from "../../domain/problem.ts";
import { problems } from "../../http/schemas.ts";

const BackupSchema = t.Object(
  {
    name: t.String({ description: "hub-<UTC time>-<schema version>.db.zst, .enc added when encrypted" }),
    createdAt: t.Integer({ description: "When its snapshot was taken, epoch ms" }),
    size: t.Integer({ minimum: 0, description: "Bytes at the target" }),
    schemaVersion: t.Integer({ minimum: 0 }),
    encrypted: t.Boolean(),
  },
  { title: "Backup" },
);

const BackupsSchema = t.Object(
  {
    target: t.Nullable(t.String({ description: "BACKUP_TARGET: a folder or s3://bucket/prefix (never a credential); null when backups are not set up" })),
    schedule: t.String({ description: "BACKUP_SCHEDULE: off, daily HH:MM or every Nh" }),
    keep: t.Integer({ minimum: 1, description: "BACKUP_KEEP" }),
    encrypted: t.Boolean({ description: "Whether new backups are encrypted (BACKUP_ENCRYPTION_KEY is set)" }),
    running: t.Boolean({ description: "A run is under way" }),
    last: t.Nullable(t.Integer({ description: "When the last backup that was uploaded and checked was taken, epoch ms" })),
    lastError: t.Nullable(t.String({ description: "Why the last run failed, when it failed after the last success" })),
    lastErrorAt: t.Nullable(t.Integer({ description: "When that run failed, epoch ms" })),
    next: t.Nullable(t.Integer({ description: "When the next scheduled run or retry starts, epoch ms" })),
    listError: t.Nullable(t.String({ description: "Why the target could not be listed just now; backups is then empty" })),
    backups: t.Array(BackupSchema, { description: "Newest first" }),
  },
  {
    title: "Backups",
    examples: [
      {
        target: "s3://hub-backups/eu-vps",
        schedule: "daily 03:15",
        keep: 14,
        encrypted: true,
        running: false,
        last: 1795922100000,
        lastError: null,
        lastErrorAt: null,
        next: 1796008500000,
        listError: null,
        backups: [{ name: "hub-20261129T031500000Z-12.db.zst.enc", createdAt: 1795922100000, size: 73400320, schemaVersion: 12, encrypted: true }],
      },
    ],
  },
);

export function adminBackupRoutes(ctx: HubContext, access: Access) {
  const { backups, config } = ctx;
  const overview = async () => {
    const status = backups.status();
    let list: { name: string; createdAt: number; size: number; schemaVersion: number; encrypted: boolean }[] = [];
    let listError: string | null = null;
    if (backups.target) {
      try {
        list = (await backups.list()).map(({ name, createdAt, size, schemaVersion, encrypted }) => ({ name, createdAt, size, schemaVersion, encrypted })).reverse();
      } catch (error) {
        listError = error instanceof Error ? error.message : String(error);
      }
    }
    return {
      target: status.target,
      schedule: status.schedule,
      keep: config.backupKeep,
      encrypted: config.backupEncryptionKey !== null,
      running: status.running,
      last: status.last,
      lastError: status.lastError,
      lastErrorAt: status.lastErrorAt,
      next: status.next,
      listError,
      backups: list,
    };
  };
  return new Elysia({ name: "routes/admin/backups", prefix: "/api/v1/admin" })
    .use(access.plugin)
    .get("/backups", overview, {
      access: "admin",
      response: { 200: BackupsSchema, ...problems(401, 403) },
      detail: {
        tags: ["admin-backups"],
        summary: "Backups",
        description: "The target's backups with time and size (newest first), the schedule, the last success and error, and the next run. `listError` says why the target could not be listed.",
      },
    })
    .post(
      "/backups",
      async ({ request, set }) => {
        try {
          const run = backups.runNow();
          run.catch(() => undefined);
        } catch (error) {
          if (error instanceof BackupUnavailable) throw new HttpProblem(409, error.message);
          throw error;
        }
        audit(ctx.db.orm, actorOf(access.userOf(request)), "backup.start", null, { target: backups.status().target }, ctx.now());
        set.status = 202;
        return await overview();
      },
      {
        access: "admin",
        response: { 202: BackupsSchema, ...problems(401, 403, 409) },
        detail: {
          tags: ["admin-backups"],
          summary: "Back up now",
          description:
            "Starts one backup now (snapshot, compressed, encrypted when BACKUP_ENCRYPTION_KEY is set, uploaded and read back) and answers at once with `running: true`; " +
            "poll GET /backups for the outcome. 409 when no target is set or a run is under way.",
        },
      },
    )
    .get(
      "/backups/:name",
      async ({ params }) => {
        if (!parseBackupName(params.name)) throw new HttpProblem(404, `"${params.name}" is not the name of a hub backup.`);
        if (!backups.target) throw new HttpProblem(409, "no backup target is set (BACKUP_TARGET)");
        const listed = await backups.list().catch((error: unknown) => {
          throw new HttpProblem(502, `the backup target could not be listed: ${error instanceof Error ? error.message : String(error)}`);
        });
        if (!listed.some((b) => b.name === params.name)) throw new HttpProblem(404, `there is no backup named ${params.name} at the target.`);
        return new Response(backups.target.stream(params.name), { headers: { "content-type": "application/octet-stream", "content-disposition": `attachment; filename="${params.name}"`, "cache-control": "no-store" } });
      },
      {
        access: "admin",
        params: t.Object({ name: t.String({ maxLength: 200, description: "A backup's name, as GET /backups lists it" }) }),
        response: { 200: t.String({ format: "binary", description: "The backup file (application/octet-stream), as stored at the target", examples: ["(the backup's bytes)"] }), ...problems(401, 403, 404, 409, 502) },
        detail: {
          tags: ["admin-backups"],
          summary: "Download a backup",
          description: "The backup file as stored: restore it with `hub restore FILE` (encrypted ones need the same BACKUP_ENCRYPTION_KEY).",
        },
      },
    );
}
