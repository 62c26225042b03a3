/**
 * Backup beside a busy hub (SPEC §16.2, §25): readings posted at 100 a
 * second while a database of BENCH_BACKUP_DAYS days of history (a year
 * unless told, as the backfill bench makes it) is copied, first by
 * `hub backup FILE`, then by the serving hub's own backup off the machine
 * ("Back up now": snapshot, zstd, AES-256-GCM, upload to a folder target,
 * read back). Reports the posts' latency before and during each, and each
 * one's duration and size; the spec's bound is no request delayed by more
 * than 100 ms.
 */
import { mkdirSync, statSync } from "node:fs";
import { checkLatencies, createBenchAgents, type BenchAgent, fmt, MAIN, percentile, printBenchRows, scratch, startHubProcess, type BenchRow } from "./common.ts";

const DAYS = Number(process.env.BENCH_BACKUP_DAYS ?? 365);
const RATE = 100;
const BASELINE_SECONDS = 5;
const MAX_BACKUP_SECONDS = 600;
const ADMIN = { username: "bench-admin", password: "bench admin password" };



/** Posts RATE readings a second, one agent each, until `until` resolves; returns every latency in ms. */
async function drive(url: string, agents: BenchAgent[], until: Promise<unknown>): Promise<{ latencies: number[]; failed: number }> {
  let done = false;
  void until.then(() => (done = true));
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let failed = 0;
  const started = performance.now();
  let sent = 0;
  while (!done) {
    const due = Math.floor(((performance.now() - started) / 1000) * RATE);
    for (; sent < due; sent++) {
      const agent = agents.pop();
      if (!agent) throw new Error("the bench ran out of agents");
      const at = performance.now();
      inFlight.push(
        fetch(`${url}/api/v1/agent/readings`, {
          method: "POST",
          headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
          body: JSON.stringify({ region: agent.region, platform: agent.platform, survivor: 0, killer: 25, ratio: 1.2, isReal: true, measuredAt: new Date().toISOString() }),
        }).then(
          async (response) => {
            await response.arrayBuffer();
            latencies.push(performance.now() - at);
            if (response.status !== 201) failed++;
          },
          () => {
            failed++;
          },
        ),
      );
    }
    await Bun.sleep(5);
  }
  await Promise.all(inFlight);
  return { latencies, failed };
}

/** Signs the bench's admin in and returns the cookie and CSRF token its admin calls send. */
async function adminHeaders(url: string): Promise<Record<string, string>> {
  const login = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) });
  if (login.status !== 200) throw new Error(`the bench admin could not sign in (${login.status})`);
  const cookie = (login.headers.getSetCookie().find((c) => c.startsWith("hub_session=")) ?? "").split(";")[0] ?? "";
  const session = (await (await fetch(`${url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
  return { cookie, "x-csrf-token": session.csrfToken };
}

interface Overview {
  readonly running: boolean;
  readonly lastError: string | null;
  readonly backups: readonly { readonly name: string; readonly size: number }[];
}

/** Starts the hub's own backup and resolves with what the admin API says once it has ended. */
async function backUpNow(url: string): Promise<Overview> {
  const headers = await adminHeaders(url);
  const started = await fetch(`${url}/api/v1/admin/backups`, { method: "POST", headers });
  if (started.status !== 202) throw new Error(`Back up now answered ${started.status}: ${await started.text()}`);
  for (;;) {
    await Bun.sleep(250);
    const overview = (await (await fetch(`${url}/api/v1/admin/backups`, { headers })).json()) as Overview;
    if (!overview.running) return overview;
  }
}

async function latencyRows(what: string, baseline: { latencies: number[] }, during: { latencies: number[]; failed: number }): Promise<BenchRow[]> {
  await checkLatencies(`posts before and during ${what}`, [...baseline.latencies, ...during.latencies]);
  const p99 = percentile(baseline.latencies, 0.99);
  const worst = Math.max(...during.latencies);
  return [
    { figure: `Post p99 during ${what}`, value: `${fmt(percentile(during.latencies, 0.99))} ms`, budget: "", baseline: `${fmt(p99)} ms before`, ratio: "", ok: null },
    {
      figure: `Slowest post during ${what}`,
      value: `${fmt(worst)} ms`,
      budget: "≤ 100 ms more than p99 before",
      baseline: `${fmt(Math.max(...baseline.latencies))} ms before`,
      ratio: "",
      ok: worst <= p99 + 100 && during.failed === 0,
    },
  ];
}

export async function backupBench(): Promise<BenchRow[]> {
  const dir = scratch("backup");
  try {
    const db = `${dir.path}/hub.db`;
    const target = `${dir.path}/backups`;
    mkdirSync(target);
    const fill = Bun.spawnSync([process.execPath, MAIN, "simulate", "--db", db, "--backfill-days", String(DAYS)], { stdout: "ignore", stderr: "pipe" });
    if (fill.exitCode !== 0) throw new Error(`backfill failed: ${fill.stderr.toString()}`);
    const agents = createBenchAgents(db, RATE * (2 * BASELINE_SECONDS + 2 * MAX_BACKUP_SECONDS + 10), "backup");
    const hub = await startHubProcess(["--db", db, "--retention-days", String(DAYS + 1)], {
      BACKUP_TARGET: target,
      BACKUP_ENCRYPTION_KEY: "bench passphrase for the backups",
      ADMIN_BOOTSTRAP_USER: ADMIN.username,
      ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password,
      MFA_ENFORCED_ROLES: "",
    });
    try {
      const baseline = await drive(hub.url, agents, Bun.sleep(BASELINE_SECONDS * 1000));
      const started = performance.now();
      const backup = Bun.spawn([process.execPath, MAIN, "backup", `${dir.path}/copy.db`, "--db", db], { stdout: "ignore", stderr: "pipe" });
      const during = await drive(hub.url, agents, backup.exited);
      const backupMs = performance.now() - started;
      if ((await backup.exited) !== 0) throw new Error(`backup failed: ${await new Response(backup.stderr).text()}`);
      const size = statSync(`${dir.path}/copy.db`).size;

      const baselineOff = await drive(hub.url, agents, Bun.sleep(BASELINE_SECONDS * 1000));
      const offStarted = performance.now();
      const run = backUpNow(hub.url);
      const offDuring = await drive(hub.url, agents, run);
      const offMs = performance.now() - offStarted;
      const result = await run;
      if (result.lastError !== null || result.backups.length !== 1) throw new Error(`the hub's backup failed: ${result.lastError ?? "nothing listed"}`);
      const offSize = result.backups[0]?.size ?? 0;
      return [
        { figure: `hub backup FILE of ${DAYS} days (${fmt(size / 1e6)} MB)`, value: `${fmt(backupMs / 1000)} s`, budget: "", baseline: "", ratio: "", ok: null },
        ...(await latencyRows("hub backup FILE", baseline, during)),
        {
          figure: `Backup off the machine of ${DAYS} days (zstd, encrypted, uploaded, read back)`,
          value: `${fmt(offMs / 1000)} s, ${fmt(offSize / 1e6)} MB`,
          budget: "",
          baseline: `${fmt(size / 1e6)} MB database`,
          ratio: `${fmt(size / Math.max(1, offSize))}× smaller`,
          ok: null,
        },
        ...(await latencyRows("the backup off the machine", baselineOff, offDuring)),
      ];
    } finally {
      await hub.stop();
    }
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Backup beside a busy hub", await backupBench());
