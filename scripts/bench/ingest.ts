/**
 * Ingest: readings posted at a fixed rate by many agents (each may post once
 * per 240 s, so one agent per reading), after a short warm-up, against a bare
 * Bun.serve that only parses and inserts, committing the readings of one
 * turn of its event loop together as the hub does (the baseline), then one
 * commit per reading. Reports whether the hub keeps up with that offered
 * load (a load it is given, not the most it can take), p50/p99
 * latency and readings lost (acknowledged with 201 but not stored). Every
 * commit is synchronous = FULL (SPEC §16.2); a second bare run with NORMAL
 * shows what that costs on this disk. Beside the latency the client sees, the
 * hub's own hub_ingest_duration_seconds over the measured window (from
 * /metrics, warm-up subtracted) shows how much of it is spent inside the hub,
 * and the load average says how busy the shared machine was.
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { RawPoster } from "./raw-post.ts";
import { offeredLoadFigure } from "./report.ts";
import { checkLatencies, createBenchAgents, type BenchAgent, fmt, freePort, percentile, printBenchRows, scratch, startHubProcess, startProcess, type BenchRow } from "./common.ts";

const RATE = Number(process.env.BENCH_INGEST_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 30);
const WARMUP_SECONDS = 5;
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 100);
const TICK_MS = 5;



interface Load {
  readonly sent: number;
  readonly acknowledged: number;
  readonly latencies: number[];
  readonly seconds: number;
  readonly errors: number;
}

/** Open-loop load: RATE requests per second for `seconds`, whatever the server's pace. */
async function drive(client: RawPoster, agents: readonly BenchAgent[], seconds: number): Promise<Load> {
  const latencies: number[] = [];
  let acknowledged = 0;
  let errors = 0;
  let next = 0;
  let outstanding = 0;
  let drained = (): void => {};
  const total = Math.min(agents.length, RATE * seconds);
  const settle = (): void => {
    if (--outstanding === 0) drained();
  };
  const started = performance.now();
  while (next < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; next < due; next++) {
      const agent = agents[next];
      if (!agent) break;
      outstanding++;
      client
        .post(agent.token, JSON.stringify({ region: agent.region, platform: agent.platform, survivor: 0, killer: 25, ratio: 1.2, isReal: true, measuredAt: new Date().toISOString() }))
        .then(
          (answer) => {
            latencies.push(answer.ms);
            if (answer.status === 201) acknowledged++;
            else errors++;
            settle();
          },
          () => {
            errors++;
            settle();
          },
        );
    }
    await Bun.sleep(TICK_MS);
  }
  if (outstanding > 0) await new Promise<void>((resolve) => (drained = resolve));
  return { sent: next, acknowledged, latencies, seconds: (performance.now() - started) / 1000, errors };
}

/**
 * Warms the server up with its own agents, then measures with the rest;
 * `measuring` is called just before the measured run. Both runs share the
 * client's connections, so the measured one does not begin by opening
 * hundreds of them.
 */
async function run(url: string, agents: readonly BenchAgent[], measuring: () => Promise<void> = async () => {}): Promise<{ warmup: Load; measured: Load }> {
  const split = RATE * WARMUP_SECONDS;
  const client = RawPoster.fromUrl(url);
  try {
    const warmup = await drive(client, agents.slice(0, split), WARMUP_SECONDS);
    await measuring();
    const measured = await drive(client, agents.slice(split), SECONDS);
    return { warmup, measured };
  } finally {
    client.close();
  }
}

/** CPU time (user + system, ms) a process's main thread (the hub's request thread) has used, from Linux's /proc. */
function mainThreadCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** The cumulative bucket counts of hub_ingest_duration_seconds, by upper bound in seconds. */
async function ingestHistogram(origin: string, token: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const buckets = new Map<number, number>();
  for (const match of text.matchAll(/^hub_ingest_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)) {
    buckets.set(match[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(match[1]), Number(match[2]));
  }
  return buckets;
}

/** The upper bound (ms) of the bucket holding quantile q of what was observed between two readings of the histogram. */
function bucketQuantile(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, q: number): number {
  const total = (after.get(Number.POSITIVE_INFINITY) ?? 0) - (before.get(Number.POSITIVE_INFINITY) ?? 0);
  for (const [le, count] of [...after].sort(([a], [b]) => a - b)) if (count - (before.get(le) ?? 0) >= q * total) return le * 1000;
  return Number.NaN;
}

async function runBare(path: string, agents: readonly BenchAgent[], synchronous: "FULL" | "NORMAL", commits: "group" | "single"): Promise<{ warmup: Load; measured: Load; cpuMs: number }> {
  const port = await freePort();
  const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-ingest.ts`, path, String(port), synchronous, commits], `http://127.0.0.1:${port}/`);
  try {
    let cpuBefore = 0;
    const result = await run(`http://127.0.0.1:${port}/`, agents, async () => {
      cpuBefore = mainThreadCpuMs(bare.pid);
    });
    return { ...result, cpuMs: mainThreadCpuMs(bare.pid) - cpuBefore };
  } finally {
    await bare.stop();
  }
}

function stored(path: string): number {
  const db = new Database(path, { readonly: true });
  const n = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
  db.close();
  return n;
}

export async function ingestBench(): Promise<BenchRow[]> {
  const dir = scratch("ingest");
  try {
    const hubDb = `${dir.path}/hub.db`;
    const agents = createBenchAgents(hubDb, RATE * (SECONDS + WARMUP_SECONDS), "ingest");
    // The one loopback client stands for tens of thousands of agents, each on its own address in the field, so the per-address cap on requests in progress is lifted.
    const metricsToken = crypto.randomUUID();
    const hub = await startHubProcess(["--db", hubDb, "--max-requests-per-client", "100000", "--metrics-token", metricsToken]);
    const loadBefore = loadavg()[0] ?? Number.NaN;
    let hubRun: { warmup: Load; measured: Load };
    let histogramBefore = new Map<number, number>();
    let histogramAfter: Map<number, number>;
    let cpuBefore = 0;
    let hubCpuMs: number;
    try {
      hubRun = await run(`${hub.url}/api/v1/agent/readings`, agents, async () => {
        histogramBefore = await ingestHistogram(hub.url, metricsToken);
        cpuBefore = mainThreadCpuMs(hub.pid);
      });
      hubCpuMs = mainThreadCpuMs(hub.pid) - cpuBefore;
      histogramAfter = await ingestHistogram(hub.url, metricsToken);
    } finally {
      await hub.stop();
    }
    const loadAfter = loadavg()[0] ?? Number.NaN;
    const lost = hubRun.warmup.acknowledged + hubRun.measured.acknowledged - stored(hubDb);

    const groupRun = await runBare(`${dir.path}/bare-group.db`, agents, "FULL", "group");
    const bareRun = await runBare(`${dir.path}/bare.db`, agents, "FULL", "single");
    const normalRun = await runBare(`${dir.path}/bare-normal.db`, agents, "NORMAL", "single");

    const hubLoad = hubRun.measured;
    const groupLoad = groupRun.measured;
    const bareLoad = bareRun.measured;
    const rate = hubLoad.acknowledged / SECONDS;
    const groupRate = groupLoad.acknowledged / SECONDS;
    const p99 = percentile(hubLoad.latencies, 0.99);
    const groupP99 = percentile(groupLoad.latencies, 0.99);
    const bareP99 = percentile(bareLoad.latencies, 0.99);
    await checkLatencies("ingest latency p50 / p99", [percentile(hubLoad.latencies, 0.5), p99]);
    await checkLatencies("bare insert, group commit, p50 / p99", [percentile(groupLoad.latencies, 0.5), groupP99]);
    await checkLatencies("bare insert, one commit per reading, p50 / p99", [percentile(bareLoad.latencies, 0.5), bareP99]);
    await checkLatencies("bare insert, NORMAL, p50 / p99", [percentile(normalRun.measured.latencies, 0.5), percentile(normalRun.measured.latencies, 0.99)]);
    return [
      {
        figure: offeredLoadFigure(RATE, SECONDS, WARMUP_SECONDS, hubLoad.sent, WEBHOOKS),
        value: `${fmt(rate, 0)}/s acknowledged (${hubLoad.acknowledged} of ${hubLoad.sent})`,
        budget: `keeps up with ${RATE}/s`,
        baseline: `${fmt(groupRate, 0)}/s acknowledged by a bare insert (group commit) at the same offered load`,
        ratio: `${fmt(rate / groupRate, 2)}×`,
        ok: hubLoad.acknowledged === hubLoad.sent && hubLoad.errors === 0 && rate >= RATE * 0.99,
      },
      {
        figure: "Ingest latency p50 / p99",
        value: `${fmt(percentile(hubLoad.latencies, 0.5), 2)} / ${fmt(p99, 2)} ms`,
        budget: "p99 < 20 ms",
        baseline: `${fmt(percentile(groupLoad.latencies, 0.5), 2)} / ${fmt(groupP99, 2)} ms bare insert, group commit, FULL`,
        ratio: `${fmt(p99 / groupP99, 1)}×`,
        ok: p99 < 20,
      },
      {
        figure: "Bare insert, one commit per reading, p50 / p99 with synchronous = FULL (the hub's) vs NORMAL",
        value: `${fmt(percentile(bareLoad.latencies, 0.5), 2)} / ${fmt(bareP99, 2)} ms`,
        budget: "—",
        baseline: `${fmt(percentile(normalRun.measured.latencies, 0.5), 2)} / ${fmt(percentile(normalRun.measured.latencies, 0.99), 2)} ms NORMAL`,
        ratio: `${fmt(bareP99 / percentile(normalRun.measured.latencies, 0.99), 1)}×`,
        ok: null,
      },
      {
        figure: "Inside the hub (hub_ingest_duration_seconds over the measured window: check, store, commit) p50 / p99",
        value: `≤ ${fmt(bucketQuantile(histogramBefore, histogramAfter, 0.5), 1)} / ≤ ${fmt(bucketQuantile(histogramBefore, histogramAfter, 0.99), 1)} ms (bucket bounds)`,
        budget: "—",
        baseline: `${fmt(p99, 2)} ms p99 seen by the client`,
        ratio: "—",
        ok: null,
      },
      {
        figure: "Request thread's CPU time (user + system) per reading over the measured window, and its share of the window",
        value: `${fmt((hubCpuMs * 1000) / hubLoad.sent, 0)} µs (${fmt((hubCpuMs / 1000 / hubLoad.seconds) * 100, 0)} %)`,
        budget: "—",
        baseline: `${fmt((groupRun.cpuMs * 1000) / groupLoad.sent, 0)} µs bare insert, group commit, FULL`,
        ratio: `${fmt(hubCpuMs / groupRun.cpuMs, 1)}×`,
        ok: null,
      },
      { figure: "Load average (1 min) as the hub run began / ended, 2 cores", value: `${fmt(loadBefore, 2)} / ${fmt(loadAfter, 2)}`, budget: "—", baseline: "—", ratio: "—", ok: null },
      { figure: "Readings lost (acknowledged, not stored)", value: String(lost), budget: "0", baseline: "—", ratio: "—", ok: lost === 0 },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Ingest", await ingestBench());
