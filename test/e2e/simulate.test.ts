/**
 * `hub simulate` end to end: the live player against a real server started
 * from source, the backfill into a database file, and start-up pruning of
 * what the backfill wrote beyond the retention window.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { BUILT_IN_REGIONS, PLATFORMS } from "../../src/domain/catalogue.ts";
import { inOutage, slotModel } from "../../src/sim/model.ts";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { runCli, startHub } from "./harness.ts";

/** Backfill writes every platform × region pair of the built-in catalogue. */
const PAIRS = PLATFORMS.length * BUILT_IN_REGIONS.length;

const dir = tempDir();
afterAll(() => dir.cleanup());

function query<T>(path: string, sql: string): T[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<T, []>(sql).all();
  } finally {
    db.close();
  }
}

/** A seed under which none of these agents is in one of its outages this hour or the next, so every one posts. */
function seedWithoutOutages(slots: readonly [string, string][]): number {
  const hour = 3_600_000;
  for (let seed = 1; ; seed++) {
    const models = slots.map(([platform, region]) => slotModel(seed, platform, region));
    if (models.every((m) => !inOutage(m, Date.now()) && !inOutage(m, Date.now() + hour))) return seed;
  }
}

describe("hub simulate", () => {
  test("live: creates agents across platforms and regions and plays them against a running hub", async () => {
    const db = join(dir.path, "live.db");
    const hub = await startHub({ args: ["--db", db] });
    try {
      const seed = seedWithoutOutages([
        ["Windows", "eu-west-1"],
        ["EGS", "eu-west-2"],
        ["GRDK", "eu-central-1"],
        ["Windows", "us-east-1"],
      ]);
      const run = await runCli(["simulate", "--hub", hub.url, "--db", db, "--agents", "4", "--duration", "4", "--seed", String(seed)]);
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain("playing 4 agents");
      expect(run.stdout).toContain("4 readings accepted, 0 refused");

      const agents = query<{ platform: string; region: string; label: string; enabled: number }>(db, "SELECT platform, region, label, enabled FROM agents ORDER BY id");
      expect(agents).toEqual([
        { platform: "Windows", region: "eu-west-1", label: "simulator", enabled: 1 },
        { platform: "EGS", region: "eu-west-2", label: "simulator", enabled: 1 },
        { platform: "GRDK", region: "eu-central-1", label: "simulator", enabled: 1 },
        { platform: "Windows", region: "us-east-1", label: "simulator", enabled: 1 },
      ]);
      const readings = query<{ survivor: number; killer: number; refresh_time_seconds: number }>(db, "SELECT survivor, killer, refresh_time_seconds FROM readings");
      expect(readings.length).toBe(4);
      for (const r of readings) {
        expect(r.refresh_time_seconds).toBe(180);
        expect(r.survivor % 25 === 0 && r.killer % 25 === 0 && r.survivor <= 150 && r.killer <= 150).toBe(true);
      }

      const payload = (await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).json()) as { status: string; regions: { region: string; isReal: boolean }[] };
      expect(payload.status).toBe("ok");
      expect(payload.regions.filter((r) => r.isReal).map((r) => r.region)).toEqual(["eu-west-1", "us-east-1"]);
      const activity = (await (await fetch(`${hub.url}/api/v1/platforms/EGS/regions/eu-west-2/activity`)).json()) as { recent: unknown[] };
      expect(activity.recent.length).toBe(1);

      // A second run reuses the simulator's agents with new tokens; each now waits for its phase instead of probing.
      const again = await runCli(["simulate", "--hub", hub.url, "--db", db, "--agents", "2", "--duration", "1"]);
      expect(again.exitCode).toBe(0);
      expect(query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM agents")[0]?.n).toBe(4);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("live with an admin API key: agents are made through the admin API", async () => {
    const db = join(dir.path, "api.db");
    const password = "correct horse battery";
    const hub = await startHub({ args: ["--db", db], env: { ADMIN_BOOTSTRAP_USER: "ops", ADMIN_BOOTSTRAP_PASSWORD: password, MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true" } });
    try {
      const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "ops", password }) });
      const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const { csrfToken } = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      const made = await fetch(`${hub.url}/api/v1/auth/api-keys`, { method: "POST", headers: { cookie, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: "{}" });
      const { key } = (await made.json()) as { key: string };
      const seed = seedWithoutOutages([
        ["Windows", "eu-west-1"],
        ["EGS", "eu-west-2"],
      ]);
      const run = await runCli(["simulate", "--hub", hub.url, "--api-key", key, "--agents", "2", "--duration", "3", "--seed", String(seed)]);
      expect(run.stderr).toBe("");
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain("2 readings accepted, 0 refused");
      const agents = query<{ platform: string; region: string; label: string }>(db, "SELECT platform, region, label FROM agents ORDER BY id");
      expect(agents).toEqual([
        { platform: "Windows", region: "eu-west-1", label: "simulator" },
        { platform: "EGS", region: "eu-west-2", label: "simulator" },
      ]);
      const audited = query<{ action: string; actor: string }>(db, "SELECT action, actor FROM audit_log WHERE action = 'agent.create'");
      expect(audited).toEqual([
        { action: "agent.create", actor: "ops" },
        { action: "agent.create", actor: "ops" },
      ]);
      const refused = await runCli(["simulate", "--hub", hub.url, "--api-key", "hub_not-a-real-key", "--agents", "1", "--duration", "1"]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("admin API");
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("dist/hub takes the admin API key from a file or the environment, never needing it on the command line", async () => {
    const binary = await compiledHub();
    const db = join(dir.path, "keyfile.db");
    const password = "correct horse battery";
    const hub = await startHub({ cmd: [binary], cwd: dir.path, args: ["--db", db], env: { ADMIN_BOOTSTRAP_USER: "ops", ADMIN_BOOTSTRAP_PASSWORD: password, MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true" } });
    try {
      const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "ops", password }) });
      const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const { csrfToken } = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      const made = await fetch(`${hub.url}/api/v1/auth/api-keys`, { method: "POST", headers: { cookie, "x-csrf-token": csrfToken, "content-type": "application/json" }, body: "{}" });
      const { key } = (await made.json()) as { key: string };
      const keyFile = join(dir.path, "admin.key");
      writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
      const base = ["simulate", "--hub", hub.url, "--agents", "1", "--duration", "2"];
      const ways: { args: string[]; env: Record<string, string> }[] = [
        { args: ["--api-key-file", keyFile], env: {} },
        { args: [], env: { HUB_API_KEY_FILE: keyFile } },
        { args: [], env: { HUB_API_KEY: key } },
      ];
      const auditedByOps = () => query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM audit_log WHERE actor = 'ops'")[0]?.n ?? 0;
      for (const way of ways) {
        const before = auditedByOps();
        const proc = Bun.spawn([binary, ...base, ...way.args], { cwd: dir.path, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...way.env }, stdout: "pipe", stderr: "pipe" });
        // What every local user can read of the running command, once it has started.
        let commandLine = "";
        for (let tries = 0; tries < 200 && !commandLine.includes("simulate"); tries++) {
          commandLine = readFileSync(`/proc/${proc.pid}/cmdline`, "utf8");
          await Bun.sleep(5);
        }
        const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        expect(commandLine).toContain("simulate");
        expect(commandLine).not.toContain(key);
        expect({ way: way.args.join(" ") || Object.keys(way.env).join(), exitCode, stderr }).toEqual({ way: way.args.join(" ") || Object.keys(way.env).join(), exitCode: 0, stderr: "" });
        expect(stdout).toContain("playing 1 agents");
        expect(stdout).not.toContain(key);
        // The agents were made or renewed through the admin API, as the key's owner.
        expect(auditedByOps()).toBeGreaterThan(before);
      }
      const wrong = await runCli([...base, "--api-key-file", join(dir.path, "missing.key")], { cmd: [binary] });
      expect(wrong.exitCode).not.toBe(0);
      expect(wrong.stderr).toContain("missing.key");
      const both = await runCli(base, { cmd: [binary], env: { HUB_API_KEY: key, HUB_API_KEY_FILE: keyFile } });
      expect(both.exitCode).toBe(1);
      expect(both.stderr).not.toContain(key);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("bad command lines are refused with one line", async () => {
    const cases: [string[], string][] = [
      [["simulate"], "hub simulate --hub URL"],
      [["simulate", "--hub", "ftp://x", "--agents", "2"], "--hub"],
      [["simulate", "--hub", "http://127.0.0.1:1", "--agents", "0"], "--agents"],
      [["simulate", "--hub", "http://127.0.0.1:1", "--agents", "2", "--speed", "fast"], "--speed"],
      [["simulate", "--backfill-days", "0"], "--backfill-days"],
      [["simulate", "--backfill-days", "2", "--hub", "http://127.0.0.1:1"], "--hub"],
    ];
    for (const [args, mention] of cases) {
      const run = await runCli([...args, "--db", join(dir.path, "bad.db")]);
      expect({ args, exitCode: run.exitCode }).toEqual({ args, exitCode: 1 });
      expect(run.stderr).toContain(mention);
      expect(run.stderr.trim().split("\n").length).toBe(1);
    }
  });

  test("backfill: days of history for every platform and region; refused beside a running hub; pruned to retention at start-up", async () => {
    const db = join(dir.path, "backfill.db");
    const run = await runCli(["simulate", "--db", db, "--backfill-days", "3"]);
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/wrote [\d,]+ readings in [\d.]+ s/);
    const [slots] = query<{ n: number }>(db, "SELECT COUNT(DISTINCT platform || region) AS n FROM readings");
    expect(slots?.n).toBe(PAIRS);
    const [total] = query<{ n: number; first: number; last: number }>(db, "SELECT COUNT(*) AS n, MIN(measured_at) AS first, MAX(measured_at) AS last FROM readings");
    expect(total?.n).toBeGreaterThan(PAIRS * 3 * 1440 * 0.9);
    expect(total?.n).toBeLessThanOrEqual(PAIRS * 3 * 1440);
    expect((total?.last ?? 0) - (total?.first ?? 0)).toBeGreaterThan(2 * 86_400_000);

    const hub = await startHub({ args: ["--db", db, "--retention-days", "2"] });
    try {
      const refused = await runCli(["simulate", "--db", db, "--backfill-days", "1"]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain("another hub is already serving");

      let oldest = 0;
      for (let i = 0; i < 200; i++) {
        oldest = query<{ first: number }>(db, "SELECT MIN(measured_at) AS first FROM readings")[0]?.first ?? 0;
        if (oldest >= Date.now() - 2 * 86_400_000 - 60_000) break;
        await Bun.sleep(50);
      }
      expect(oldest).toBeGreaterThanOrEqual(Date.now() - 2 * 86_400_000 - 60_000);
      const to = Date.now();
      const from = to - 86_400_000 + 30_000;
      const history = (await (await fetch(`${hub.url}/api/v1/platforms/GRDK/regions/ap-northeast-1/history?from=${from}&to=${to}`)).json()) as { resolution: string; points: unknown[] };
      const [stored] = query<{ n: number }>(db, `SELECT COUNT(*) AS n FROM readings WHERE platform = 'GRDK' AND region = 'ap-northeast-1' AND measured_at BETWEEN ${from} AND ${to}`);
      expect(history.resolution).toBe("raw");
      expect(history.points.length).toBe(stored?.n ?? -1);
      expect(history.points.length).toBeGreaterThan(0);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });
});
