/**
 * Backup beside a busy hub (SPEC §16.2): readings posted at a steady rate
 * while `hub backup` copies a database of BENCH_BACKUP_DAYS days of history.
 * Reports the posts' latency before and during the copy, and how long the
 * copy took; the spec's bound is no request delayed by more than 100 ms.
 */
import { statSync } from "node:fs";
import { sha256Hex } from "../../src/auth/tokens.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS, PROVIDERS, platformOf } from "../../src/domain/catalogue.ts";
import { checkLatencies, fmt, MAIN, percentile, printBenchRows, scratch, startHubProcess, type BenchRow } from "./common.ts";

const DAYS = Number(process.env.BENCH_BACKUP_DAYS ?? 30);
const RATE = 100;
const BASELINE_SECONDS = 5;
const MAX_BACKUP_SECONDS = 120;

interface Agent {
  readonly token: string;
  readonly region: string;
  readonly platform: string;
}

function createAgents(path: string, count: number): Agent[] {
  const db = openDatabase(path);
  migrate(db);
  const insert = db.sqlite.query("INSERT INTO agents (token_hash, provider, platform, region, source, created_at, updated_at) VALUES (?, ?, ?, ?, 'manual', 0, 0)");
  const agents: Agent[] = [];
  db.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const provider = PROVIDERS[i % PROVIDERS.length] ?? "steam";
      const region = BUILT_IN_REGIONS[Math.floor(i / PROVIDERS.length) % BUILT_IN_REGIONS.length]?.id ?? "eu-west-1";
      const token = `backup-bench-agent-${i}-${crypto.randomUUID()}`;
      insert.run(sha256Hex(token), provider, platformOf(provider), region);
      agents.push({ token, region, platform: platformOf(provider) });
    }
  })();
  db.sqlite.close();
  return agents;
}

/** Posts RATE readings a second, one agent each, until `until` resolves; returns every latency in ms. */
async function drive(url: string, agents: Agent[], until: Promise<unknown>): Promise<{ latencies: number[]; failed: number }> {
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

export async function backupBench(): Promise<BenchRow[]> {
  const dir = scratch("backup");
  try {
    const db = `${dir.path}/hub.db`;
    const fill = Bun.spawnSync([process.execPath, MAIN, "simulate", "--db", db, "--backfill-days", String(DAYS)], { stdout: "ignore", stderr: "pipe" });
    if (fill.exitCode !== 0) throw new Error(`backfill failed: ${fill.stderr.toString()}`);
    const agents = createAgents(db, RATE * (BASELINE_SECONDS + MAX_BACKUP_SECONDS + 5));
    const hub = await startHubProcess(["--db", db, "--retention-days", String(DAYS + 1)]);
    try {
      const baseline = await drive(hub.url, agents, Bun.sleep(BASELINE_SECONDS * 1000));
      const started = performance.now();
      const backup = Bun.spawn([process.execPath, MAIN, "backup", `${dir.path}/copy.db`, "--db", db], { stdout: "ignore", stderr: "pipe" });
      const during = await drive(hub.url, agents, backup.exited);
      const backupMs = performance.now() - started;
      if ((await backup.exited) !== 0) throw new Error(`backup failed: ${await new Response(backup.stderr).text()}`);
      const size = statSync(`${dir.path}/copy.db`).size;
      const p99 = percentile(baseline.latencies, 0.99);
      const worst = Math.max(...during.latencies);
      await checkLatencies("post p99 before and during the backup", [p99, percentile(during.latencies, 0.99)]);
      return [
        { figure: `Backup of ${DAYS} days (${fmt(size / 1e6)} MB)`, value: `${fmt(backupMs / 1000)} s`, budget: "", baseline: "", ratio: "", ok: null },
        { figure: "Post p99 during the backup", value: `${fmt(percentile(during.latencies, 0.99))} ms`, budget: "", baseline: `${fmt(p99)} ms before`, ratio: "", ok: null },
        {
          figure: "Slowest post during the backup",
          value: `${fmt(worst)} ms`,
          budget: "≤ 100 ms more than p99 before",
          baseline: `${fmt(Math.max(...baseline.latencies))} ms before`,
          ratio: "",
          ok: worst <= p99 + 100 && during.failed === 0,
        },
      ];
    } finally {
      await hub.stop();
    }
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Backup beside a busy hub", await backupBench());
