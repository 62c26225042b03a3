/**
 * `hub import-field` beside a hub serving the target (SPEC §16.2, §22): the
 * command hands the field file's path to that hub over `<db>.sock`, never
 * opens the database for writing, prints what it prints alone, and the hub
 * serves what was imported at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { createFieldDb, type FieldFixture } from "../field-fixture.ts";
import { compiledHub } from "./compiled.ts";
import { runCli, startHub, type CliResult, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();

/** Runs the CLI under strace and returns, with its result, the opens of the database and its journals that could write. */
async function traced(bin: string, args: readonly string[], db: string): Promise<{ result: CliResult; writes: string[] }> {
  const trace = join(scratch(), "trace");
  const result = await runCli(args, { cmd: ["strace", "-f", "-qq", "-e", "trace=open,openat,creat", "-o", trace, bin] });
  const files = ["", "-wal", "-shm", "-journal"].map((suffix) => `"${db}${suffix}"`);
  const writes = readFileSync(trace, "utf8")
    .split("\n")
    .filter((line) => files.some((file) => line.includes(file)) && /O_RDWR|O_WRONLY|O_CREAT/.test(line));
  return { result, writes };
}

/** What the hub holds, read through its own API and a read-only look at the file. */
function counts(db: string): Record<string, unknown> {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.query<Record<string, unknown>, []>("SELECT (SELECT COUNT(*) FROM readings) AS r, (SELECT COUNT(*) FROM users) AS u, (SELECT COUNT(*) FROM agents) AS a").get() ?? {};
  } finally {
    sqlite.close();
  }
}

async function login(url: string, username: string, password: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
  await response.arrayBuffer();
  return response.status;
}

describe("hub import-field beside a serving hub", () => {
  let bin: string;
  let field: FieldFixture;
  let db: string;
  let hub: RunningHub;
  let alone: CliResult;
  let aloneDb: string;

  beforeAll(async () => {
    bin = await compiledHub();
    field = await createFieldDb(join(scratch(), "bloodpoint.db"), { readings: 400, origin: "http://localhost" });
    // The same import with no hub serving: what the command must print beside one.
    aloneDb = join(scratch(), "alone.db");
    expect((await runCli(["migrate", "--db", aloneDb], { cmd: [bin] })).exitCode).toBe(0);
    alone = await runCli(["import-field", "--from", field.path, "--db", aloneDb], { cmd: [bin] });
    expect(alone.exitCode).toBe(0);
    db = join(scratch(), "hub.db");
    hub = await startHub({ cmd: [bin], args: ["--db", db] });
  }, 120_000);

  afterAll(async () => {
    await hub.stop();
  });

  test("a dry run prints what it would copy and writes nothing", async () => {
    const before = counts(db);
    const dry = await traced(bin, ["import-field", "--from", field.path, "--db", db, "--dry-run"], db);
    expect(dry.result.stderr).toBe("");
    expect(dry.result.exitCode).toBe(0);
    expect(dry.result.stdout).toBe(alone.stdout.replace(/copied/g, "to copy").replace(/imported .*\n$/, `dry run: nothing was written to ${db}\n`));
    expect(dry.writes).toEqual([]);
    expect(counts(db)).toEqual(before);
  });

  test("the hub imports, the command never opens the database for writing and prints what it prints alone; agents, users, history and live values are served at once", async () => {
    const done = await traced(bin, ["import-field", "--from", field.path, "--db", db], db);
    expect(done.result.stderr).toBe("");
    expect(done.result.exitCode).toBe(0);
    expect(done.result.stdout).toBe(alone.stdout.replace(aloneDb, db));
    expect(done.writes).toEqual([]);
    expect(counts(db)).toEqual({ r: field.readings, u: 2, a: 2 });

    // No waiting for a watcher: the very next requests see the import.
    const live = (await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).json()) as { regions: { region?: string; id?: string; measuredAt?: string | number }[] };
    expect(JSON.stringify(live)).toContain("eu-central-1");
    expect(JSON.stringify(live)).toContain(new Date(field.newestEu).toISOString());
    const history = await fetch(`${hub.url}/api/v1/platforms/Windows/regions/eu-central-1/history?from=${Date.now() - 21 * 86_400_000}`);
    expect(history.status).toBe(200);
    expect(((await history.json()) as { points: unknown[] }).points.length).toBeGreaterThanOrEqual(field.readings / 2);
    const posted = await fetch(`${hub.url}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${field.agents.eu}`, "content-type": "application/json" },
      body: JSON.stringify({ region: "eu-central-1", platform: "Windows", survivor: 0, killer: 75, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
    });
    expect(posted.status).toBe(201);
    expect(await login(hub.url, "bob", field.user.password)).toBe(200);
    // The field's settings took effect in the running hub: API keys are on, so bob's old key works.
    const session = await fetch(`${hub.url}/api/v1/auth/session`, { headers: { "x-api-key": field.user.apiKey } });
    expect(session.status).toBe(200);
    expect(((await session.json()) as { user: { username: string } }).user.username).toBe("bob");
  });

  test("large files show the same progress lines, printed once the hub answers", async () => {
    const big = await createFieldDb(join(scratch(), "big.db"), { readings: 120_000, origin: "http://localhost" });
    const dry = await runCli(["import-field", "--from", big.path, "--db", db, "--dry-run"], { cmd: [bin] });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toStartWith("readings: 50000 of 120000 (41%)\nreadings: 100000 of 120000 (83%)\nreadings: 120000 of 120000 (100%)\n");
  }, 60_000);

  test("run again, it imports nothing twice", async () => {
    const before = counts(db);
    const again = await runCli(["import-field", "--from", field.path, "--db", db], { cmd: [bin] });
    expect(again.exitCode).toBe(0);
    for (const line of [`readings: 0 copied, ${field.readings} already here`, "agents: 0 copied, 2 already here", "users: 0 copied, 2 already here"]) expect(again.stdout).toContain(line);
    expect(counts(db)).toEqual(before);
  });

  test("a conflict is refused as it is with no hub, and changes nothing", async () => {
    const path = join(scratch(), "carol.db");
    copyFileSync(field.path, path);
    const sqlite = new Database(path);
    sqlite.exec(
      "INSERT INTO users (username, email, name, password_hash, role, totp_secret, enabled, created_at, updated_at, last_login_at, totp_last_step) VALUES ('Carol', NULL, 'Carol', 'scrypt$16384$8$1$c2FsdA==$aGFzaA==', 'user', NULL, 1, 0, 0, NULL, 0)",
    );
    sqlite.close();
    expect((await runCli(["user", "create", "--username", "carol", "--db", db], { cmd: [bin] })).exitCode).toBe(0);
    const before = counts(db);
    const refused = await runCli(["import-field", "--from", path, "--db", db], { cmd: [bin] });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toMatch(/^hub: import refused, nothing was changed: the username "Carol" already exists here \(user \d+\) with other data; rename or delete it here first, then import again\n$/);
    expect(counts(db)).toEqual(before);
  });

  test("a file that is not the field's is refused in the same words", async () => {
    const refused = await runCli(["import-field", "--from", join(scratch(), "missing.db"), "--db", db], { cmd: [bin] });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("does not exist");
  });

  test("a file the hub cannot read or see is refused as such, pointing at stopping the hub", async () => {
    const before = counts(db);
    const ask = async (path: string): Promise<{ status: number; detail: string }> => {
      // Asked on the socket directly: the command checks first that it can read the file itself, so only a hub with another view of the files meets this.
      const response = await fetch("http://hub/v1/import-field", { unix: `${db}.sock`, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ from: path, dryRun: false }) });
      return { status: response.status, detail: ((await response.json()) as { detail: string }).detail };
    };
    // As under systemd's PrivateTmp: the command's file is not there for the hub.
    const unseen = join(scratch(), "private-tmp.db");
    const missing = await ask(unseen);
    expect(missing.status).toBe(409);
    expect(missing.detail).toContain(`the hub serving this database cannot read ${unseen} (ENOENT)`);
    expect(missing.detail).toContain("stop the hub and run import-field again");
    if (process.getuid?.() !== 0) {
      // Root reads every file, so only another user can show a file the hub may not read.
      const locked = join(scratch(), "locked.db");
      copyFileSync(field.path, locked);
      chmodSync(locked, 0o000);
      try {
        expect((await ask(locked)).detail).toContain(`cannot read ${locked} (EACCES)`);
      } finally {
        chmodSync(locked, 0o600);
      }
    }
    expect((await fetch("http://hub/v1/import-field", { unix: `${db}.sock`, method: "POST", body: JSON.stringify({ from: "relative.db" }) })).status).toBe(400);
    expect(counts(db)).toEqual(before);
  });

  test("while a large import holds the write lock, health and reads keep answering and an agent's post gets its usual answer or 503 with Retry-After, never a wait", async () => {
    const target = join(scratch(), "busy.db");
    const busy = await startHub({ cmd: [bin], args: ["--db", target] });
    try {
      const created = await runCli(["agent", "create", "--db", target, "--region", "eu-west-1", "--provider", "steam"], { cmd: [bin] });
      const token = /token \(shown only now\): (\S+)/.exec(created.stdout)?.[1] ?? "";
      const big = await createFieldDb(join(scratch(), "big.db"), { readings: 300_000, origin: "http://localhost" });
      let running = true;
      const importing = runCli(["import-field", "--from", big.path, "--db", target], { cmd: [bin] }).finally(() => {
        running = false;
      });
      let slowest = 0;
      const posts: { status: number; retryAfter: string | null }[] = [];
      while (running) {
        const started = performance.now();
        await (await fetch(`${busy.url}/healthz`)).arrayBuffer();
        await (await fetch(`${busy.url}/api/v1/platforms/Windows/incentives`)).arrayBuffer();
        const posted = await fetch(`${busy.url}/api/v1/agent/readings`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 0, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
        });
        await posted.arrayBuffer();
        posts.push({ status: posted.status, retryAfter: posted.headers.get("retry-after") });
        slowest = Math.max(slowest, performance.now() - started);
        await Bun.sleep(100);
      }
      expect((await importing).exitCode).toBe(0);
      expect(posts.length).toBeGreaterThan(3);
      // A post waits at most the storage layer's 2 s for the lock, then is refused; health and the read take milliseconds.
      // The bound leaves room for a shared, loaded machine (4.2 s seen with eight test runs at once); waiting for the
      // import itself would take its whole duration, and would also leave too few rounds for the count above.
      expect(slowest).toBeLessThan(6_000);
      // Past the first, posts come faster than the agent's cadence allows (429); none waits or fails otherwise.
      for (const post of posts) {
        if (post.status !== 201) expect([429, 503]).toContain(post.status);
        if (post.status === 503) expect(post.retryAfter).toMatch(/^\d+$/);
      }
      expect(counts(target)).toMatchObject({ r: 300_000 + posts.filter((p) => p.status === 201).length });
    } finally {
      await busy.stop();
    }
  }, 120_000);
});

describe("hub import-field beside a serving hub, of rows the hub would refuse", () => {
  test("the hub's report counts refused readings by reason and names the users who must reset, as the command alone does", async () => {
    const bin = await compiledHub();
    const field = await createFieldDb(join(scratch(), "bloodpoint.db"), { readings: 10, origin: "http://localhost" });
    const sqlite = new Database(field.path);
    sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, agent_id) VALUES ('Windows', 'eu-central-1', 'lots', 0, 1, NULL, NULL, NULL, ?, 1)").run(Date.now() - 60_000);
    sqlite.query("INSERT INTO users (username, password_hash, role, enabled, created_at, updated_at) VALUES ('carol', ?, 'user', 1, 1, 1)").run(Bun.password.hashSync("carols-weak-password", { algorithm: "bcrypt", cost: 4 }));
    sqlite.close();
    const db = join(scratch(), "hub.db");
    const hub = await startHub({ cmd: [bin], args: ["--db", db] });
    try {
      const done = await runCli(["import-field", "--from", field.path, "--db", db], { cmd: [bin] });
      expect(done.stderr).toBe("");
      expect(done.exitCode).toBe(0);
      expect(done.stdout).toContain("readings: 10 copied");
      expect(done.stdout).toContain("readings refused (not copied): 1, survivor or killer is not an integer from 0 to 1000");
      expect(done.stdout).toContain("these users must reset their password): carol\n");
      expect(await login(hub.url, "carol", "carols-weak-password")).toBe(401);
    } finally {
      await hub.stop();
    }
  }, 60_000);
});
