/**
 * `hub import-field`: a field hub's database holding a million readings (and
 * its users, agents, passkey and API key) imported into a new database by the
 * CLI, start to finish, process start-up included. Baseline: the same run's
 * rate of plain single-row INSERTs into an unindexed table of the same shape.
 * Run alone with `bun scripts/bench/import-field.ts [readings]`.
 */
import { join } from "node:path";
import { createFieldDb } from "../../test/field-fixture.ts";
import { BASELINE_ROWS, bareInsertMs } from "./backfill.ts";
import { MAIN, printBenchRows, ratio, scratch, seconds, type BenchRow } from "./common.ts";

const BUDGET_MS = 60_000;

export async function importFieldBench(readings = 1_000_000): Promise<BenchRow[]> {
  const dir = scratch("import-field");
  try {
    const baselineMs = bareInsertMs(dir.path);
    const field = await createFieldDb(join(dir.path, "bloodpoint.db"), { readings, origin: "http://localhost" });
    const started = performance.now();
    const proc = Bun.spawn([process.execPath, MAIN, "import-field", "--from", field.path, "--db", join(dir.path, "hub.db")], { stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text(), new Response(proc.stdout).text()]);
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`import-field failed: ${stderr}`);
    const perMillion = (ms / readings) * 1e6;
    const baselinePerMillion = (baselineMs / BASELINE_ROWS) * 1e6;
    return [
      {
        figure: `hub import-field, ${readings.toLocaleString("en-US")} readings with indexes, one transaction`,
        value: `${seconds(ms)} (${seconds(perMillion)} per million)`,
        budget: readings === 1_000_000 ? `< ${seconds(BUDGET_MS)}` : "—",
        baseline: `bare unindexed INSERTs: ${seconds(baselinePerMillion)} per million`,
        ratio: ratio(perMillion, baselinePerMillion),
        ok: readings === 1_000_000 ? ms < BUDGET_MS : null,
      },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Import from the field's hub", await importFieldBench(Number(process.argv[2] ?? 1_000_000)));
