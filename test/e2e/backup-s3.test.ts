/**
 * Backups off the machine through the compiled binary (SPEC §25): readings,
 * users and agents posted to dist/hub, backed up to a real S3-protocol
 * server (npm s3rver on loopback, behind a front that checks signatures),
 * restored into a fresh path, and served again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { startFront, startS3rver, type S3Front, type S3Server } from "../s3.ts";
import { compiledHub } from "./compiled.ts";
import { postReading, runCli, signedIn, startHub } from "./harness.ts";

const BUCKET = "hub-e2e";
const SECRET = "the-right-secret-access-key-e2e0";
const PASSPHRASE = "a passphrase only the operator knows";
const ADMIN = { username: "root", password: "a long admin password" };
const scratch = scratchDirs();

let s3: S3Server;
let front: S3Front;

beforeAll(async () => {
  s3 = await startS3rver([BUCKET]);
  front = startFront(s3.endpoint, { accessKeyId: "S3RVER", secretAccessKey: SECRET });
});

afterAll(async () => {
  front.stop();
  await s3.stop();
});

describe("a round trip through dist/hub and S3", () => {
  test("posted, backed up to S3 by Back up now, refused to restore while served, restored into a fresh path, served again; no secret in any output", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    const secrets = join(dir, "secrets");
    mkdirSync(secrets, { mode: 0o700 });
    writeFileSync(join(secrets, "s3"), `${SECRET}\n`, { mode: 0o600 });
    writeFileSync(join(secrets, "key"), `${PASSPHRASE}\n`, { mode: 0o600 });
    const backupEnv = {
      BACKUP_TARGET: `s3://${BUCKET}/vps1`,
      BACKUP_S3_ENDPOINT: front.endpoint,
      BACKUP_S3_REGION: "us-east-1",
      BACKUP_S3_ACCESS_KEY_ID: "S3RVER",
      BACKUP_S3_SECRET_ACCESS_KEY_FILE: join(secrets, "s3"),
      BACKUP_ENCRYPTION_KEY_FILE: join(secrets, "key"),
    };
    const tokens = Array.from({ length: 5 }, (_, i) => `e2e-backup-agent-token-${i}`);
    const regions = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-northeast-1"];
    const hub = await startHub({
      cmd: [bin],
      args: ["--db", db],
      env: {
        ...backupEnv,
        MFA_ENFORCED_ROLES: "",
        ADMIN_BOOTSTRAP_USER: ADMIN.username,
        ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password,
        PROVISION_AGENTS: tokens.map((token, i) => `r${i}:${token}:${regions[i]}:steam`).join(","),
      },
    });
    const outputs: string[] = [];
    let name = "";
    const measuredAt = Date.now() - 5_000;
    try {
      for (const [i, token] of tokens.entries()) expect(await postReading(hub.url, token, measuredAt, { region: regions[i], killer: 50 + i * 25 })).toBe(201);
      const user = await runCli(["user", "create", "--username", "player", "--role", "user", "--password-stdin", "--db", db], { cmd: [bin], stdin: "a player's password\n" });
      expect(user.exitCode).toBe(0);

      const admin = await signedIn(hub.url, ADMIN.username, ADMIN.password);
      expect((await admin("POST", "/api/v1/admin/backups")).status).toBe(202);
      type Overview = { running: boolean; lastError: string | null; backups: { name: string; size: number }[] };
      const deadline = Date.now() + 30_000;
      let overview = (await admin<Overview>("GET", "/api/v1/admin/backups")).body;
      while (overview.running && Date.now() < deadline) {
        await Bun.sleep(50);
        overview = (await admin<Overview>("GET", "/api/v1/admin/backups")).body;
      }
      expect(overview.lastError).toBeNull();
      expect(overview.backups).toHaveLength(1);
      name = overview.backups[0]?.name ?? "";
      expect(name).toMatch(/\.db\.zst\.enc$/);
      const health = (await (await fetch(`${hub.url}/healthz`)).json()) as { backup: { last: number | null; lastError: string | null } };
      expect(health.backup.last).toBeGreaterThan(0);
      expect(health.backup.lastError).toBeNull();

      const listed = await runCli(["backups", "list", "--db", db], { cmd: [bin], env: backupEnv });
      expect(listed.exitCode).toBe(0);
      expect(listed.stdout).toContain(name);
      outputs.push(listed.stdout, listed.stderr);

      const whileServed = await runCli(["restore", `s3://${BUCKET}/vps1/${name}`, "--db", db], { cmd: [bin], env: backupEnv });
      expect(whileServed.exitCode).toBe(1);
      expect(whileServed.stderr).toMatch(/a hub is serving/);
      outputs.push(whileServed.stdout, whileServed.stderr);
    } finally {
      expect(await hub.stop()).toBe(0);
      outputs.push(hub.output());
    }

    const fresh = join(scratch(), "restored");
    mkdirSync(fresh);
    const freshDb = join(fresh, "hub.db");
    const { BACKUP_ENCRYPTION_KEY_FILE: _key, ...noKeyEnv } = backupEnv;
    const withoutKey = await runCli(["restore", `s3://${BUCKET}/vps1/${name}`, "--db", freshDb], { cmd: [bin], env: noKeyEnv });
    expect(withoutKey.exitCode).toBe(1);
    expect(withoutKey.stderr).toMatch(/encrypted: set BACKUP_ENCRYPTION_KEY/);
    const restored = await runCli(["restore", `s3://${BUCKET}/vps1/${name}`, "--db", freshDb], { cmd: [bin], env: backupEnv });
    outputs.push(withoutKey.stdout, withoutKey.stderr, restored.stdout, restored.stderr);
    expect(restored.stderr).toBe("");
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout).toMatch(/readings 5, users 2, agents 5/);
    expect(restored.stdout).toMatch(/schema \d+/);
    // The hub's key travels apart from the backups, as the restore says.
    copyFileSync(join(dir, "hub.key"), join(fresh, "hub.key"));

    const again = await startHub({ cmd: [bin], args: ["--db", freshDb], env: { MFA_ENFORCED_ROLES: "" } });
    try {
      const board = (await (await fetch(`${again.url}/api/v1/platforms/Windows/incentives`)).json()) as { regions: { region: string; killer: number | null }[] };
      const killers = Object.fromEntries(board.regions.map((r) => [r.region, r.killer]));
      for (const [i, region] of regions.entries()) expect(killers[region]).toBe(50 + i * 25);
      const player = await signedIn(again.url, "player", "a player's password");
      expect((await player("GET", "/api/v1/auth/session")).status).toBe(200);
      const admin = await signedIn(again.url, ADMIN.username, ADMIN.password);
      expect(((await admin<{ agents: unknown[] }>("GET", "/api/v1/admin/agents")).body.agents ?? []).length).toBe(5);
    } finally {
      expect(await again.stop()).toBe(0);
      outputs.push(again.output());
    }
    for (const text of outputs) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(PASSPHRASE);
    }
  }, 180_000);
});
