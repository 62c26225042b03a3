/** Hand-built datasets: readings written straight into the database, as stored history. */
import type { HubDb } from "../src/db/open.ts";

export interface StoredReading {
  readonly t: number;
  readonly survivor?: number;
  readonly killer?: number;
  readonly ratio?: number;
  readonly platform?: string;
  readonly region?: string;
  readonly agentId?: number | null;
}

/** Inserts readings in the order given (that is their order of arrival); returns their ids. */
export function storeReadings(db: HubDb, readings: readonly StoredReading[]): number[] {
  const insert = db.sqlite.query<{ id: number }, [string, string, number, number, number, number, number, number | null]>(
    "INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at, agent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
  );
  const ids: number[] = [];
  db.sqlite.transaction(() => {
    for (const r of readings) {
      const row = insert.get(r.platform ?? "Windows", r.region ?? "eu-west-1", r.survivor ?? 0, r.killer ?? 0, r.ratio ?? 1, r.t, r.t, r.agentId ?? null);
      if (row) ids.push(row.id);
    }
  })();
  return ids;
}

export function countReadings(db: HubDb, where = "1 = 1"): number {
  return db.sqlite.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM readings WHERE ${where}`).get()?.n ?? 0;
}
