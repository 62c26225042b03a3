/**
 * Every benchmark, one table: `npm run bench`. It prints the table and
 * writes docs/performance.md (the latest run) and a line of
 * docs/performance.jsonl (every run), or both into BENCH_OUT when set.
 * BENCH_QUICK=1 runs them with small sizes (scripts/bench/quick.ts);
 * BENCH_ONLY=streams,webhooks runs only those; each size can also be set
 * alone (BENCH_BACKFILL_DAYS, BENCH_STREAMS, BENCH_GRIP_STREAMS, …).
 */
import { benchSizes, QUICK } from "./quick.ts";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { backfillBench } from "./backfill.ts";
import { backupBench } from "./backup.ts";
import { feedsBench } from "./feeds.ts";
import { loopbackRoundTripMs, PINNING, printBenchRows, ROOT, type BenchRow } from "./common.ts";
import { accuracyBench, forecastSpeedBench, printAccuracy, type AccuracyResult } from "./forecast.ts";
import { gripBench } from "./grip.ts";
import { historyBench } from "./history.ts";
import { importFieldBench } from "./import-field.ts";
import { incentivesBench } from "./incentives.ts";
import { ingestBench } from "./ingest.ts";
import { commit, loadAverage, machine, versions, writeReport } from "./report.ts";
import { shareBench } from "./share.ts";
import { startupBench } from "./startup.ts";
import { streamsBench } from "./streams.ts";
import { pushBench } from "./push.ts";
import { webhooksBench } from "./webhooks.ts";
import { webBench } from "./web.ts";

const BENCHES: Readonly<Record<string, () => Promise<BenchRow[]>>> = {
  incentives: incentivesBench,
  streams: streamsBench,
  grip: gripBench,
  ingest: ingestBench,
  webhooks: webhooksBench,
  push: pushBench,
  startup: startupBench,
  history: historyBench,
  forecast: forecastSpeedBench,
  backfill: () => backfillBench(Number(process.env.BENCH_BACKFILL_DAYS ?? 365)),
  backup: backupBench,
  "import-field": () => importFieldBench(),
  share: shareBench,
  feeds: feedsBench,
  web: webBench,
};
const ACCURACY = "accuracy";

const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",").map((name) => name.trim()) : null;
const unknown = (only ?? []).filter((name) => !(name in BENCHES) && name !== ACCURACY);
if (unknown.length > 0) {
  console.error(`bench: unknown BENCH_ONLY ${unknown.join(", ")}; known: ${[...Object.keys(BENCHES), ACCURACY].join(", ")}`);
  process.exit(2);
}

const started = performance.now();
const date = new Date().toISOString();
const loadBefore = loadAverage();
const loopback = await loopbackRoundTripMs();
console.log(`Bun ${Bun.version} on ${availableParallelism()} cores${PINNING ? " (load tests pin server and client to separate cores)" : ""}; each figure against a baseline measured in the same run; one loopback round trip ${loopback.toFixed(3)} ms.${QUICK ? " Smoke run with small sizes (BENCH_QUICK)." : ""}`);
const rows: BenchRow[] = [];
for (const [name, bench] of Object.entries(BENCHES)) {
  if (only && !only.includes(name)) continue;
  rows.push(...(await bench()));
}
printBenchRows("Budgets", rows);
let accuracy: AccuracyResult | null = null;
if (!only || only.includes(ACCURACY)) {
  accuracy = accuracyBench();
  printAccuracy(accuracy);
}
const seconds = (performance.now() - started) / 1000;
const out = process.env.BENCH_OUT ?? join(ROOT, "docs");
writeReport(out, {
  date,
  machine: machine(),
  runtime: Bun.version,
  versions: versions(),
  commit: commit(ROOT),
  loadAverage: { before: loadBefore, after: loadAverage() },
  loopbackRoundTripMs: loopback,
  quick: QUICK,
  only,
  sizes: benchSizes(),
  seconds,
  rows,
  accuracy,
});
console.log(`\nAll benchmarks took ${seconds.toFixed(0)} s; ${join(out, "performance.md")} written.`);
