/**
 * Secrets and files through a real server process: every secret read from a
 * file with none on the command line or in the environment, every file the
 * hub creates owner-only under a permissive umask, and sessions that outlive
 * a restart without any setting.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { keyedHash } from "../../src/auth/sessions.ts";
import { scratchDirs } from "../helpers.ts";
import { runCli, SOURCE_CMD, startHub } from "./harness.ts";

const scratch = scratchDirs();

const SECRETS = {
  session: "session-secret-from-a-file-0123456789abcdef",
  key: "a5".repeat(32),
  password: "bootstrap password from a file",
  metrics: "metrics-token-from-a-file-0123",
  listed: "listed-agent-token-0123456789",
  numbered: "numbered-agent-token-0123456789",
} as const;

/** The source hub run with a umask that leaves new files readable by everyone, as many shells have. */
const UMASK_022 = ["sh", "-c", 'umask 022; exec "$0" "$@"', ...SOURCE_CMD];

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

function reading(region: string, platform: string): string {
  return JSON.stringify({ region, platform, survivor: 0, killer: 100, ratio: 2, isReal: true, measuredAt: new Date().toISOString(), version: "9.3.0" });
}

async function post(url: string, token: string, body: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });
  return response.status;
}

async function login(url: string, username: string, password: string): Promise<{ status: number; cookie: string }> {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("hub_session=")) ?? "";
  return { status: response.status, cookie: cookie.split(";")[0] ?? "" };
}

describe("secrets from files", () => {
  test("every secret from a file, none on the command line or in the environment, and the hub works", async () => {
    const dir = scratch();
    const secretsDir = join(dir, "secrets");
    mkdirSync(secretsDir, { mode: 0o700 });
    const secretFile = (name: string, content: string): string => {
      const path = join(secretsDir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    const config = join(dir, "hub.yaml");
    writeFileSync(config, `adminPasswordFile: ${secretFile("password", `${SECRETS.password}\n`)}\n`);
    const db = join(dir, "data", "hub.db");
    const hub = await startHub({
      args: ["--db", db, "--config", config, "--session-secret-file", secretFile("session", `${SECRETS.session}\n`), "--secret-key-file", secretFile("key", `${SECRETS.key}\n`)],
      env: {
        ADMIN_BOOTSTRAP_USER: "root",
        MFA_ENFORCED_ROLES: "",
        METRICS_TOKEN_FILE: secretFile("metrics", SECRETS.metrics),
        PROVISION_AGENTS_FILE: secretFile("agents", `listed:${SECRETS.listed}:eu-west-1:steam\n`),
        AGENT1_ID: "numbered",
        AGENT1_TOKEN_FILE: secretFile("agent1", `${SECRETS.numbered}\n`),
        AGENT1_REGION: "us-east-1",
        AGENT1_PROVIDER: "steam",
      },
    });
    try {
      const exposed = [
        readFileSync(`/proc/${hub.proc.pid}/cmdline`, "utf8").replaceAll("\0", " "),
        readFileSync(`/proc/${hub.proc.pid}/environ`, "utf8").replaceAll("\0", " "),
      ];
      expect(exposed[0]).toContain("--session-secret-file");
      for (const secret of Object.values(SECRETS)) for (const text of exposed) expect(text).not.toContain(secret);

      expect((await fetch(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${SECRETS.metrics}` } })).status).toBe(200);
      expect((await fetch(`${hub.url}/metrics`, { headers: { authorization: "Bearer metrics-token-not-the-right-one" } })).status).toBe(401);

      const signedIn = await login(hub.url, "root", SECRETS.password);
      expect(signedIn.status).toBe(200);
      const session = await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie: signedIn.cookie } })).json();
      expect(session).toMatchObject({ authenticated: true, user: { username: "root", role: "admin" } });
      // The session row is keyed with the secret from the file, not one derived from the key.
      const raw = signedIn.cookie.slice("hub_session=".length);
      const sqlite = new Database(db, { readonly: true });
      const stored = sqlite.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM sessions WHERE id_hash = ?").get(keyedHash(SECRETS.session, raw));
      sqlite.close();
      expect(stored?.n).toBe(1);

      expect(await post(hub.url, SECRETS.listed, reading("eu-west-1", "Windows"))).toBe(201);
      expect(await post(hub.url, SECRETS.numbered, reading("us-east-1", "Windows"))).toBe(201);
      // The key came from its file, so none was made beside the database.
      expect(readdirSync(join(dir, "data"))).not.toContain("hub.key");
      for (const secret of Object.values(SECRETS)) expect(hub.output()).not.toContain(secret);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });
});

describe("files the hub creates", () => {
  test("owner-only under umask 022: data directory 0700; database, -wal, -shm, lock, key and backup 0600", async () => {
    const dir = scratch();
    const data = join(dir, "data");
    const db = join(data, "hub.db");
    const token = "mode-test-agent-token-0123456789";
    const hub = await startHub({ cmd: UMASK_022, args: ["--db", db], env: { AGENT1_TOKEN: token, AGENT1_REGION: "eu-west-1", AGENT1_PROVIDER: "steam" } });
    try {
      expect(await post(hub.url, token, reading("eu-west-1", "Windows"))).toBe(201);
      const copy = join(dir, "backup.db");
      const backup = await runCli(["backup", copy, "--db", db], { cmd: UMASK_022 });
      expect(backup.exitCode).toBe(0);
      expect(modeOf(copy)).toBe("600");
      expect(modeOf(data)).toBe("700");
      const made = readdirSync(data);
      expect(made).toEqual(expect.arrayContaining(["hub.db", "hub.db-wal", "hub.db-shm", "hub.db.lock", "hub.key"]));
      for (const name of made) expect(`${name} ${modeOf(join(data, name))}`).toBe(`${name} 600`);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
    for (const name of readdirSync(data)) expect(`${name} ${modeOf(join(data, name))}`).toBe(`${name} 600`);
  });

  test("files an older hub left readable are made owner-only; a directory the operator made keeps its mode", async () => {
    const data = join(scratch(), "state");
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    const db = join(data, "hub.db");
    const old = new Database(db, { create: true });
    old.exec("PRAGMA journal_mode = WAL; CREATE TABLE leftover (x)");
    for (const name of ["hub.db", "hub.db-wal", "hub.db-shm"]) chmodSync(join(data, name), 0o644);
    const hub = await startHub({ cmd: UMASK_022, args: ["--db", db] });
    try {
      for (const name of readdirSync(data)) expect(`${name} ${modeOf(join(data, name))}`).toBe(`${name} 600`);
      expect(modeOf(data)).toBe("755");
    } finally {
      old.close();
      expect(await hub.stop()).toBe(0);
    }
  });
});

describe("the hub's key", () => {
  test("sessions survive a restart with no secret configured, and nothing warns about it", async () => {
    const db = join(scratch(), "hub.db");
    const env = { ADMIN_BOOTSTRAP_USER: "root", ADMIN_BOOTSTRAP_PASSWORD: "bootstrap password here", MFA_ENFORCED_ROLES: "" };
    const first = await startHub({ args: ["--db", db], env });
    const { cookie } = await login(first.url, "root", env.ADMIN_BOOTSTRAP_PASSWORD);
    expect(await first.stop()).toBe(0);
    expect(first.output()).toContain("created the hub's key");

    const second = await startHub({ args: ["--db", db], env });
    try {
      const session = await (await fetch(`${second.url}/api/v1/auth/session`, { headers: { cookie } })).json();
      expect(session).toMatchObject({ authenticated: true, user: { username: "root" } });
      const logged = `${first.output()}${second.output()}`;
      expect(logged).not.toContain("SESSION_SECRET");
      expect(second.output()).not.toContain("created the hub's key");
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});
