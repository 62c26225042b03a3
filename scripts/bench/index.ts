/**
 * Every benchmark, one table: `npm run bench`. Set BENCH_BACKFILL_DAYS to
 * shorten the year-long backfill.
 */
import { availableParallelism } from "node:os";
import { backfillBench } from "./backfill.ts";
import { printBenchRows, type BenchRow } from "./common.ts";
import { accuracyBench, forecastSpeedBench, printAccuracy } from "./forecast.ts";
import { historyBench } from "./history.ts";

const started = performance.now();
console.log(`Bun ${Bun.version} on ${availableParallelism()} cores; each figure against a baseline measured in the same run.`);
const rows: BenchRow[] = [];
for (const bench of [historyBench, forecastSpeedBench, () => backfillBench(Number(process.env.BENCH_BACKFILL_DAYS ?? 365))]) {
  rows.push(...(await bench()));
}
printBenchRows("Budgets (SPEC §15)", rows);
printAccuracy(accuracyBench());
console.log(`\nAll benchmarks took ${((performance.now() - started) / 1000).toFixed(0)} s.`);
