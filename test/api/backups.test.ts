/**
 * Backups off the machine (SPEC §25) against a real S3-protocol server
 * (npm s3rver on loopback) behind a front that checks signatures as S3 does:
 * runs, retention, restore and the faults, each leaving the target and the
 * database as they were, or better.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { encodeBackupFile } from "../../src/backup/format.ts";
import { restoreBackup, RestoreError } from "../../src/backup/restore.ts";
import { runBackup } from "../../src/backup/run.ts";
import { openTarget, type BackupTarget, type S3Credentials } from "../../src/backup/target.ts";
import { acquireServerLock, migrate, openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { createLogger } from "../../src/log.ts";
import { Browser } from "../browser.ts";
import { call, scratchDirs, testConfig } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";
import { startFront, startS3rver, type S3Front, type S3Server } from "../s3.ts";

const BUCKET = "hub-backups";
/** s3rver knows this access key id only; the front checks the signature made with SECRET. */
const KEY_ID = "S3RVER";
const SECRET = "the-right-secret-access-key-0123";
const PASSPHRASE = "a passphrase for the backups";
const FAST = 1000;

let s3: S3Server;
let front: S3Front;
const scratch = scratchDirs();

beforeAll(async () => {
  s3 = await startS3rver([BUCKET]);
  front = startFront(s3.endpoint, { accessKeyId: KEY_ID, secretAccessKey: SECRET });
});

afterAll(async () => {
  front.stop();
  await s3.stop();
});

function credentials(secret = SECRET): S3Credentials {
  return { endpoint: front.endpoint, region: "us-east-1", accessKeyId: KEY_ID, secretAccessKey: secret };
}

function s3Target(prefix: string, secret = SECRET): BackupTarget {
  return openTarget({ kind: "s3", bucket: BUCKET, prefix }, credentials(secret));
}

/** A database with readings, a user and agents, as a hub leaves it. */
function filledDatabase(withUser = true): { path: string; readings: number } {
  const dir = scratch();
  const path = join(dir, "hub.db");
  const config = testConfig(["--db", path], { MFA_ENFORCED_ROLES: "" });
  const hub = createHub(config, { log: createLogger("error", () => {}) });
  const agent = addAgent(hub, "eu-central-1");
  addAgent(hub, "us-east-1");
  if (withUser) hub.ctx.db.sqlite.query("INSERT INTO users (username, username_key, password_hash, role, created_at, updated_at) VALUES ('ada', 'ada', 'x', 'admin', 1, 1)").run();
  const start = Date.now() - 3_600_000;
  const sqlite = hub.ctx.db.sqlite;
  const insert = sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at, agent_id) VALUES ('Windows', 'eu-central-1', 0, 50, 1.5, ?, ?, ?)");
  sqlite.transaction(() => {
    for (let i = 0; i < 500; i += 1) insert.run(start + i * 1000, start + i * 1000, agent.id);
  })();
  hub.ctx.db.sqlite.close();
  return { path, readings: 500 };
}

function rows(path: string): { readings: number; users: number; agents: number } {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) => db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0;
    return { readings: count("readings"), users: count("users"), agents: count("agents") };
  } finally {
    db.close();
  }
}

describe("a backup to S3 and back", () => {
  test("uploaded, read back and checked, listed with its size, restored into a fresh path with every row", async () => {
    const { path, readings } = filledDatabase();
    const target = s3Target("roundtrip");
    const result = await runBackup({ dbPath: path, target, keep: 14, passphrase: PASSPHRASE, iterations: FAST });
    expect(result.name).toMatch(/^hub-\d{8}T\d{9}Z-\d+\.db\.zst\.enc$/);
    const listed = await target.list();
    expect(listed.map((b) => [b.name, b.size])).toEqual([[result.name, result.bytes]]);
    expect(await target.readBack(result.name)).toEqual({ size: result.bytes, sha256: result.sha256 });

    const fresh = join(scratch(), "restored", "hub.db");
    mkdirSync(join(fresh, ".."), { recursive: true });
    const restored = await restoreBackup({ source: `s3://${BUCKET}/roundtrip/${result.name}`, dbPath: fresh, passphrase: PASSPHRASE, s3: credentials() });
    expect(restored.rows).toMatchObject({ readings, users: 1, agents: 2 });
    expect(restored.keptAs).toBeNull();
    expect(restored.schemaVersion).toBe(result.schemaVersion);
    expect(rows(fresh)).toEqual({ readings, users: 1, agents: 2 });
    const again = openDatabase(fresh);
    expect(migrate(again)).toEqual([]);
    again.sqlite.close();
  });

  test("only after the new backup is checked are those beyond BACKUP_KEEP deleted, oldest first", async () => {
    const { path } = filledDatabase();
    const target = s3Target("retention");
    const names: string[] = [];
    for (let i = 0; i < 3; i += 1) names.push((await runBackup({ dbPath: path, target, keep: 2, passphrase: null, iterations: FAST })).name);
    expect((await target.list()).map((b) => b.name)).toEqual(names.slice(1));
  });

  test("a restore keeps the database it replaces as <db>.before-restore, and refuses to overwrite an older one", async () => {
    const { path } = filledDatabase();
    const target = s3Target("replace");
    const { name } = await runBackup({ dbPath: path, target, keep: 14, passphrase: null, iterations: FAST });
    const other = filledDatabase().path;
    const db = new Database(other);
    db.exec("DELETE FROM readings");
    db.close();
    const result = await restoreBackup({ source: `s3://${BUCKET}/replace/${name}`, dbPath: other, passphrase: null, s3: credentials() });
    expect(result.keptAs).toBe(`${other}.before-restore`);
    expect(rows(`${other}.before-restore`).readings).toBe(0);
    expect(rows(other).readings).toBe(500);
    await expect(restoreBackup({ source: `s3://${BUCKET}/replace/${name}`, dbPath: other, passphrase: null, s3: credentials() })).rejects.toThrow(/before-restore is there from an earlier restore/);
  });
});

describe("listing S3 in pages", () => {
  test("a listing split into pages is followed through its continuation tokens (s3rver cannot page, so a small store plays one)", async () => {
    const names = Array.from({ length: 5 }, (_, i) => `hub-2026010${i + 1}T000000000Z-10.db.zst`);
    const seen: (string | null)[] = [];
    const store = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const url = new URL(request.url);
        const token = url.searchParams.get("continuation-token");
        seen.push(token);
        const page = token === null ? 0 : Number(token.slice("page-".length));
        const keys = names.slice(page * 2, page * 2 + 2);
        const more = page * 2 + 2 < names.length;
        const contents = keys.map((name, i) => `<Contents><Key>vps1/${name}</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>"e"</ETag><Size>${100 + i}</Size><StorageClass>STANDARD</StorageClass></Contents>`).join("");
        return new Response(
          `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${BUCKET}</Name><Prefix>vps1/</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>page-${page + 1}</NextContinuationToken>` : ""}${contents}</ListBucketResult>`,
          { headers: { "content-type": "application/xml" } },
        );
      },
    });
    try {
      const target = openTarget({ kind: "s3", bucket: BUCKET, prefix: "vps1" }, { ...credentials(), endpoint: `http://127.0.0.1:${store.port}` });
      expect((await target.list()).map((b) => b.name)).toEqual(names);
      expect(seen).toEqual([null, "page-1", "page-2"]);
    } finally {
      store.stop(true);
    }
  });
});

describe("faults leave the target and the database as they were", () => {
  test("a wrong secret: the store refuses the signature, nothing is written, no older backup is touched, the secret is never told", async () => {
    const { path } = filledDatabase();
    const good = s3Target("wrong-secret");
    const first = await runBackup({ dbPath: path, target: good, keep: 1, passphrase: null, iterations: FAST });
    const refusedBefore = front.refused.length;
    const wrong = "a-wrong-secret-access-key-98765";
    const failure = await runBackup({ dbPath: path, target: s3Target("wrong-secret", wrong), keep: 1, passphrase: null, iterations: FAST }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toMatch(/SignatureDoesNotMatch|signature/i);
    expect(String(failure)).not.toContain(wrong);
    expect(String(failure)).not.toContain(SECRET);
    expect(front.refused.slice(refusedBefore)).toContain("SignatureDoesNotMatch");
    expect((await good.list()).map((b) => b.name)).toEqual([first.name]);
  });

  test("a full store (507 on every upload): the run fails, the older backups stay, none is deleted", async () => {
    const { path } = filledDatabase();
    const target = s3Target("full");
    const first = await runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST });
    front.mode = "full";
    try {
      await expect(runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST })).rejects.toThrow(/InsufficientStorage|507|failed/);
    } finally {
      front.mode = "pass";
    }
    expect((await target.list()).map((b) => b.name)).toEqual([first.name]);
  });

  test("a full folder target (a small tmpfs filled up): the run fails with ENOSPC, the partial file is removed, the older backup stays", async () => {
    if (process.getuid?.() !== 0) throw new Error("this test mounts a tmpfs and needs root, as the storage fault tests do");
    const { path } = filledDatabase();
    const mountPoint = join(scratch(), "small");
    mkdirSync(mountPoint);
    const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]);
    expect(mount.exitCode).toBe(0);
    try {
      const target = openTarget({ kind: "folder", path: mountPoint }, credentials());
      const first = await runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST });
      // Whatever room is left is taken, as another program on that disk would take it.
      const fd = openSync(join(mountPoint, "filler"), "w");
      try {
        const block = new Uint8Array(64 * 1024);
        for (;;) writeSync(fd, block);
      } catch (error) {
        expect(String(error)).toContain("ENOSPC");
      } finally {
        closeSync(fd);
      }
      await expect(runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST })).rejects.toThrow(/ENOSPC/);
      expect(readdirSync(mountPoint).sort()).toEqual(["filler", first.name]);
      expect((await target.list()).map((b) => b.name)).toEqual([first.name]);
    } finally {
      Bun.spawnSync(["umount", mountPoint]);
    }
  });

  test("the store stopped in the middle of an upload: the run fails, the older backup is there when the store is back", async () => {
    const { path } = filledDatabase();
    const own = await startS3rver([BUCKET]);
    const ownFront = startFront(own.endpoint, { accessKeyId: KEY_ID, secretAccessKey: SECRET });
    const target = openTarget({ kind: "s3", bucket: BUCKET, prefix: "mid-upload" }, { ...credentials(), endpoint: ownFront.endpoint });
    try {
      const first = await runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST });
      // The store dies while the upload is in flight, and the connection carrying it is cut.
      ownFront.onUpload = async () => {
        await own.kill();
        ownFront.stop();
      };
      await expect(runBackup({ dbPath: path, target, keep: 1, passphrase: null, iterations: FAST })).rejects.toThrow(/failed/);
      ownFront.onUpload = null;
      const back = await startS3rver([BUCKET], own.port, own.dir);
      try {
        const again = openTarget({ kind: "s3", bucket: BUCKET, prefix: "mid-upload" }, { ...credentials(), endpoint: back.endpoint });
        expect((await again.list()).map((b) => b.name)).toEqual([first.name]);
      } finally {
        await back.stop();
      }
    } finally {
      ownFront.stop();
      await own.kill();
    }
  });

  test("a corrupt object at restore: refused with a clear message, the database untouched", async () => {
    const { path } = filledDatabase();
    const target = s3Target("corrupt");
    const { name } = await runBackup({ dbPath: path, target, keep: 14, passphrase: null, iterations: FAST });
    const copy = join(scratch(), "copy");
    await target.download(name, copy);
    const bytes = readFileSync(copy);
    bytes[Math.floor(bytes.byteLength / 2)] = (bytes[Math.floor(bytes.byteLength / 2)] ?? 0) ^ 0xff;
    const corrupt = join(scratch(), "corrupt");
    writeFileSync(corrupt, bytes);
    await target.put(name, corrupt);
    const dest = filledDatabase().path;
    const before = readFileSync(dest);
    await expect(restoreBackup({ source: `s3://${BUCKET}/corrupt/${name}`, dbPath: dest, passphrase: null, s3: credentials() })).rejects.toThrow(/damaged.*nothing was changed/);
    expect(readFileSync(dest).equals(before)).toBe(true);
    expect(existsSync(`${dest}.before-restore`)).toBe(false);
  });

  test("a wrong or missing encryption key: refused, saying which, the database untouched", async () => {
    const { path } = filledDatabase();
    const target = s3Target("keys");
    const { name } = await runBackup({ dbPath: path, target, keep: 14, passphrase: PASSPHRASE, iterations: FAST });
    const dest = filledDatabase().path;
    const before = readFileSync(dest);
    const source = `s3://${BUCKET}/keys/${name}`;
    await expect(restoreBackup({ source, dbPath: dest, passphrase: null, s3: credentials() })).rejects.toThrow(/encrypted: set BACKUP_ENCRYPTION_KEY/);
    await expect(restoreBackup({ source, dbPath: dest, passphrase: "not the passphrase at all", s3: credentials() })).rejects.toThrow(/not the passphrase/);
    expect(readFileSync(dest).equals(before)).toBe(true);
  });

  test("a restore while a hub serves the database is refused", async () => {
    const { path } = filledDatabase();
    const target = openTarget({ kind: "folder", path: scratch() }, credentials());
    const { name } = await runBackup({ dbPath: path, target, keep: 14, passphrase: null, iterations: FAST });
    const lock = acquireServerLock(path);
    try {
      await expect(restoreBackup({ source: join(target.description, name), dbPath: path, passphrase: null, s3: credentials() })).rejects.toThrow(/a hub is serving/);
    } finally {
      lock.release();
    }
  });

  test("a backup of a newer schema than this hub knows is refused before anything changes", async () => {
    const database = join(scratch(), "future.db");
    writeFileSync(database, "not looked at");
    const file = join(scratch(), "hub-20991231T000000000Z-999.db.zst");
    await encodeBackupFile(database, file, { schemaVersion: 999, createdAt: Date.UTC(2099, 11, 31) }, null, FAST);
    const dest = filledDatabase().path;
    const error = await restoreBackup({ source: file, dbPath: dest, passphrase: null, s3: credentials() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestoreError);
    expect(String(error)).toMatch(/schema version 999, newer than this hub knows/);
  });
});

describe("the serving hub", () => {
  async function backupHub(env: Record<string, string>, options: { webhook?: string } = {}): Promise<{ hub: Hub; admin: Browser; received: string[] }> {
    const { path } = filledDatabase(false);
    const config = testConfig(["--db", path], { MFA_ENFORCED_ROLES: "", WEBHOOK_ALLOW_PRIVATE: "true", BACKUP_S3_ENDPOINT: front.endpoint, BACKUP_S3_REGION: "us-east-1", BACKUP_S3_ACCESS_KEY_ID: KEY_ID, ...env });
    const received: string[] = [];
    const hub = createHub(config, {
      log: createLogger("error", () => {}),
      backups: { retryDelaysMs: [30, 30, 30], iterations: FAST },
      alerts: {
        policy: { backoffMs: [10], jitter: 0 },
        resolve: async () => ["127.0.0.1"],
        fetch: async (url, init) => {
          received.push(typeof init?.body === "string" ? init.body : "");
          return new Response(null, { status: 204 });
        },
      },
    });
    hub.start();
    const admin = new Browser(hub);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: "correct horse battery" });
    await admin.session();
    if (options.webhook) await admin.json("POST", "/api/v1/admin/webhooks", { url: options.webhook, format: "json", onStatus: true });
    return { hub, admin, received };
  }

  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > deadline) throw new Error(`not reached in time: ${JSON.stringify(value)}`);
      await Bun.sleep(20);
    }
  }

  test("Back up now: admins only; runs in a worker, listed with time and size, downloadable; /healthz and /metrics tell", async () => {
    const { hub, admin } = await backupHub({ BACKUP_TARGET: `s3://${BUCKET}/hub-now`, BACKUP_S3_SECRET_ACCESS_KEY: SECRET, BACKUP_ENCRYPTION_KEY: PASSPHRASE });
    try {
      expect((await call(hub, "GET", "/api/v1/admin/backups")).status).toBe(401);
      expect((await call(hub, "POST", "/api/v1/admin/backups")).status).toBe(401);
      const started = await admin.json<{ running: boolean }>("POST", "/api/v1/admin/backups");
      expect(started.status).toBe(202);
      expect(started.body.running).toBe(true);
      expect((await admin.json("POST", "/api/v1/admin/backups")).status).toBe(409);
      type Overview = { running: boolean; last: number | null; lastError: string | null; backups: { name: string; size: number; createdAt: number }[]; target: string };
      const done = await until(async () => (await admin.json<Overview>("GET", "/api/v1/admin/backups")).body, (b) => !b.running);
      expect(done.lastError).toBeNull();
      expect(done.target).toBe(`s3://${BUCKET}/hub-now`);
      expect(done.backups).toHaveLength(1);
      const [only] = done.backups;
      expect(JSON.stringify(done)).not.toContain(SECRET);
      expect(JSON.stringify(done)).not.toContain(PASSPHRASE);
      const download = await admin.request("GET", `/api/v1/admin/backups/${only?.name}`);
      expect(download.status).toBe(200);
      expect((await download.arrayBuffer()).byteLength).toBe(only?.size ?? -1);
      expect((await call(hub, "GET", `/api/v1/admin/backups/${only?.name}`)).status).toBe(401);
      expect((await admin.request("GET", "/api/v1/admin/backups/hub-20991231T000000000Z-10.db.zst")).status).toBe(404);
      const health = (await (await call(hub, "GET", "/healthz")).json()) as { backup: { last: number; lastError: null; next: null } };
      expect(health.backup).toEqual({ last: only?.createdAt ?? 0, lastError: null, next: null });
      const metrics = await (await admin.request("GET", "/metrics")).text();
      expect(metrics).toContain(`hub_backup_last_success_timestamp_seconds ${Math.floor((only?.createdAt ?? 0) / 1000)}`);
      expect(metrics).toContain(`hub_backup_bytes ${only?.size}`);
    } finally {
      await hub.stop();
      hub.ctx.db.sqlite.close();
    }
  });

  test("two failed runs in a row fire backup.failed to status webhooks once; retries follow with backoff; nothing of the secret shows", async () => {
    const wrong = "a-wrong-secret-access-key-98765";
    const { hub, admin, received } = await backupHub({ BACKUP_TARGET: `s3://${BUCKET}/hub-failing`, BACKUP_S3_SECRET_ACCESS_KEY: wrong }, { webhook: "http://127.0.0.1:9/hook" });
    try {
      expect((await admin.json("POST", "/api/v1/admin/backups")).status).toBe(202);
      await until(async () => received.filter((body) => body.includes("backup.failed")).length, (n) => n >= 1);
      const [alert] = received.filter((body) => body.includes("backup.failed"));
      const message = JSON.parse(alert ?? "{}") as { type: string; data: { target: string; failures: number; error: string } };
      expect(message.type).toBe("backup.failed");
      expect(message.data.target).toBe(`s3://${BUCKET}/hub-failing`);
      expect(message.data.failures).toBe(2);
      expect(alert).not.toContain(wrong);
      const health = (await (await call(hub, "GET", "/healthz")).json()) as { backup: { last: null; lastError: string; next: number } };
      expect(health.backup.last).toBeNull();
      // The public answer says that it failed, not where backups go nor what the storage server said (SPEC §16.4).
      expect(health.backup.lastError).toBe("the last backup failed; an admin can see why in the console");
      for (const secret of [wrong, BUCKET, "hub-failing", "Signature"]) expect(JSON.stringify(health)).not.toContain(secret);
      const overview = await admin.json<{ lastError: string | null }>("GET", "/api/v1/admin/backups");
      expect(overview.body.lastError).toMatch(/SignatureDoesNotMatch|signature/i);
      await until(async () => hub.ctx.backups.status().lastErrorAt ?? 0, () => received.filter((body) => body.includes("backup.failed")).length === 1 && front.refused.length > 3);
      expect(received.filter((body) => body.includes("backup.failed"))).toHaveLength(1);
    } finally {
      await hub.stop();
      hub.ctx.db.sqlite.close();
    }
  });

  test("a folder target that fails: /healthz says only that the backup failed; the folder and the system's words are the admin's", async () => {
    const blocker = join(scratch(), "not-a-folder");
    writeFileSync(blocker, "a file where the target's parent should be\n");
    const folder = join(blocker, "private-backups-folder");
    const { hub, admin } = await backupHub({ BACKUP_TARGET: folder });
    try {
      expect((await admin.json("POST", "/api/v1/admin/backups")).status).toBe(202);
      const overview = await until(async () => (await admin.json<{ lastError: string | null }>("GET", "/api/v1/admin/backups")).body, (body) => body.lastError !== null);
      expect(overview.lastError).toContain("private-backups-folder");
      const health = await (await call(hub, "GET", "/healthz")).text();
      expect(JSON.parse(health)).toMatchObject({ backup: { last: null, lastError: "the last backup failed; an admin can see why in the console" } });
      for (const secret of ["private-backups-folder", "not-a-folder", "ENOTDIR", "not a directory"]) expect(health).not.toContain(secret);
    } finally {
      await hub.stop();
      hub.ctx.db.sqlite.close();
    }
  });

  test("with no target, the page's API says so and Back up now is 409", async () => {
    const { hub, admin } = await backupHub({});
    try {
      const overview = await admin.json<{ target: null; backups: unknown[] }>("GET", "/api/v1/admin/backups");
      expect(overview.body).toMatchObject({ target: null, backups: [] });
      const now = await admin.json<{ detail: string }>("POST", "/api/v1/admin/backups");
      expect(now.status).toBe(409);
      expect(now.body.detail).toMatch(/BACKUP_TARGET/);
    } finally {
      await hub.stop();
      hub.ctx.db.sqlite.close();
    }
  });
});

describe("scheduled runs", () => {
  test("every Nh: the first run an interval after start, the next an interval after the last backup", async () => {
    const { path } = filledDatabase();
    const clock = Date.now();
    const config = testConfig(["--db", path], { BACKUP_TARGET: join(scratch(), "scheduled"), BACKUP_SCHEDULE: "every 1h" });
    const hub = createHub(config, { log: createLogger("error", () => {}), now: () => clock, backups: { iterations: FAST } });
    try {
      hub.start();
      const deadline = Date.now() + 5000;
      while (hub.ctx.backups.status().next === null && Date.now() < deadline) await Bun.sleep(10);
      expect(hub.ctx.backups.status().next).toBe(clock + 3_600_000);
      const result = await hub.ctx.backups.runNow();
      expect(hub.ctx.backups.status()).toMatchObject({ last: result.createdAt, lastBytes: result.bytes, next: result.createdAt + 3_600_000, running: false });
    } finally {
      await hub.stop();
      hub.ctx.db.sqlite.close();
    }
  });

  test("stopping the hub ends a run under way: its worker is ended, no failure is counted", async () => {
    const { path } = filledDatabase();
    const config = testConfig(["--db", path], { BACKUP_TARGET: join(scratch(), "stopped"), BACKUP_SCHEDULE: "every 1h" });
    const hub = createHub(config, { log: createLogger("error", () => {}), backups: { iterations: FAST } });
    try {
      hub.start();
      const run = hub.ctx.backups.runNow();
      expect(hub.ctx.backups.status().running).toBe(true);
      await hub.stop();
      await expect(run).rejects.toThrow(/the hub stopped during the backup/);
      expect(hub.ctx.backups.status()).toMatchObject({ running: false, lastError: null, next: null });
    } finally {
      hub.ctx.db.sqlite.close();
    }
  });
});
