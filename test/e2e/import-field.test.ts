/**
 * `hub import-field` through the compiled binary (SPEC §22): a database made
 * as the field's hub makes one is imported, then every imported thing is used
 * as its owner would use it; refusals leave the target byte for byte as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { createFieldDb, createFieldSchema, FIELD_SYNCED_PASSKEY_FLAGS, fieldPasswordHash, fieldToken, sha256, type FieldFixture } from "../field-fixture.ts";
import { compiledHub } from "./compiled.ts";
import { runCli, startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();

/** A browser's part over HTTP: cookies and the session's CSRF token. */
class Client {
  private readonly cookies = new Map<string, string>();
  private csrf: string | null = null;

  constructor(private readonly url: string) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const all: Record<string, string> = { ...headers };
    if (this.cookies.size > 0) all.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (this.csrf && method !== "GET") all["x-csrf-token"] = this.csrf;
    if (body !== undefined) all["content-type"] = "application/json";
    const response = await fetch(`${this.url}${path}`, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body), redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = (pair ?? "").indexOf("=");
      this.cookies.set((pair ?? "").slice(0, eq), (pair ?? "").slice(eq + 1));
    }
    const text = await response.text();
    const parsed = text.startsWith("{") ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (path === "/api/v1/auth/session") this.csrf = (parsed.csrfToken as string | null) ?? null;
    return { status: response.status, body: parsed };
  }

  async login(username: string, password: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const result = await this.call("POST", "/api/v1/auth/login", { username, password });
    await this.call("GET", "/api/v1/auth/session");
    return result;
  }
}

function fingerprint(path: string): string {
  const hash = createHash("sha256");
  for (const suffix of ["", "-wal"]) hash.update(existsSync(`${path}${suffix}`) ? readFileSync(`${path}${suffix}`) : `no ${suffix}`);
  return hash.digest("hex");
}

/** Read through a read-write handle, which (unlike a read-only one) removes the -wal file it makes when it closes. */
function rows(path: string, sql: string): Record<string, unknown>[] {
  const sqlite = new Database(path);
  try {
    return sqlite.query<Record<string, unknown>, []>(sql).all();
  } finally {
    sqlite.close();
  }
}

let hubBinary: string;
let field: FieldFixture;
let dir: string;

beforeAll(async () => {
  hubBinary = await compiledHub();
  dir = scratch();
  field = await createFieldDb(join(dir, "bloodpoint.db"), { readings: 400, origin: "http://localhost" });
}, 120_000);

async function importInto(db: string, ...extra: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return await runCli(["import-field", "--from", field.path, "--db", db, ...extra], { cmd: [hubBinary] });
}

describe("hub import-field", () => {
  let hub: RunningHub;
  let db: string;
  let fieldBefore: string;

  beforeAll(async () => {
    db = join(scratch(), "hub.db");
    fieldBefore = fingerprint(field.path);
    const dry = await importInto(db, "--dry-run");
    expect(dry.stderr).toBe("");
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain(`readings: ${field.readings} to copy, 0 already here`);
    expect(dry.stdout).toContain("users: 2 to copy, 0 already here");
    expect(existsSync(db)).toBe(false);
    const done = await importInto(db);
    expect(done.stderr).toBe("");
    expect(done.exitCode).toBe(0);
    hub = await startHub({ cmd: [hubBinary], args: ["--db", db] });
  }, 120_000);

  afterAll(async () => {
    await hub.stop();
  });

  test("prints per-table counts, carries no session or remembered device, and leaves the field's file as it was", async () => {
    const again = await importInto(join(scratch(), "other.db"));
    for (const line of [`readings: ${field.readings} copied`, "agents: 2 copied", "users: 2 copied", "passkeys: 1 copied", "API keys: 1 copied", "settings: 4 copied"]) {
      expect(again.stdout).toContain(line);
    }
    expect(again.stdout).toContain("sessions and remembered devices were not carried");
    expect(rows(db, "SELECT COUNT(*) AS n FROM sessions")[0]?.n).toBe(0);
    expect(rows(db, "SELECT COUNT(*) AS n FROM trusted_devices")[0]?.n).toBe(0);
    expect(fingerprint(field.path)).toBe(fieldBefore);
  });

  test("a user signs in with the old password, which is then stored as this hub's argon2id hash", async () => {
    expect(String(rows(db, "SELECT password_hash FROM users WHERE username = 'bob'")[0]?.password_hash)).toStartWith("scrypt$");
    const bob = new Client(hub.url);
    expect((await bob.login("bob", "not-the-password")).status).toBe(401);
    const first = await bob.login("BOB", field.user.password);
    expect(first.status).toBe(200);
    expect(first.body.next).toBe("ok");
    expect(String(rows(db, "SELECT password_hash FROM users WHERE username = 'bob'")[0]?.password_hash)).toStartWith("$argon2id$");
    const second = await new Client(hub.url).login("bob", field.user.password);
    expect(second.body.next).toBe("ok");
    const session = await bob.call("GET", "/api/v1/auth/session");
    expect(session.body.user).toMatchObject({ username: "bob", name: "Bob", role: "user", enabled: true });
  });

  test("the admin passes the second factor with the old TOTP secret, stored sealed", async () => {
    expect(String(rows(db, "SELECT totp_secret FROM users WHERE username = 'Alice'")[0]?.totp_secret)).toStartWith("v1:");
    const alice = new Client(hub.url);
    const login = await alice.login("alice", field.admin.password);
    expect(login.body).toMatchObject({ next: "mfa", methods: ["totp", "webauthn"] });
    const verified = await alice.call("POST", "/api/v1/auth/mfa/totp/verification", { code: field.admin.totp.generate() });
    expect(verified.status).toBe(200);
    const session = await alice.call("GET", "/api/v1/auth/session");
    expect(session.body).toMatchObject({ authenticated: true, user: { username: "Alice", role: "admin", email: "alice@example.org", totpEnabled: true, hasPasskey: true } });
    const users = await alice.call("GET", "/api/v1/admin/users");
    expect(users.status).toBe(200);
  });

  test("the admin passes the second factor with the old passkey, which keeps its flags: a synced passkey", async () => {
    // Carried as the field stored them, before any sign-in here could refresh them.
    expect(rows(db, "SELECT flags FROM passkeys")).toEqual([{ flags: FIELD_SYNCED_PASSKEY_FLAGS }]);
    const alice = new Client(hub.url);
    await alice.login("Alice", field.admin.password);
    const challenge = await alice.call("POST", "/api/v1/auth/mfa/passkeys/challenge");
    expect(challenge.status).toBe(200);
    const assertion = await field.admin.authenticator.get(challenge.body as { publicKey: { challenge: string; rpId?: string } }, { origin: `http://localhost:${new URL(hub.url).port}` });
    const verified = await alice.call("POST", "/api/v1/auth/mfa/passkeys/verification", assertion);
    expect(verified.status).toBe(200);
    const listed = await alice.call("GET", "/api/v1/auth/mfa/passkeys");
    expect(listed.body.passkeys).toMatchObject([{ label: "laptop", backupEligible: true, backedUp: true }]);
  });

  test("a script calls with the old bpi_ API key, as its owner", async () => {
    const ways: Record<string, string>[] = [{ "x-api-key": field.user.apiKey }, { authorization: `Bearer ${field.user.apiKey}` }];
    for (const headers of ways) {
      const session = await new Client(hub.url).call("GET", "/api/v1/auth/session", undefined, headers);
      expect(session.status).toBe(200);
      expect(session.body.user).toMatchObject({ username: "bob" });
      const admin = await new Client(hub.url).call("GET", "/api/v1/admin/users", undefined, headers);
      expect(admin.status).toBe(403);
    }
    const wrong = await new Client(hub.url).call("GET", "/api/v1/admin/users", undefined, { "x-api-key": `bpi_${fieldToken()}` });
    expect(wrong.status).toBe(401);
    expect(rows(db, "SELECT label, prefix, enabled FROM api_keys")).toEqual([{ label: "grafana", prefix: field.user.apiKey.slice(0, 12), enabled: 1 }]);
  });

  test("a volunteer's agent posts with its old token; the switched-off one stays off", async () => {
    const post = async (token: string, region: string, platform: string) =>
      await fetch(`${hub.url}/api/v1/agent/readings`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ region, platform, survivor: 0, killer: 75, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
      });
    expect((await post(field.agents.eu, "eu-central-1", "Windows")).status).toBe(201);
    expect((await post(field.agents.us, "us-east-1", "EGS")).status).toBe(403);
    const agents = rows(db, "SELECT provision_id, label, enabled, poll_min, poll_max, source FROM agents ORDER BY id");
    expect(agents).toEqual([
      { provision_id: "eu-1", label: "Frankfurt box", enabled: 1, poll_min: "%refreshTime%", poll_max: "%refreshTime% * 1.33", source: "provisioned" },
      { provision_id: null, label: null, enabled: 0, poll_min: "600", poll_max: null, source: "imported" },
    ]);
  });

  test("viewers read the old history, with the agent that measured each reading", async () => {
    const from = Date.now() - 21 * 86_400_000;
    const history = await fetch(`${hub.url}/api/v1/platforms/Windows/regions/eu-central-1/history?from=${from}`);
    const body = (await history.json()) as { points: { measuredAt?: number }[]; firstAt: number };
    expect(history.status).toBe(200);
    expect(body.points.length).toBeGreaterThanOrEqual(field.readings / 2);
    expect(rows(db, "SELECT COUNT(*) AS n FROM readings WHERE agent_id IS NULL")[0]?.n).toBe(0);
    const refresh = rows(db, "SELECT refresh_time_seconds AS r FROM slot_state WHERE platform = 'Windows' AND region = 'eu-central-1'");
    expect(refresh).toEqual([{ r: 180 }]);
  });

  test("serving the field's file itself (its dbPath kept) is refused before anything is written, pointing at the import", async () => {
    const result = await runCli(["serve", "--db", field.path, "--port", "3999"], { cmd: [hubBinary] });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim()).toBe(
      `hub: ${field.path} is the field hub's database (the dbPath of its config); this hub keeps its own: run "hub import-field --from ${field.path} --db ${join(dir, "hub.db")}", then start with DB_PATH=${join(dir, "hub.db")}`,
    );
    expect(fingerprint(field.path)).toBe(fieldBefore);
  });

  test("the field's settings are this hub's: API keys on, the MFA policy chosen", async () => {
    const session = await new Client(hub.url).call("GET", "/api/v1/auth/session");
    expect(session.body.enableApiKeys).toBe(true);
    expect(rows(db, "SELECT value FROM settings WHERE key = 'mfaPolicyChosen'")).toEqual([{ value: "true" }]);
  });
});

describe("hub import-field, twice and refused", () => {
  test("a second import copies nothing twice, even after a sign-in replaced a password hash", async () => {
    const db = join(scratch(), "hub.db");
    expect((await importInto(db)).exitCode).toBe(0);
    const sqlite = new Database(db);
    sqlite.exec("UPDATE users SET password_hash = 'replaced-by-a-sign-in' WHERE username = 'bob'");
    sqlite.close();
    const counts = () => rows(db, "SELECT (SELECT COUNT(*) FROM readings) AS r, (SELECT COUNT(*) FROM users) AS u, (SELECT COUNT(*) FROM agents) AS a, (SELECT COUNT(*) FROM passkeys) AS p, (SELECT COUNT(*) FROM api_keys) AS k");
    const before = counts();
    const again = await importInto(db);
    expect(again.exitCode).toBe(0);
    for (const line of ["readings: 0 copied, 400 already here", "agents: 0 copied, 2 already here", "users: 0 copied, 2 already here", "passkeys: 0 copied, 1 already here", "API keys: 0 copied, 1 already here", "settings: 0 copied, 4 already here"]) {
      expect(again.stdout).toContain(line);
    }
    expect(counts()).toEqual(before);
  });

  test("an agent the field provisioned from AGENTn_TOKEN alone is provisioned by the same variables here, not duplicated or refused", async () => {
    const path = join(scratch(), "numbered.db");
    copyFileSync(field.path, path);
    const token = fieldToken();
    const sqlite = new Database(path);
    sqlite
      .query("INSERT INTO agents (provision_id, token_hash, region, provider, platform, label, enabled, source, created_at, updated_at) VALUES ('agent-3', ?, 'eu-west-1', 'steam', 'Windows', NULL, 1, 'provisioned', 1, 1)")
      .run(sha256(token));
    sqlite.close();
    const db = join(scratch(), "hub.db");
    expect((await runCli(["import-field", "--from", path, "--db", db], { cmd: [hubBinary] })).exitCode).toBe(0);
    // The field's own .env.example ships AGENT1_TOKEN= blank: an agent managed in the admin UI, skipped by both hubs.
    const env = { AGENT3_TOKEN: token, AGENT3_REGION: "eu-west-1", AGENT3_PROVIDER: "steam", AGENT1_TOKEN: "", AGENT1_REGION: "eu-central-1", AGENT1_PROVIDER: "steam" };
    const hub = await startHub({ cmd: [hubBinary], args: ["--db", db], env });
    try {
      expect((await fetch(`${hub.url}/api/v1/agent/assignment`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await hub.stop();
    }
    expect(rows(db, "SELECT provision_id FROM agents ORDER BY id")).toEqual([{ provision_id: "eu-1" }, { provision_id: null }, { provision_id: "agent3" }]);
  });

  test("readings the agent API would refuse are counted by reason, not copied; users with hashes weaker than the field's must reset", async () => {
    const path = join(scratch(), "doctored.db");
    copyFileSync(field.path, path);
    const sqlite = new Database(path);
    const now = Date.now();
    const reading = sqlite.query(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, agent_id) VALUES ('Windows', 'eu-central-1', ?, ?, ?, ?, 'live', 180, ?, 1)",
    );
    reading.run("lots", 100, 1.5, "9.2.0", now - 3_600_000);
    reading.run(0, 5000, 1.5, "9.2.0", now - 3_500_000);
    reading.run(0, 100, -1, "9.2.0", now - 3_400_000);
    reading.run(0, 100, 1.5, "v".repeat(5_000_000), now - 3_300_000);
    reading.run(0, 100, 1.5, "9.2.0", now + 10 * 365 * 86_400_000);
    reading.run(0, 100, 1.5, "9.2.0", "yesterday");
    const weakScrypt = ["scrypt", "2", "8", "1", Buffer.from("salt-of-16-bytes").toString("base64"), Buffer.alloc(64, 1).toString("base64")].join("$");
    const user = sqlite.query("INSERT INTO users (username, password_hash, role, enabled, created_at, updated_at) VALUES (?, ?, 'user', 1, 1, 1)");
    user.run("carol", weakScrypt);
    user.run("dave", Bun.password.hashSync("daves-weak-password", { algorithm: "bcrypt", cost: 4 }));
    user.run("erin", Bun.password.hashSync("erins-weak-password", { algorithm: "argon2id", memoryCost: 8, timeCost: 1 }));
    user.run("frank", Bun.password.hashSync("franks-good-password", { algorithm: "bcrypt", cost: 10 }));
    sqlite.close();

    const db = join(scratch(), "hub.db");
    const done = await runCli(["import-field", "--from", path, "--db", db], { cmd: [hubBinary] });
    expect(done.stderr).toBe("");
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toContain(`readings: ${field.readings} copied`);
    for (const line of [
      "readings refused (not copied): 2, survivor or killer is not an integer from 0 to 1000",
      "readings refused (not copied): 1, ratio is not a number above 0 and at most 100000",
      "readings refused (not copied): 1, version or category is not text of at most 64 characters",
      "readings refused (not copied): 1, measuredAt is more than 60 s in the future",
      "readings refused (not copied): 1, measuredAt is not a time",
      "users: 6 copied",
      "passwords not imported, weaker than the field's own hashes (these users must reset their password): carol, dave, erin",
    ]) {
      expect(done.stdout).toContain(line);
    }
    expect(rows(db, "SELECT COUNT(*) AS n FROM readings")[0]?.n).toBe(field.readings);
    expect(rows(db, "SELECT MAX(LENGTH(version)) AS n, MAX(measured_at) <= unixepoch('subsec') * 1000 AS past, SUM(typeof(survivor) <> 'integer') AS text FROM readings")[0]).toEqual({ n: 5, past: 1, text: 0 });
    expect(rows(db, "SELECT username, password_hash IS NULL AS reset FROM users WHERE username IN ('carol', 'dave', 'erin', 'frank') ORDER BY username")).toEqual([
      { username: "carol", reset: 1 },
      { username: "dave", reset: 1 },
      { username: "erin", reset: 1 },
      { username: "frank", reset: 0 },
    ]);
  });

  test("hashes costlier than a sign-in can afford are not imported (their users must reset), and text longer than the API takes is cut or left out, counted", async () => {
    const path = join(scratch(), "costly.db");
    copyFileSync(field.path, path);
    const sqlite = new Database(path);
    const bcrypt = Bun.password.hashSync("a password of some length", { algorithm: "bcrypt", cost: 4 });
    const argon2 = Bun.password.hashSync("a password of some length", { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 });
    const [, , , , salt, key] = fieldPasswordHash("a password of some length").split("$");
    const user = sqlite.query("INSERT INTO users (username, name, email, password_hash, role, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, 'user', 1, 1, 1)");
    // Made cheaply, then their cost raised in the string: the import judges the parameters, never runs them.
    user.run("bcrypt16", null, null, bcrypt.replace("$04$", "$16$"));
    user.run("argon1g", null, null, argon2.replace("m=19456", "m=1048576"));
    user.run("argont11", null, null, argon2.replace("t=2", "t=11"));
    user.run("argonp17", null, null, argon2.replace("p=1", "p=17"));
    user.run("scryptn21", null, null, ["scrypt", String(1 << 21), "1", "1", salt, key].join("$"));
    user.run("scryptrp", null, null, ["scrypt", "16384", "16", "8", salt, key].join("$"));
    user.run("bcrypt14", "ñ".repeat(5000), `${"x".repeat(300)}@example.org`, bcrypt.replace("$04$", "$14$"));
    sqlite.query("UPDATE agents SET label = ? WHERE id = 1").run("L".repeat(5000));
    sqlite.query("UPDATE api_keys SET label = ? WHERE id = 1").run("k".repeat(5000));
    sqlite.query("UPDATE webauthn_credentials SET label = ? WHERE id = 1").run("p".repeat(5000));
    sqlite.close();

    const db = join(scratch(), "hub.db");
    const done = await runCli(["import-field", "--from", path, "--db", db], { cmd: [hubBinary] });
    expect(done.stderr).toBe("");
    expect(done.exitCode).toBe(0);
    for (const line of [
      "passwords not imported, costlier to check than a sign-in can afford (these users must reset their password): bcrypt16, argon1g, argont11, argonp17, scryptn21, scryptrp",
      "user names cut to 120 characters: 1",
      "e-mail addresses left out (not an address of at most 254 characters): 1",
      "agent labels cut to 120 characters: 1",
      "API key labels cut to 120 characters: 1",
      "passkey labels cut to 120 characters: 1",
    ]) {
      expect(done.stdout).toContain(line);
    }
    expect(rows(db, "SELECT username, password_hash IS NULL AS reset FROM users WHERE username IN ('bcrypt16', 'argon1g', 'scryptn21', 'bcrypt14') ORDER BY username")).toEqual([
      { username: "argon1g", reset: 1 },
      { username: "bcrypt14", reset: 0 },
      { username: "bcrypt16", reset: 1 },
      { username: "scryptn21", reset: 1 },
    ]);
    expect(rows(db, "SELECT name, email FROM users WHERE username = 'bcrypt14'")[0]).toEqual({ name: "ñ".repeat(120), email: null });
    expect(rows(db, "SELECT MAX(LENGTH(label)) AS n FROM agents")[0]?.n).toBe(120);
    expect(rows(db, "SELECT MAX(LENGTH(label)) AS n FROM api_keys")[0]?.n).toBe(120);
    expect(rows(db, "SELECT MAX(LENGTH(label)) AS n FROM passkeys")[0]?.n).toBe(120);
  });

  test("a dry run against an existing database prints what it would copy and changes no byte", async () => {
    const db = join(scratch(), "hub.db");
    expect((await runCli(["migrate", "--db", db], { cmd: [hubBinary] })).exitCode).toBe(0);
    const before = fingerprint(db);
    const dry = await importInto(db, "--dry-run");
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toContain("agents: 2 to copy, 0 already here");
    expect(dry.stdout).toContain("dry run: nothing was written");
    expect(fingerprint(db)).toBe(before);
  });

  test("passkeys of a field database from before it kept flags (schema 3) arrive with their flags unknown", async () => {
    const path = join(scratch(), "schema3.db");
    const sqlite = createFieldSchema(path, 3);
    const now = Date.now();
    sqlite.query("INSERT INTO users (username, role, enabled, created_at, updated_at) VALUES ('dave', 'user', 1, ?, ?)").run(now, now);
    sqlite.query("INSERT INTO webauthn_credentials (user_id, credential_id, public_key, counter, label, created_at) VALUES (1, 'AAAA', 'AAAA', 0, 'old key', ?)").run(now);
    sqlite.close();
    const target = join(scratch(), "hub.db");
    const result = await runCli(["import-field", "--from", path, "--db", target], { cmd: [hubBinary] });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("passkeys: 1 copied");
    expect(rows(target, "SELECT label, flags FROM passkeys")).toEqual([{ label: "old key", flags: null }]);
  });

  test("large files show progress", async () => {
    const big = await createFieldDb(join(scratch(), "big.db"), { readings: 120_000, origin: "http://localhost" });
    const result = await runCli(["import-field", "--from", big.path, "--db", join(scratch(), "hub.db"), "--dry-run"], { cmd: [hubBinary] });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("readings: 50000 of 120000 (41%)");
    expect(result.stdout).toContain("readings: 120000 of 120000 (100%)");
  }, 60_000);

  describe("refusals change nothing", () => {
    let db: string;
    let before: string;

    beforeAll(async () => {
      db = join(scratch(), "hub.db");
      expect((await runCli(["user", "create", "--username", "carol", "--db", db], { cmd: [hubBinary] })).exitCode).toBe(0);
      before = fingerprint(db);
    });

    async function refused(from: string, expected: string): Promise<void> {
      const result = await runCli(["import-field", "--from", from, "--db", db], { cmd: [hubBinary] });
      expect(result.exitCode).toBe(1);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toContain(expected);
      expect(result.stdout).toBe("");
      expect(fingerprint(db)).toBe(before);
    }

    test("a file that is not the field's database", async () => {
      await refused(db, "is this hub's own database");
      const ours = join(scratch(), "ours.db");
      copyFileSync(db, ours);
      await refused(ours, "is not the database of the field's hub (bloodpoint-incentives): it has no webauthn_credentials table");
      const text = join(scratch(), "notes.db");
      await Bun.write(text, "not a database at all, just some text that is long enough to be a header".repeat(20));
      await refused(text, "is not the database of the field's hub");
      await refused(join(scratch(), "missing.db"), "does not exist");
    });

    test("a schema newer than the importer knows", async () => {
      const path = join(scratch(), "newer.db");
      const sqlite = createFieldSchema(path);
      sqlite.exec("PRAGMA user_version = 5");
      sqlite.close();
      await refused(path, "has schema version 5 of the field's hub, newer than the 4 this importer knows");
    });

    test("passkey flags that are not one byte", async () => {
      const path = join(scratch(), "flags.db");
      copyFileSync(field.path, path);
      const sqlite = new Database(path);
      sqlite.exec("UPDATE webauthn_credentials SET flags = 300");
      sqlite.close();
      await refused(path, "the flags of the field's passkey 1 are not one byte (0 to 255)");
    });

    test("a username that already exists with other data", async () => {
      const path = join(scratch(), "carol.db");
      copyFileSync(field.path, path);
      const sqlite = new Database(path);
      sqlite.exec("UPDATE users SET username = 'Carol' WHERE username = 'bob'");
      sqlite.close();
      await refused(path, 'the username "Carol" already exists here (user 1) with other data');
    });

    test("an agent token that already exists with other data", async () => {
      const token = fieldToken();
      const provisioned = await runCli(["agent", "create", "--db", db, "--region", "eu-west-1", "--provider", "steam"], { cmd: [hubBinary] });
      expect(provisioned.exitCode).toBe(0);
      const hash = String(rows(db, "SELECT token_hash FROM agents ORDER BY id DESC LIMIT 1")[0]?.token_hash);
      before = fingerprint(db);
      const path = join(scratch(), "agent.db");
      copyFileSync(field.path, path);
      const sqlite = new Database(path);
      sqlite.query("UPDATE agents SET token_hash = ? WHERE provision_id = 'eu-1'").run(hash);
      sqlite.query("UPDATE agents SET token_hash = ? WHERE provision_id IS NULL").run(sha256(token));
      sqlite.close();
      await refused(path, 'the token of the field\'s agent "eu-1" is already used here by agent 1 with other data');
    });
  });
});
