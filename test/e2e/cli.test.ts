import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { HUB_VERSION } from "../../src/version.ts";
import { scratchDirs } from "../helpers.ts";
import { COMMANDS } from "../../src/main.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, runCli, startHub } from "./harness.ts";

const scratch = scratchDirs();

describe("hub CLI", () => {
  test("--help lists every flag with its variable and default", async () => {
    const { exitCode, stdout } = await runCli(["--help"]);
    expect(exitCode).toBe(0);
    const lines = stdout.split("\n");
    for (const key of OPTION_KEYS) {
      const option = OPTIONS[key];
      const at = lines.findIndex((l) => l.startsWith(`  ${option.flag}`));
      const block = [lines[at] ?? `missing ${option.flag}`];
      for (let i = at + 1; (lines[i] ?? "").startsWith("      "); i++) block.push((lines[i] ?? "").trim());
      expect(block[0]).toContain(option.env);
      expect(block.join(" ")).toContain(`default: ${option.defaultText}`);
    }
    for (const command of ["migrate", "openapi", "backup", "version"]) expect(stdout).toContain(`\n  ${command} `);
  });

  test("version", async () => {
    const { exitCode, stdout } = await runCli(["version"]);
    expect(exitCode).toBe(0);
    expect(stdout).toContain(HUB_VERSION);
  });

  test("openapi prints the description as JSON, or YAML with --yaml", async () => {
    const asJson = await runCli(["openapi"]);
    expect(asJson.exitCode).toBe(0);
    const doc = JSON.parse(asJson.stdout) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toStartWith("3.1");
    expect(doc.paths["/healthz"]).toBeDefined();
    const asYaml = await runCli(["openapi", "--yaml"]);
    expect(asYaml.exitCode).toBe(0);
    expect(Bun.YAML.parse(asYaml.stdout)).toEqual(doc);
  });

  test("a bad setting exits 2 with one line naming it, its value and what is allowed", async () => {
    const { exitCode, stderr } = await runCli(["serve"], { env: { PORT: "http" } });
    expect(exitCode).toBe(2);
    expect(stderr.trim().split("\n").length).toBe(1);
    expect(stderr).toContain("PORT");
    expect(stderr).toContain('"http"');
    expect(stderr).toContain("1 to 65535");
    const flag = await runCli(["--stale-after", "5"]);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("--stale-after");
  });

  test("a secret's file that cannot be read exits 2 with one line naming the setting and the path, never the content", async () => {
    const missing = await runCli(["serve"], { env: { METRICS_TOKEN_FILE: "/nonexistent/metrics-token" } });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr.trim()).toBe("hub: cannot read /nonexistent/metrics-token (METRICS_TOKEN_FILE): it does not exist");
    const bad = join(scratch(), "session-secret");
    writeFileSync(bad, "too-short-secret\n");
    const invalid = await runCli(["serve", "--session-secret-file", bad]);
    expect(invalid.exitCode).toBe(2);
    expect(invalid.stderr.trim().split("\n").length).toBe(1);
    expect(invalid.stderr).toContain(`--session-secret-file (${bad})`);
    expect(invalid.stderr).not.toContain("too-short-secret");
    const both = await runCli(["serve"], { env: { METRICS_TOKEN: "metrics-token-0123456789", METRICS_TOKEN_FILE: bad } });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("METRICS_TOKEN and METRICS_TOKEN_FILE are both set");
  });

  test("unknown commands and flags exit 2", async () => {
    expect((await runCli(["frobnicate"])).exitCode).toBe(2);
    expect((await runCli(["migrate", "--frob"])).exitCode).toBe(2);
  });

  test("migrate applies the migrations once and exits", async () => {
    const db = join(scratch(), "m", "hub.db");
    const first = await runCli(["migrate", "--db", db]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("applied 0001_init");
    const second = await runCli(["migrate"], { env: { DB_PATH: db } });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain("up to date");
    const sqlite = new Database(db, { readonly: true });
    expect(sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM schema_migrations").get()?.n).toBe(MIGRATIONS.length);
    sqlite.close();
  });
});

describe("hub backup", () => {
  test("a consistent copy while the database is being written, and never over an existing file", async () => {
    const dir = scratch();
    const db = join(dir, "hub.db");
    const hub = await startHub({ args: ["--db", db] });
    const writer = new Database(db);
    writer.exec("PRAGMA busy_timeout = 5000");
    const insert = writer.query(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-west-1', ?, 0, 1, ?, ?)",
    );
    let written = 0;
    let writing = true;
    const loop = (async () => {
      while (writing) {
        writer.transaction(() => {
          for (let i = 0; i < 200; i++) insert.run(written % 1000, written, written++);
        })();
        await Bun.sleep(1);
      }
    })();
    await Bun.sleep(100);
    const target = join(dir, "copy.db");
    const result = await runCli(["backup", target, "--db", db]);
    writing = false;
    await loop;
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(target);
    const copy = new Database(target, { readonly: true });
    expect(copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    const copied = copy.query<{ n: number; max: number }, []>("SELECT COUNT(*) AS n, MAX(measured_at) AS max FROM readings").get();
    expect(copied?.n).toBeGreaterThan(0);
    expect(copied?.n).toBeLessThanOrEqual(written);
    expect(copied?.n).toBe((copied?.max ?? -1) + 1);
    expect((copied?.n ?? 1) % 200).toBe(0);
    copy.close();
    writer.close();
    const again = await runCli(["backup", target, "--db", db]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("already exists");
    expect(await hub.stop()).toBe(0);
    expect(existsSync(target)).toBe(true);
  });
});

describe("the hub's key and the other commands", () => {
  test("user, agent, migrate and backup never make or read hub.key; only the server does", async () => {
    const dir = scratch();
    const db = join(dir, "hub.db");
    const key = join(dir, "hub.key");
    expect((await runCli(["user", "create", "--db", db, "--username", "ops", "--role", "user"])).exitCode).toBe(0);
    expect((await runCli(["agent", "create", "--db", db, "--region", "eu-west-1", "--provider", "steam"])).exitCode).toBe(0);
    expect(existsSync(key)).toBe(false);

    writeFileSync(key, "not a key\n");
    expect((await runCli(["migrate", "--db", db])).exitCode).toBe(0);
    expect((await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { stdin: "a new long password\n" })).exitCode).toBe(0);
    expect((await runCli(["agent", "list", "--db", db])).exitCode).toBe(0);
    const backup = await runCli(["backup", join(dir, "copy.db"), "--db", db]);
    expect(backup.exitCode).toBe(0);
    expect(backup.stdout).toContain(`with the hub's key, ${key}`);
    expect(readFileSync(key, "utf8")).toBe("not a key\n");

    const serve = await runCli(["serve", "--db", db, "--port", String(await freePort())]);
    expect(serve.exitCode).toBe(2);
    expect(serve.stderr.trim()).toBe(`hub: the hub's key ${key} is damaged (expected 64 hex characters, or 32 bytes in base64); restore it from a backup, or give the key with SECRET_KEY_FILE`);
  });
});

describe("hub user", () => {
  test("create (with --password-stdin or a generated password) and reset-password, beside a running server", async () => {
    const db = join(scratch(), "hub.db");
    const hub = await startHub({ args: ["--db", db], env: { MFA_ENFORCED_ROLES: "" } });
    try {
      const created = await runCli(["user", "create", "--db", db, "--username", "ops", "--admin", "--password-stdin"], { stdin: "first long password\n" });
      expect(created.exitCode).toBe(0);
      expect(created.stdout).toContain('created admin "ops"');
      const login = async (username: string, password: string) =>
        (await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) })).status;
      expect(await login("ops", "first long password")).toBe(200);
      const session = await (await fetch(`${hub.url}/api/v1/auth/session`)).json();
      expect(session.needsSetup).toBe(false);

      const generated = await runCli(["user", "create", "--db", db, "--username", "viewer", "--role", "user"]);
      const password = /password \(shown only now\): (\S+)/.exec(generated.stdout)?.[1] ?? "";
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(await login("viewer", password)).toBe(200);

      expect((await runCli(["user", "create", "--db", db, "--username", "OPS", "--role", "user"])).exitCode).toBe(1);
      expect((await runCli(["user", "create", "--db", db, "--username", "x", "--role", "root"])).exitCode).toBe(1);
      expect((await runCli(["user", "create", "--db", db, "--username", "y", "--password-stdin"], { stdin: "short\n" })).exitCode).toBe(1);

      const reset = await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { stdin: "second long password\n" });
      expect(reset.exitCode).toBe(0);
      expect(await login("ops", "first long password")).toBe(401);
      expect(await login("ops", "second long password")).toBe(200);
      expect((await runCli(["user", "reset-password", "nobody", "--db", db, "--password-stdin"], { stdin: "second long password\n" })).exitCode).toBe(1);
      expect((await runCli(["user", "reset-password", "ops", "--db", db])).exitCode).toBe(1);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("reset-password also switches the user's API keys off, as any password reset does (SPEC §10.1)", async () => {
    const db = join(scratch(), "hub.db");
    const hub = await startHub({ args: ["--db", db], env: { MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true" } });
    try {
      expect((await runCli(["user", "create", "--db", db, "--username", "ops", "--role", "user", "--password-stdin"], { stdin: "first long password\n" })).exitCode).toBe(0);
      const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "ops", password: "first long password" }) });
      const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const { csrfToken } = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      const created = await fetch(`${hub.url}/api/v1/auth/api-keys`, { method: "POST", headers: { cookie, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: "{}" });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const keyUser = async () => ((await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { "x-api-key": key } })).json()) as { user: { username: string } | null }).user;
      expect((await keyUser())?.username).toBe("ops");

      const reset = await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { stdin: "second long password\n" });
      expect(reset.exitCode).toBe(0);
      expect(reset.stdout).toContain("API keys switched off");
      expect(await keyUser()).toBeNull();
      const file = new Database(db, { readonly: true });
      expect(file.query("SELECT enabled FROM api_keys").all()).toEqual([{ enabled: 0 }]);
      file.close();
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("reset-password on a stopped hub's file deletes the user's push subscriptions, and only theirs (SPEC §16.4)", async () => {
    const db = join(scratch(), "hub.db");
    for (const name of ["ops", "other"]) {
      expect((await runCli(["user", "create", "--db", db, "--username", name, "--role", "user", "--password-stdin"], { stdin: "first long password\n" })).exitCode).toBe(0);
    }
    const file = new Database(db);
    const ids = file.query<{ id: number }, []>("SELECT id FROM users ORDER BY id").all().map((row) => row.id);
    const insert = file.query(
      "INSERT INTO push_subscriptions (public_id, endpoint, endpoint_hash, p256dh, auth, token_hash, lang, events, rules, created_at, updated_at, user_id) VALUES (?, 'https://push.example/x', ?, 'p', 'a', 't', 'en', 0, '[]', 0, 0, ?)",
    );
    for (const [i, id] of ids.entries()) insert.run(`id-${i}`, `hash-${i}`, id);
    file.close();
    expect((await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { stdin: "second long password\n" })).exitCode).toBe(0);
    const after = new Database(db, { readonly: true });
    expect(after.query("SELECT user_id FROM push_subscriptions").all()).toEqual([{ user_id: ids[1] ?? 0 }]);
    after.close();
  });
});

describe("a typo never changes a setting (through the binary)", () => {
  test("a switch given a word that is not true or false, or a stray word, exits 2 with one line; nothing starts", async () => {
    const bin = await compiledHub();
    const db = join(scratch(), "hub.db");
    const typo = await runCli(["serve", "--require-auth", "flase", "--db", db], { cmd: [bin] });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toBe("hub: --require-auth takes true or false, not 'flase'\n");
    expect(typo.stdout).toBe("");
    const inline = await runCli(["serve", "--enable-api-keys=ture", "--db", db], { cmd: [bin] });
    expect(inline.exitCode).toBe(2);
    expect(inline.stderr).toBe("hub: --enable-api-keys takes true or false, not 'ture'\n");
    const stray = await runCli(["serve", "maybe", "--db", db], { cmd: [bin] });
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr).toBe(`hub: hub serve takes no words, only flags, not 'maybe'; run "hub serve --help"\n`);
    expect(existsSync(db)).toBe(false);
    for (const argv of [["migrate", "now", "--db", db], ["import-field", "--dry-run", "./field.db"], ["backup", "a.db", "b.db", "--db", db], ["version", "please"]]) {
      const result = await runCli(argv, { cmd: [bin] });
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  }, 60_000);

  test("a switch's word, next or after =, is read as written: --require-auth no serves reads, --require-auth=on asks for sign-in", async () => {
    const bin = await compiledHub();
    const off = await startHub({ cmd: [bin], args: ["--require-auth", "no", "--db", join(scratch(), "off.db")] });
    try {
      expect((await fetch(`${off.url}/api/v1/platforms/Windows/incentives`)).status).toBe(200);
    } finally {
      expect(await off.stop()).toBe(0);
    }
    const on = await startHub({ cmd: [bin], args: ["--require-auth=on", "--db", join(scratch(), "on.db")] });
    try {
      expect((await fetch(`${on.url}/api/v1/platforms/Windows/incentives`)).status).toBe(401);
    } finally {
      expect(await on.stop()).toBe(0);
    }
  }, 60_000);

  test("each command's --help shows its own usage and flags, never wider than 100 columns", async () => {
    const bin = await compiledHub();
    const serve = await runCli(["serve", "--help"], { cmd: [bin] });
    const backup = await runCli(["backup", "--help"], { cmd: [bin] });
    expect(serve.exitCode).toBe(0);
    expect(backup.exitCode).toBe(0);
    expect(serve.stdout).toStartWith("hub serve: Run the server");
    expect(serve.stdout.replace(/\s+/g, " ")).toContain("REQUIRE_AUTH, ENABLE_API_KEYS and MFA_ENFORCED_ROLES are kept in the database");
    expect(backup.stdout).toStartWith("hub backup: ");
    expect(backup.stdout).toContain("  hub backup --to TARGET");
    expect(backup.stdout).toContain("  --to TARGET");
    expect(backup.stdout).toContain("  --backup-encryption-key-file FILE");
    expect(backup.stdout).not.toContain("--require-auth  REQUIRE_AUTH");
    for (const command of COMMANDS) {
      const help = await runCli([command.name, "--help"], { cmd: [bin] });
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toStartWith(`hub ${command.name}: `);
      expect(help.stdout.split("\n").filter((line) => line.length > 100)).toEqual([]);
    }
    const global = await runCli(["--help"], { cmd: [bin] });
    expect(global.stdout.split("\n").filter((line) => line.length > 100)).toEqual([]);
  }, 60_000);
});
