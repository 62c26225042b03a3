/**
 * Writes simulated history straight into a database file: one reading a
 * minute per (platform, region), for as many days as asked, fast.
 *
 * Speed comes from how SQLite is fed, not from shortcuts in the data: one
 * transaction in rollback-journal mode (pages past the old end of the file
 * need no journal, and an interrupted backfill leaves nothing behind),
 * multi-row INSERTs, and rows written in the order of the (platform,
 * region, measured_at) and (agent_id, measured_at) indexes, so those two only
 * ever grow at their right edge. The index on measured_at alone cannot be fed
 * in order that way: when the new readings outnumber the old it is dropped
 * first and built again at the end in one sorted pass, from its own stored
 * definition, inside the same transaction.
 *
 * Each (platform, region) gets a disabled agent labelled "simulated history"
 * that its readings are attributed to, so simulated data can be told apart
 * and removed with its agent.
 */
import { newAgentToken, sha256Hex } from "../domain/tokens.ts";
import { insertAgent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import { PLATFORMS, PROVIDERS, platformOf, type Platform, type Provider, type Region } from "../domain/catalogue.ts";
import { DAY_MS, ZoneClock } from "../domain/timezone.ts";
import { GAME_REFRESH_SECONDS, SIM_GAME_VERSION, slotModel } from "./model.ts";
import { eachSimulatedReading } from "./series.ts";

export const BACKFILL_STEP_MS = 60_000;
/** Label of the disabled agents that simulated history is attributed to. */
export const HISTORY_AGENT_LABEL = "simulated history";
const ROWS_PER_INSERT = 64;
const VALUES_PER_ROW = 4;
const CACHE_KIB = 512 * 1024;
/** Indexes (migrations/0001_init.sql) that slots written in inIndexOrder() only append to. */
const IN_ORDER_INDEXES = new Set(["readings_slot_time", "readings_agent"]);

/**
 * Slots in the byte order SQLite's index uses for (platform, region). Each
 * slot's history agent is created in this order too, so agent ids rise with
 * it and the (agent_id, measured_at) index also grows at its right edge.
 */
function inIndexOrder(slots: readonly BackfillSlot[]): BackfillSlot[] {
  const key = (slot: BackfillSlot) => `${slot.platform}\u0000${slot.region.id}`;
  return [...slots].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

export interface BackfillSlot {
  readonly platform: Platform;
  readonly region: Region;
}

export interface BackfillOptions {
  readonly days: number;
  /** Readings are written for [end − days, end). */
  readonly end: number;
  readonly seed: number;
  readonly slots: readonly BackfillSlot[];
  readonly stepMs?: number;
  /** The agent a slot's readings are attributed to; by default a disabled "simulated history" agent of the slot. */
  readonly agentFor?: (slot: BackfillSlot) => number;
  /** Called after each slot is written. */
  readonly progress?: (slotsDone: number, rows: number) => void;
}

export interface BackfillResult {
  readonly rows: number;
  readonly slots: number;
  readonly ms: number;
}

export class BackfillError extends Error {
  override readonly name = "BackfillError";
}

/** Every platform × every region of the catalogue, in display order. */
export function allSlots(regions: readonly Region[]): BackfillSlot[] {
  return PLATFORMS.flatMap((platform) => regions.map((region) => ({ platform, region })));
}

export function providerOf(platform: Platform): Provider {
  const provider = PROVIDERS.find((p) => platformOf(p) === platform);
  if (!provider) throw new Error(`no provider for ${platform}`);
  return provider;
}

function historyAgent(db: HubDb, slot: BackfillSlot, now: number): number {
  const existing = db.sqlite
    .query<{ id: number }, [string, string, string]>("SELECT id FROM agents WHERE platform = ? AND region = ? AND label = ? AND enabled = 0 ORDER BY id LIMIT 1")
    .get(slot.platform, slot.region.id, HISTORY_AGENT_LABEL);
  if (existing) return existing.id;
  const agent = insertAgent(
    db.orm,
    { tokenHash: sha256Hex(newAgentToken()), provider: providerOf(slot.platform), region: slot.region.id, label: HISTORY_AGENT_LABEL, source: "manual" },
    now,
  );
  db.sqlite.query("UPDATE agents SET enabled = 0 WHERE id = ?").run(agent.id);
  return agent.id;
}

function insertStatement(db: HubDb, rows: number) {
  const values: string[] = [];
  for (let r = 0; r < rows; r++) {
    const p = 5 + r * VALUES_PER_ROW;
    values.push(`(?1, ?2, ?${p + 1}, ?${p + 2}, ?${p + 3}, ?4, NULL, ?5, ?${p + 4}, ?${p + 4}, ?3, NULL)`);
  }
  return db.sqlite.prepare(
    "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event) " +
      `VALUES ${values.join(", ")}`,
  );
}

/** Sets the journal mode (or only reads it) and returns the mode now in force. */
function journalMode(db: HubDb, mode?: "DELETE" | "WAL"): string {
  const sql = mode ? `PRAGMA journal_mode = ${mode}` : "PRAGMA journal_mode";
  return String(db.sqlite.query<{ journal_mode: string }, []>(sql).get()?.journal_mode ?? "").toLowerCase();
}

export function backfill(db: HubDb, options: BackfillOptions): BackfillResult {
  const started = performance.now();
  const stepMs = options.stepMs ?? BACKFILL_STEP_MS;
  const from = options.end - options.days * DAY_MS;
  const { sqlite } = db;
  const wasWal = journalMode(db) === "wal";
  if (wasWal) {
    let mode: string;
    try {
      mode = journalMode(db, "DELETE");
    } catch {
      mode = "wal";
    }
    if (mode === "wal") throw new BackfillError(`another process has ${db.path} open; stop it (a hub, a backup) and try again`);
  }
  sqlite.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  let rows = 0;
  try {
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const expected = (options.days * DAY_MS * options.slots.length) / stepMs;
      const present = sqlite.query<{ n: number | null }, []>("SELECT MAX(id) AS n FROM readings").get()?.n ?? 0;
      const indexes =
        expected > present
          ? sqlite
              .query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'readings' AND sql IS NOT NULL")
              .all()
              .filter((index) => !IN_ORDER_INDEXES.has(index.name))
          : [];
      for (const index of indexes) sqlite.exec(`DROP INDEX "${index.name}"`);

      const batch = insertStatement(db, ROWS_PER_INSERT);
      const single = insertStatement(db, 1);
      const params: (string | number)[] = new Array<string | number>(5 + ROWS_PER_INSERT * VALUES_PER_ROW);
      const clocks = new Map<string, ZoneClock>();
      inIndexOrder(options.slots).forEach((slot, index) => {
        const agentId = options.agentFor?.(slot) ?? historyAgent(db, slot, options.end);
        const clock = clocks.get(slot.region.tz) ?? new ZoneClock(slot.region.tz);
        clocks.set(slot.region.tz, clock);
        const model = slotModel(options.seed, slot.platform, slot.region.id);
        params[0] = slot.platform;
        params[1] = slot.region.id;
        params[2] = agentId;
        params[3] = SIM_GAME_VERSION;
        params[4] = GAME_REFRESH_SECONDS;
        let filled = 0;
        eachSimulatedReading(model, clock, from, options.end, stepMs, (at, reading) => {
          const p = 5 + filled * VALUES_PER_ROW;
          params[p] = reading.survivor;
          params[p + 1] = reading.killer;
          params[p + 2] = reading.ratio;
          params[p + 3] = at;
          filled++;
          if (filled === ROWS_PER_INSERT) {
            batch.run(...params);
            rows += filled;
            filled = 0;
          }
        });
        for (let r = 0; r < filled; r++) {
          const p = 5 + r * VALUES_PER_ROW;
          single.run(params[0] ?? "", params[1] ?? "", params[2] ?? 0, params[3] ?? "", params[4] ?? 0, params[p] ?? 0, params[p + 1] ?? 0, params[p + 2] ?? 0, params[p + 3] ?? 0);
        }
        rows += filled;
        options.progress?.(index + 1, rows);
      });
      batch.finalize();
      single.finalize();
      for (const index of indexes) sqlite.exec(index.sql);
      sqlite.exec("COMMIT");
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
      throw error;
    }
  } finally {
    if (wasWal) journalMode(db, "WAL");
  }
  return { rows, slots: options.slots.length, ms: performance.now() - started };
}
