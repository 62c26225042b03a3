import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Catalogue } from "../../src/domain/catalogue.ts";
import { DAY_MS, ZoneClock } from "../../src/domain/timezone.ts";
import { closeDatabase, migrate, openDatabase } from "../../src/db/open.ts";
import { allSlots, backfill, BackfillError, HISTORY_AGENT_LABEL } from "../../src/sim/backfill.ts";
import { GAME_REFRESH_SECONDS, inOutage, readingAt, SIM_GAME_VERSION, slotModel } from "../../src/sim/model.ts";
import { call, json, tempDir, testHub } from "../helpers.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const END = Date.parse("2026-11-21T18:00:00.000Z");
const catalogue = new Catalogue();
const slots = allSlots(catalogue.regions).filter((s) => ["eu-west-1", "ap-south-1"].includes(s.region.id) && s.platform !== "GRDK");

/** Closes the file for good: drizzle's statements keep a closed connection alive (and its lock held) until they are collected. */
function close(db: ReturnType<typeof openDatabase>): void {
  closeDatabase(db);
  Bun.gc(true);
}

function indexes(db: ReturnType<typeof openDatabase>) {
  return db.sqlite.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'readings' ORDER BY name").all();
}

describe("backfill", () => {
  const path = join(dir.path, "backfill.db");

  test("writes one reading a minute per slot, as the model says, outages left out, attributed to disabled agents", () => {
    const db = openDatabase(path);
    migrate(db);
    const before = indexes(db);
    const result = backfill(db, { days: 2, end: END, seed: 9, slots });
    expect(result.slots).toBe(4);

    let expected = 0;
    for (const slot of slots) {
      const model = slotModel(9, slot.platform, slot.region.id);
      const clock = new ZoneClock(slot.region.tz);
      let up = 0;
      for (let t = END - 2 * DAY_MS; t < END; t += 60_000) if (!inOutage(model, t)) up++;
      expected += up;
      const stored = db.sqlite
        .query<{ survivor: number; killer: number; ratio: number; measured_at: number; received_at: number; version: string; refresh_time_seconds: number }, [string, string]>(
          "SELECT survivor, killer, ratio, measured_at, received_at, version, refresh_time_seconds FROM readings WHERE platform = ? AND region = ? ORDER BY measured_at",
        )
        .all(slot.platform, slot.region.id);
      expect(stored.length).toBe(up);
      for (const row of stored.filter((_, i) => i % 97 === 0)) {
        expect(row).toEqual({ ...readingAt(model, row.measured_at, clock), measured_at: row.measured_at, received_at: row.measured_at, version: SIM_GAME_VERSION, refresh_time_seconds: GAME_REFRESH_SECONDS });
      }
      expect(stored[0]?.measured_at).toBeGreaterThanOrEqual(END - 2 * DAY_MS);
      expect(stored.at(-1)?.measured_at).toBeLessThan(END);
    }
    expect(result.rows).toBe(expected);

    const agents = db.sqlite.query<{ id: number; enabled: number; label: string; platform: string; region: string; n: number }, []>(
      "SELECT a.id, a.enabled, a.label, a.platform, a.region, (SELECT COUNT(*) FROM readings r WHERE r.agent_id = a.id) AS n FROM agents a ORDER BY a.id",
    ).all();
    expect(agents.length).toBe(4);
    for (const agent of agents) expect(agent).toMatchObject({ enabled: 0, label: HISTORY_AGENT_LABEL });
    expect(agents.reduce((sum, a) => sum + a.n, 0)).toBe(expected);

    expect(indexes(db)).toEqual(before);
    expect(db.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    expect(db.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    close(db);
  });

  test("a second run reuses the agents and keeps the indexes in place while adding to a fuller table", () => {
    const db = openDatabase(path);
    const agentsBefore = db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM agents").get()?.n;
    const rowsBefore = db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
    const result = backfill(db, { days: 1, end: END - 2 * DAY_MS, seed: 9, slots });
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM agents").get()?.n).toBe(agentsBefore ?? -1);
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n).toBe(rowsBefore + result.rows);
    expect(indexes(db).length).toBe(3);
    expect(db.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    close(db);
  });

  test("a hub started on the file serves the history", async () => {
    const db = openDatabase(path);
    const hub = testHub({ db, now: () => END });
    const body = await json<{ resolution: string; points: { t: number; survivor: number; killer: number }[]; firstAt: number; lastAt: number }>(
      await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-1/history?from=0"),
    );
    expect(body.resolution).toBe("bucketed");
    expect(body.firstAt).toBe(END - 3 * DAY_MS);
    expect(body.points.length).toBeGreaterThan(100);
    const forecast = await json<{ confidence: string; points: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/EGS/regions/ap-south-1/forecast"));
    expect(forecast.points.length).toBe(24);
    close(db);
  });

  test("refuses, changing nothing, while another connection has the file open", () => {
    const db = openDatabase(path);
    const other = openDatabase(path);
    other.sqlite.query("SELECT COUNT(*) FROM readings").get();
    const rows = db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n;
    expect(() => backfill(db, { days: 1, end: END, seed: 1, slots })).toThrow(BackfillError);
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n).toBe(rows ?? -1);
    other.sqlite.close();
    close(db);
  });
});
