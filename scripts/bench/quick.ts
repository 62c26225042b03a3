/**
 * `BENCH_QUICK=1 npm run bench`: a smoke run with small sizes, to check that
 * every bench and the report still work. Imported first by index.ts, so the
 * sizes are set before any bench reads them; a size given explicitly wins.
 * Its figures are not the budgets' and the report says so.
 */
export const QUICK = process.env.BENCH_QUICK === "1" || process.env.BENCH_QUICK === "true";

const QUICK_SIZES: Readonly<Record<string, string>> = {
  BENCH_STREAMS: "200",
  BENCH_GRIP_STREAMS: "1000",
  BENCH_BACKFILL_DAYS: "2",
  BENCH_BACKUP_DAYS: "1",
  BENCH_INGEST_RATE: "200",
  BENCH_INGEST_SECONDS: "3",
  BENCH_WEBHOOKS: "5",
  BENCH_STARTUP_READINGS: "10000",
  BENCH_WEBHOOK_READINGS: "30",
  BENCH_DISCORD_SECONDS: "3",
};

if (QUICK) for (const [name, value] of Object.entries(QUICK_SIZES)) process.env[name] ??= value;

/** The sizes in force, as the report lists them. */
export function benchSizes(): Record<string, string> {
  return Object.fromEntries(Object.keys(QUICK_SIZES).flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name] ?? ""]])));
}
