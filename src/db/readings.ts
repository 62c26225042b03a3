/**
 * Reads of stored readings for history, activity and the forecast, and the
 * retention prune. Every query walks the (platform, region, measured_at)
 * index (or measured_at for the prune); none loads a region's readings into
 * JavaScript to find a few of them. Readings with equal measured_at are
 * ordered by id, which is their order of arrival. No read shows a reading
 * measured before the retention window, pruned yet or not.
 */
import type { Database } from "bun:sqlite";
import type { ReadingSeries } from "../domain/forecast.ts";
import type { HubDb } from "./open.ts";

export interface HistoryPoint {
  readonly t: number;
  readonly survivor: number;
  readonly killer: number;
}

export interface ActivityEntry {
  readonly t: number;
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
}

export interface Extent {
  readonly firstAt: number | null;
  readonly lastAt: number | null;
}

interface KeyedRow {
  id: number;
  measured_at: number;
  survivor: number;
  killer: number;
  ratio: number;
}

type Slot = [platform: string, region: string];
/** A slot and the oldest visible measured_at. */
type VisibleSlot = [...Slot, since: number];

const SLOT = "platform = ?1 AND region = ?2";
const VISIBLE = "measured_at >= ?3";
/** Strictly before the reading (?4 = measured_at, ?5 = id) in (measured_at, id) order. */
const BEFORE = "measured_at <= ?4 AND (measured_at < ?4 OR id < ?5)";
const AFTER = "measured_at >= ?4 AND (measured_at > ?4 OR id > ?5)";
const NEWEST_FIRST = "ORDER BY measured_at DESC, id DESC";
const OLDEST_FIRST = "ORDER BY measured_at ASC, id ASC";
const KEYED = "id, measured_at, survivor, killer, ratio";

/**
 * The oldest measured_at a read may show, per database connection. The
 * retention window sets it before the hub answers anything, so what is shown
 * never depends on how far the background prune has come; the prune only
 * reclaims the space. Kept beside the connection rather than in one reader so
 * that every reader of the readings table (the admin's attribution too) is
 * bound by the same window.
 */
const horizons = new WeakMap<Database, () => number>();

/** The oldest measured_at a read of `db` may show (no bound without a retention window). */
export function oldestVisibleReading(db: HubDb): number {
  return horizons.get(db.sqlite)?.() ?? Number.MIN_SAFE_INTEGER;
}

function entry(row: KeyedRow): ActivityEntry {
  return { t: row.measured_at, survivor: row.survivor, killer: row.killer, ratio: Math.round(row.ratio * 100) / 100 };
}

export class ReadingQueries {
  private readonly extentQuery;
  private readonly countQuery;
  private readonly rawQuery;
  private readonly bucketQuery;
  private readonly recentQuery;
  private readonly newestQuery;
  private readonly oldestQuery;
  private readonly differentBeforeQuery;
  private readonly nextAfterQuery;
  private readonly seriesQuery;
  private readonly pruneQuery;

  constructor(private readonly db: HubDb) {
    const q = db.sqlite;
    this.extentQuery = q.query<{ first: number | null; last: number | null }, VisibleSlot>(
      `SELECT (SELECT MIN(measured_at) FROM readings WHERE ${SLOT} AND ${VISIBLE}) AS first, (SELECT MAX(measured_at) FROM readings WHERE ${SLOT} AND ${VISIBLE}) AS last`,
    );
    this.countQuery = q.query<{ n: number }, [...Slot, number, number, number]>(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM readings WHERE ${SLOT} AND measured_at >= ?3 AND measured_at <= ?4 LIMIT ?5)`,
    );
    this.rawQuery = q.query<HistoryPoint, [...Slot, number, number]>(
      `SELECT measured_at AS t, survivor, killer FROM readings WHERE ${SLOT} AND measured_at >= ?3 AND measured_at <= ?4 ${OLDEST_FIRST}`,
    );
    // A loose index scan: from the newest reading of the window, jump to the
    // newest reading before its bucket, and so on. Each step is one index
    // seek, and the reading it lands on is the last of its bucket, so the
    // cost follows the number of buckets, not of readings.
    this.bucketQuery = q.query<HistoryPoint, [...Slot, number, number, number]>(
      `WITH RECURSIVE walk(id) AS (
         SELECT (SELECT id FROM readings WHERE ${SLOT} AND measured_at >= ?3 AND measured_at <= ?4 ${NEWEST_FIRST} LIMIT 1)
         UNION ALL
         SELECT (SELECT n.id FROM readings AS n
                 WHERE n.platform = ?1 AND n.region = ?2 AND n.measured_at >= ?3 AND n.measured_at < r.measured_at - r.measured_at % ?5
                 ORDER BY n.measured_at DESC, n.id DESC LIMIT 1)
         FROM walk JOIN readings AS r ON r.id = walk.id
       )
       SELECT r.measured_at - r.measured_at % ?5 AS t, r.survivor AS survivor, r.killer AS killer
       FROM walk JOIN readings AS r ON r.id = walk.id`,
    );
    this.recentQuery = q.query<KeyedRow, [...VisibleSlot, number]>(`SELECT ${KEYED} FROM readings WHERE ${SLOT} AND ${VISIBLE} ${NEWEST_FIRST} LIMIT ?4`);
    this.newestQuery = q.query<KeyedRow, VisibleSlot>(`SELECT ${KEYED} FROM readings WHERE ${SLOT} AND ${VISIBLE} ${NEWEST_FIRST} LIMIT 1`);
    this.oldestQuery = q.query<KeyedRow, VisibleSlot>(`SELECT ${KEYED} FROM readings WHERE ${SLOT} AND ${VISIBLE} ${OLDEST_FIRST} LIMIT 1`);
    this.differentBeforeQuery = q.query<KeyedRow, [...VisibleSlot, number, number, number, number]>(
      `SELECT ${KEYED} FROM readings WHERE ${SLOT} AND ${VISIBLE} AND ${BEFORE} AND (survivor <> ?6 OR killer <> ?7) ${NEWEST_FIRST} LIMIT 1`,
    );
    this.nextAfterQuery = q.query<KeyedRow, [...VisibleSlot, number, number]>(
      `SELECT ${KEYED} FROM readings WHERE ${SLOT} AND ${VISIBLE} AND ${AFTER} ${OLDEST_FIRST} LIMIT 1`,
    );
    this.seriesQuery = q.query<[number, number, number], [...Slot, number, number]>(
      `SELECT measured_at, survivor, killer FROM readings WHERE ${SLOT} AND measured_at >= ?3 AND measured_at <= ?4 ${OLDEST_FIRST}`,
    );
    this.pruneQuery = q.query<unknown, [number, number]>(
      "DELETE FROM readings WHERE id IN (SELECT id FROM readings WHERE measured_at < ?1 ORDER BY measured_at LIMIT ?2)",
    );
  }

  /** Readings measured before this are not shown (the retention window). */
  oldestVisible(): number {
    return oldestVisibleReading(this.db);
  }

  /** Hides readings measured before `oldestVisible()` from every read of this database connection, from now on. */
  limitTo(oldestVisible: () => number): void {
    horizons.set(this.db.sqlite, oldestVisible);
  }

  /** The first and last visible measured_at of the region, or nulls. */
  extent(platform: string, region: string): Extent {
    const row = this.extentQuery.get(platform, region, this.oldestVisible());
    return { firstAt: row?.first ?? null, lastAt: row?.last ?? null };
  }

  /** How many readings lie in [from, to], counting no further than `cap`. */
  countUpTo(platform: string, region: string, from: number, to: number, cap: number): number {
    return this.countQuery.get(platform, region, Math.max(from, this.oldestVisible()), to, cap)?.n ?? 0;
  }

  /** Every reading in [from, to], oldest first. */
  raw(platform: string, region: string, from: number, to: number): HistoryPoint[] {
    return this.rawQuery.all(platform, region, Math.max(from, this.oldestVisible()), to);
  }

  /** One point per non-empty epoch-aligned bucket of [from, to]: its start and its last reading's values, oldest first. */
  buckets(platform: string, region: string, from: number, to: number, widthMs: number): HistoryPoint[] {
    return this.bucketQuery.all(platform, region, Math.max(from, this.oldestVisible()), to, widthMs).reverse();
  }

  /** The newest `limit` readings, newest first. */
  recent(platform: string, region: string, limit: number): ActivityEntry[] {
    return this.recentQuery.all(platform, region, this.oldestVisible(), limit).map(entry);
  }

  /**
   * The newest `limit` readings whose survivor or killer differs from the
   * reading before them (the first visible reading counts), newest first.
   * Walks backwards a run of equal values at a time: the newest older reading
   * with other values ends the run, and the reading after it starts the run.
   */
  changes(platform: string, region: string, limit: number): ActivityEntry[] {
    const since = this.oldestVisible();
    const found: ActivityEntry[] = [];
    let cursor = this.newestQuery.get(platform, region, since);
    while (cursor && found.length < limit) {
      const different = this.differentBeforeQuery.get(platform, region, since, cursor.measured_at, cursor.id, cursor.survivor, cursor.killer);
      const start = different
        ? this.nextAfterQuery.get(platform, region, since, different.measured_at, different.id)
        : this.oldestQuery.get(platform, region, since);
      if (!start) break;
      found.push(entry(start));
      cursor = different;
    }
    return found;
  }

  /** Readings in [from, to] as parallel arrays, oldest first: the forecast's input. */
  series(platform: string, region: string, from: number, to: number): ReadingSeries {
    const rows = this.seriesQuery.values(platform, region, Math.max(from, this.oldestVisible()), to);
    const n = rows.length;
    const t = new Float64Array(n);
    const survivor = new Int32Array(n);
    const killer = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const row = rows[i];
      if (!row) continue;
      t[i] = Number(row[0]);
      survivor[i] = Number(row[1]);
      killer[i] = Number(row[2]);
    }
    return { length: n, t, survivor, killer };
  }

  /** Deletes up to `batch` of the oldest readings measured before `before`; returns how many went. */
  pruneBatch(before: number, batch: number): number {
    return this.pruneQuery.run(before, batch).changes;
  }
}
