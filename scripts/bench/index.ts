/**
 * Every benchmark, one table: `npm run bench`. Set BENCH_BACKFILL_DAYS to
 * shorten the year-long backfill, BENCH_STREAMS for fewer streams,
 * BENCH_GRIP_STREAMS for fewer streams through Pushpin.
 */
import { availableParallelism } from "node:os";
import { backfillBench } from "./backfill.ts";
import { backupBench } from "./backup.ts";
import { PINNING, printBenchRows, type BenchRow } from "./common.ts";
import { accuracyBench, forecastSpeedBench, printAccuracy } from "./forecast.ts";
import { gripBench } from "./grip.ts";
import { historyBench } from "./history.ts";
import { importFieldBench } from "./import-field.ts";
import { incentivesBench } from "./incentives.ts";
import { ingestBench } from "./ingest.ts";
import { shareBench } from "./share.ts";
import { startupBench } from "./startup.ts";
import { streamsBench } from "./streams.ts";
import { pushBench } from "./push.ts";
import { webhooksBench } from "./webhooks.ts";
import { webBench } from "./web.ts";

const started = performance.now();
console.log(`Bun ${Bun.version} on ${availableParallelism()} cores${PINNING ? " (load tests pin server and client to separate cores)" : ""}; each figure against a baseline measured in the same run.`);
const rows: BenchRow[] = [];
for (const bench of [incentivesBench, streamsBench, gripBench, ingestBench, webhooksBench, pushBench, startupBench, historyBench, forecastSpeedBench, () => backfillBench(Number(process.env.BENCH_BACKFILL_DAYS ?? 365)), backupBench, () => importFieldBench(), shareBench, webBench]) {
  rows.push(...(await bench()));
}
printBenchRows("Budgets (SPEC §15)", rows);
printAccuracy(accuracyBench());
console.log(`\nAll benchmarks took ${((performance.now() - started) / 1000).toFixed(0)} s.`);
