import { describe, expect, test } from "bun:test";
import { call, expectProblem, json, testHub } from "../helpers.ts";
import { storeReadings, type StoredReading } from "../history-helpers.ts";

// A Wednesday, 18:30 UTC.
const NOW = Date.parse("2026-11-25T18:30:00.000Z");
const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;
const PATH = "/api/v1/platforms/Windows/regions/eu-west-1/patterns";

interface Cell {
  day: number;
  hour: number;
  readings: number;
  survivorShare: number;
  killerShare: number;
  survivorMedian: number | null;
  killerMedian: number | null;
}
interface Patterns {
  platform: string;
  region: string;
  weeks: number;
  firstAt: number | null;
  timeZone: string;
  cells: Cell[];
}

function hub(retentionDays = 31) {
  return testHub({ now: () => NOW, env: { DATA_RETENTION_DAYS: String(retentionDays) } });
}

describe("GET …/regions/{region}/patterns", () => {
  test("168 UTC cells, Monday 00 first: share with a bonus and the median level among them", async () => {
    const h = hub();
    // Wednesday 2026-11-25 14:00–14:59 UTC is day 2, hour 14.
    const wed14 = Date.parse("2026-11-25T14:00:00.000Z");
    const rows: StoredReading[] = [
      { t: wed14 + 1, killer: 50 },
      { t: wed14 + 2, killer: 100 },
      { t: wed14 + 3, killer: 75 },
      { t: wed14 + 4, killer: 25 },
      { t: wed14 + 5, survivor: 25 },
      // Monday 2026-11-23 00:10 UTC: day 0, hour 0.
      { t: Date.parse("2026-11-23T00:10:00.000Z"), survivor: 50 },
      // Another region and another platform count nowhere.
      { t: wed14 + 6, killer: 200, region: "us-east-1" },
      { t: wed14 + 7, killer: 200, platform: "EGS" },
    ];
    storeReadings(h.ctx.db, rows);
    const response = await call(h, "GET", PATH);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=3600, stale-while-revalidate=14400");
    const body = await json<Patterns>(response);
    expect(Object.keys(body).sort()).toEqual(["cells", "firstAt", "platform", "region", "timeZone", "weeks"]);
    // The oldest reading of this slot, not the window's start: the grid covers from there.
    expect(body).toMatchObject({ platform: "Windows", region: "eu-west-1", weeks: 4, firstAt: Date.parse("2026-11-23T00:10:00.000Z"), timeZone: "UTC" });
    expect(body.cells).toHaveLength(168);
    expect(body.cells.map((c) => c.day * 24 + c.hour)).toEqual(Array.from({ length: 168 }, (_, i) => i));
    expect(body.cells[2 * 24 + 14]).toEqual({ day: 2, hour: 14, readings: 5, survivorShare: 0.2, killerShare: 0.8, survivorMedian: 25, killerMedian: 50 });
    expect(body.cells[0]).toEqual({ day: 0, hour: 0, readings: 1, survivorShare: 1, killerShare: 0, survivorMedian: 50, killerMedian: null });
    expect(body.cells[1]).toEqual({ day: 0, hour: 1, readings: 0, survivorShare: 0, killerShare: 0, survivorMedian: null, killerMedian: null });
  });

  test("weeks: default min(8, whole weeks of retention), larger clamped, the window follows it", async () => {
    const h = hub(90);
    storeReadings(h.ctx.db, [{ t: NOW - 3 * WEEK + HOUR, killer: 50 }, { t: NOW - 9 * WEEK, killer: 50 }]);
    const total = (p: Patterns) => p.cells.reduce((n, c) => n + c.readings, 0);
    const byDefault = await json<Patterns>(await call(h, "GET", PATH));
    expect(byDefault.weeks).toBe(8);
    expect(total(byDefault)).toBe(1);
    expect(byDefault.firstAt).toBe(NOW - 3 * WEEK + HOUR);
    const two = await json<Patterns>(await call(h, "GET", `${PATH}?weeks=2`));
    expect([two.weeks, total(two), two.firstAt]).toEqual([2, 0, null]);
    const many = await json<Patterns>(await call(h, "GET", `${PATH}?weeks=52`));
    expect([many.weeks, total(many)]).toEqual([12, 2]);
    expect((await json<Patterns>(await call(hub(10), "GET", `${PATH}?weeks=5`))).weeks).toBe(1);
    expect((await json<Patterns>(await call(hub(3), "GET", PATH))).weeks).toBe(1);
  });

  test("weeks outside 1–52 or not an integer is a 400 naming it; unknown platform or region is a 404", async () => {
    const h = hub();
    for (const weeks of ["0", "53", "-1", "1.5", "abc", "", "8e0"]) {
      const response = await call(h, "GET", `${PATH}?weeks=${weeks}`);
      expect(response.status).toBe(400);
      expectProblem(response);
      expect(((await response.json()) as { errors: { location: string }[] }).errors[0]?.location).toBe("query.weeks");
    }
    for (const path of ["/api/v1/platforms/PS5/regions/eu-west-1/patterns", "/api/v1/platforms/Windows/regions/xx-nowhere-9/patterns"]) {
      const response = await call(h, "GET", path);
      expect(response.status).toBe(404);
      expectProblem(response);
    }
  });
});
