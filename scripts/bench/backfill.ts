/**
 * `hub simulate --backfill-days 365`: a year of one-minute readings for every
 * platform × region (about 23.6 million rows) written into a new database
 * file. Baseline: the same run's rate of plain single-row INSERTs into an
 * unindexed table of the same shape, the cheapest way SQLite takes rows.
 * Run alone with `bun scripts/bench/backfill.ts [days]`.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Catalogue } from "../../src/domain/catalogue.ts";
import { closeDatabase } from "../../src/db/open.ts";
import { allSlots, backfill } from "../../src/sim/backfill.ts";
import { printBenchRows, ratio, scratch, scratchDb, seconds, type BenchRow } from "./common.ts";

const BUDGET_MS = 60_000;
export const BASELINE_ROWS = 1_000_000;

export function bareInsertMs(dir: string): number {
  const db = new Database(join(dir, "bare.db"), { create: true, strict: true });
  try {
    db.exec("PRAGMA journal_mode = DELETE");
    db.exec(
      "CREATE TABLE readings (id INTEGER PRIMARY KEY, platform TEXT NOT NULL, region TEXT NOT NULL, survivor INTEGER NOT NULL, killer INTEGER NOT NULL, ratio REAL NOT NULL, " +
        "version TEXT, category TEXT, refresh_time_seconds REAL, measured_at INTEGER NOT NULL, received_at INTEGER NOT NULL, agent_id INTEGER, active_event TEXT)",
    );
    const insert = db.prepare(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event) " +
        "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, NULL)",
    );
    const started = performance.now();
    db.exec("BEGIN");
    const t0 = Date.now();
    for (let i = 0; i < BASELINE_ROWS; i++) insert.run("Windows", "eu-west-1", 0, 25 * (i % 7), 1.5, "9.3.0", 180, t0 + i * 60_000, t0 + i * 60_000, 1);
    db.exec("COMMIT");
    return performance.now() - started;
  } finally {
    db.close();
  }
}

export async function backfillBench(days = 365): Promise<BenchRow[]> {
  const dir = scratch("backfill");
  try {
    const baselineMs = bareInsertMs(dir.path);
    const db = scratchDb(dir.path);
    const slots = allSlots(new Catalogue().regions);
    let result;
    try {
      result = backfill(db, { days, end: Date.now(), seed: 1, slots });
    } finally {
      closeDatabase(db);
    }
    const perMillion = (result.ms / result.rows) * 1e6;
    const baselinePerMillion = (baselineMs / BASELINE_ROWS) * 1e6;
    return [
      {
        figure: `Backfill, ${days} days × ${slots.length} platform × region pairs, ${result.rows.toLocaleString("en-US")} rows with indexes`,
        value: `${seconds(result.ms)} (${seconds(perMillion)} per million)`,
        budget: days === 365 ? `< ${seconds(BUDGET_MS)}` : "—",
        baseline: `bare unindexed INSERTs: ${seconds(baselinePerMillion)} per million`,
        ratio: ratio(perMillion, baselinePerMillion),
        ok: days === 365 ? result.ms < BUDGET_MS : null,
      },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Backfill", await backfillBench(Number(process.argv[2] ?? 365)));
