import { describe, expect, test } from "bun:test";
import { buildForecast, type ForecastPoint } from "../../src/domain/forecast.ts";
import { DAY_MS, HOUR_MS, ZoneClock } from "../../src/domain/timezone.ts";
import { call, expectProblem, json, memoryDb, testHub } from "../helpers.ts";
import { storeReadings, type StoredReading } from "../history-helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const MIN = 60_000;
const NOW = Date.parse("2026-11-21T18:04:05.123Z");
const BASE = "/api/v1/platforms/Windows/regions/eu-west-1";

interface HistoryBody {
  platform: string;
  region: string;
  resolution: "raw" | "bucketed";
  bucketMs: number;
  firstAt: number | null;
  lastAt: number | null;
  points: { t: number; survivor: number; killer: number }[];
}

interface ActivityBody {
  platform: string;
  region: string;
  recent: { t: number; survivor: number; killer: number; ratio: number }[];
  changes: { t: number; survivor: number; killer: number; ratio: number }[];
}

interface ForecastBody {
  platform: string;
  region: string;
  generatedAt: number;
  horizonHours: number;
  confidence: string;
  points: ForecastPoint[];
  past: ForecastPoint[];
  actual: { t: number; survivor: number; killer: number }[];
}

function setup(readings: readonly StoredReading[] = [], env: Record<string, string> = {}) {
  let now = NOW;
  const db = memoryDb();
  storeReadings(db, readings);
  const hub = testHub({ db, now: () => now, env });
  return { hub, db, advance: (ms: number) => (now += ms), now: () => now };
}

async function history(hub: ReturnType<typeof setup>["hub"], query = ""): Promise<HistoryBody> {
  const response = await call(hub, "GET", `${BASE}/history${query}`);
  expect(response.status).toBe(200);
  return await json<HistoryBody>(response);
}

describe("GET …/regions/{region}/history", () => {
  test("an empty region: raw, no points, no extent", async () => {
    const { hub } = setup();
    const response = await call(hub, "GET", `${BASE}/history`);
    expect(response.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=240");
    expect(await response.json()).toEqual({ platform: "Windows", region: "eu-west-1", resolution: "raw", bucketMs: 0, firstAt: null, lastAt: null, points: [] });
  });

  test("unknown platform or region: 404 problem", async () => {
    const { hub } = setup();
    for (const path of ["/api/v1/platforms/PS5/regions/eu-west-1/history", "/api/v1/platforms/Windows/regions/mars-north-1/history"]) {
      const response = await call(hub, "GET", path);
      expect(response.status).toBe(404);
      expectProblem(response);
    }
  });

  test("bad windows are 400 problems naming the parameter", async () => {
    const { hub } = setup();
    const cases: [string, string][] = [
      ["?from=abc", "query.from"],
      ["?to=1.5", "query.to"],
      ["?from=1e3", "query.from"],
      [`?from=${NOW - HOUR_MS}&to=${NOW - HOUR_MS}`, "query.from"],
      [`?from=${NOW + HOUR_MS}`, "query.from"],
      ["?from=&to=5", "query.from"],
    ];
    for (const [query, location] of cases) {
      const response = await call(hub, "GET", `${BASE}/history${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expectProblem(response);
      const body = await json<{ errors: { location: string }[] }>(response);
      expect(body.errors[0]?.location).toBe(location);
    }
  });

  test("the default window is the last 24 h, both ends included", async () => {
    const { hub } = setup([
      { t: NOW - DAY_MS - 1, killer: 25 },
      { t: NOW - DAY_MS, killer: 50 },
      { t: NOW - HOUR_MS, killer: 75 },
      { t: NOW, killer: 100 },
    ]);
    const body = await history(hub);
    expect(body.resolution).toBe("raw");
    expect(body.points).toEqual([
      { t: NOW - DAY_MS, survivor: 0, killer: 50 },
      { t: NOW - HOUR_MS, survivor: 0, killer: 75 },
      { t: NOW, survivor: 0, killer: 100 },
    ]);
    expect(body.firstAt).toBe(NOW - DAY_MS - 1);
    expect(body.lastAt).toBe(NOW);
  });

  test("to is clamped to now; from to the retention window; firstAt and lastAt are the stored extent within retention", async () => {
    const { hub } = setup(
      [
        { t: NOW - 40 * DAY_MS, killer: 25 },
        { t: NOW - 10 * DAY_MS - 1, killer: 50 },
        { t: NOW - 10 * DAY_MS, killer: 75 },
        { t: NOW - MIN, killer: 100 },
        { t: NOW + 30_000, killer: 125 },
        { t: NOW - MIN, killer: 150, region: "eu-west-2" },
      ],
      { DATA_RETENTION_DAYS: "10" },
    );
    const body = await history(hub, `?from=0&to=${NOW + DAY_MS}`);
    expect(body.points.map((p) => p.killer)).toEqual([75, 100]);
    expect(body.firstAt).toBe(NOW - 10 * DAY_MS);
    expect(body.lastAt).toBe(NOW + 30_000);
  });

  test("up to 1500 readings come raw; the 1501st switches to buckets", async () => {
    const readings: StoredReading[] = Array.from({ length: 1500 }, (_, i) => ({ t: NOW - i * 30_000, killer: 25 * (i % 7), survivor: i % 2 }));
    const { hub, db } = setup(readings);
    const raw = await history(hub);
    expect(raw.resolution).toBe("raw");
    expect(raw.bucketMs).toBe(0);
    expect(raw.points.length).toBe(1500);
    expect(raw.points[0]).toEqual({ t: NOW - 1499 * 30_000, survivor: 1499 % 2, killer: 25 * (1499 % 7) });
    expect(raw.points.every((p, i) => i === 0 || p.t > (raw.points[i - 1]?.t ?? 0))).toBe(true);

    storeReadings(db, [{ t: NOW - 1500 * 30_000, killer: 150 }]);
    const bucketed = await history(hub);
    expect(bucketed.resolution).toBe("bucketed");
    expect(bucketed.bucketMs).toBe(MIN);
    // Readings every 30 s: two per minute, the later one wins.
    expect(bucketed.points.length).toBe(751);
    for (const point of bucketed.points) {
      expect(point.t % MIN).toBe(0);
      const last = [...readings, { t: NOW - 1500 * 30_000, killer: 150, survivor: 0 }].filter((r) => r.t >= point.t && r.t < point.t + MIN).sort((a, b) => b.t - a.t)[0];
      expect(point).toEqual({ t: point.t, survivor: last?.survivor ?? -1, killer: last?.killer ?? -1 });
    }
  });

  test("buckets: epoch-aligned, only non-empty ones, each the last reading's values, ties to the later arrival", async () => {
    const hour = Math.floor((NOW - 3 * DAY_MS) / HOUR_MS) * HOUR_MS;
    const filler: StoredReading[] = Array.from({ length: 1600 }, (_, i) => ({ t: hour - 10 * DAY_MS + i * 1000, killer: 25 }));
    const { hub } = setup(
      [
        ...filler,
        { t: hour, killer: 25 },
        { t: hour + 30 * MIN, killer: 50, survivor: 0 },
        { t: hour + HOUR_MS - 1, killer: 75 },
        { t: hour + HOUR_MS, killer: 100 },
        { t: hour + 2 * HOUR_MS + 10 * MIN, killer: 125 },
        { t: hour + 2 * HOUR_MS + 10 * MIN, killer: 150 },
        { t: hour + 5 * HOUR_MS + 1, survivor: 50 },
      ],
      { DATA_RETENTION_DAYS: "60" },
    );
    const body = await history(hub, `?from=${NOW - 40 * DAY_MS}`);
    expect(body.resolution).toBe("bucketed");
    expect(body.bucketMs).toBe(HOUR_MS);
    expect(body.points.slice(-4)).toEqual([
      { t: hour, survivor: 0, killer: 75 },
      { t: hour + HOUR_MS, survivor: 0, killer: 100 },
      { t: hour + 2 * HOUR_MS, survivor: 0, killer: 150 },
      { t: hour + 5 * HOUR_MS, survivor: 50, killer: 0 },
    ]);
    expect(body.points.length).toBe(4 + 1);
    expect(body.points[0]?.t).toBe(Math.floor((hour - 10 * DAY_MS) / HOUR_MS) * HOUR_MS);
  });

  test("the bucket holding `from` starts before it but only counts readings from `from` on", async () => {
    const from = Math.floor(NOW / HOUR_MS) * HOUR_MS - 20 * DAY_MS + 20 * MIN;
    const filler: StoredReading[] = Array.from({ length: 1600 }, (_, i) => ({ t: NOW - DAY_MS + i * 1000 }));
    const { hub } = setup([...filler, { t: from - MIN, killer: 150 }, { t: from, killer: 25 }, { t: from + MIN, killer: 50 }]);
    const body = await history(hub, `?from=${from}`);
    expect(body.bucketMs).toBe(30 * MIN);
    expect(body.points[0]).toEqual({ t: from - 20 * MIN, survivor: 0, killer: 50 });
  });
});

describe("GET …/regions/{region}/activity", () => {
  const T = NOW - HOUR_MS;
  const dataset: StoredReading[] = [
    { t: T - 20 * DAY_MS, survivor: 25, ratio: 0.444 },
    { t: T, killer: 25, ratio: 1.234 },
    { t: T + MIN, killer: 25, ratio: 1.3 },
    { t: T + 2 * MIN, killer: 50, ratio: 1.236 },
    { t: T + 3 * MIN, killer: 50, ratio: 2 },
    { t: T + 4 * MIN, killer: 75, ratio: 2.5 },
    { t: T + 4 * MIN, killer: 50, ratio: 2.25 },
  ];

  test("recent: newest first; changes over everything stored, the first reading counting; equal times by arrival", async () => {
    const { hub } = setup(dataset);
    const response = await call(hub, "GET", `${BASE}/activity`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=30, stale-while-revalidate=120");
    const body = await json<ActivityBody>(response);
    expect(body.platform).toBe("Windows");
    expect(body.region).toBe("eu-west-1");
    expect(body.recent).toEqual([
      { t: T + 4 * MIN, survivor: 0, killer: 50, ratio: 2.25 },
      { t: T + 4 * MIN, survivor: 0, killer: 75, ratio: 2.5 },
      { t: T + 3 * MIN, survivor: 0, killer: 50, ratio: 2 },
      { t: T + 2 * MIN, survivor: 0, killer: 50, ratio: 1.24 },
      { t: T + MIN, survivor: 0, killer: 25, ratio: 1.3 },
      { t: T, survivor: 0, killer: 25, ratio: 1.23 },
      { t: T - 20 * DAY_MS, survivor: 25, killer: 0, ratio: 0.44 },
    ]);
    expect(body.changes).toEqual([
      { t: T + 4 * MIN, survivor: 0, killer: 50, ratio: 2.25 },
      { t: T + 4 * MIN, survivor: 0, killer: 75, ratio: 2.5 },
      { t: T + 2 * MIN, survivor: 0, killer: 50, ratio: 1.24 },
      { t: T, survivor: 0, killer: 25, ratio: 1.23 },
      { t: T - 20 * DAY_MS, survivor: 25, killer: 0, ratio: 0.44 },
    ]);
  });

  test("limit cuts both lists; long runs of equal readings are walked past", async () => {
    const run: StoredReading[] = Array.from({ length: 5000 }, (_, i) => ({ t: T + 10 * MIN + i * 1000, killer: 100 }));
    const { hub } = setup([...dataset, ...run]);
    const body = await json<ActivityBody>(await call(hub, "GET", `${BASE}/activity?limit=3`));
    expect(body.recent.map((r) => r.t)).toEqual([T + 10 * MIN + 4999_000, T + 10 * MIN + 4998_000, T + 10 * MIN + 4997_000]);
    expect(body.changes.map((c) => [c.t, c.killer])).toEqual([
      [T + 10 * MIN, 100],
      [T + 4 * MIN, 50],
      [T + 4 * MIN, 75],
    ]);
    const all = await json<ActivityBody>(await call(hub, "GET", `${BASE}/activity?limit=50`));
    expect(all.recent.length).toBe(50);
    expect(all.changes.length).toBe(6);
  });

  test("an empty region has empty lists; limit outside 1–50 or not an integer is a 400", async () => {
    const { hub } = setup();
    expect(await json(await call(hub, "GET", `${BASE}/activity`))).toEqual({ platform: "Windows", region: "eu-west-1", recent: [], changes: [] });
    for (const limit of ["0", "51", "-1", "2.5", "ten", ""]) {
      const response = await call(hub, "GET", `${BASE}/activity?limit=${limit}`);
      expect({ limit, status: response.status }).toEqual({ limit, status: 400 });
      expectProblem(response);
    }
    expect((await call(hub, "GET", "/api/v1/platforms/Windows/regions/nowhere-east-1/activity")).status).toBe(404);
  });
});

describe("GET …/regions/{region}/forecast", () => {
  test("without readings: low confidence, empty arrays", async () => {
    const { hub } = setup();
    const response = await call(hub, "GET", `${BASE}/forecast`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=1200");
    expect(await response.json()).toEqual({ platform: "Windows", region: "eu-west-1", generatedAt: NOW, horizonHours: 24, confidence: "low", points: [], past: [], actual: [] });
  });

  test("the model on the stored readings, in the region's time zone", async () => {
    const readings: StoredReading[] = [];
    for (let t = NOW - 20 * DAY_MS; t <= NOW; t += 10 * MIN) readings.push({ t, killer: new Date(t).getUTCHours() >= 17 ? 75 : 25, survivor: 0 });
    const { hub } = setup(readings);
    const body = await json<ForecastBody>(await call(hub, "GET", `${BASE}/forecast`));
    expect(body.confidence).toBe("high");
    expect(body.points.length).toBe(24);
    expect(body.points[0]?.t).toBe(Math.ceil(NOW / HOUR_MS) * HOUR_MS);
    expect(body.past.length).toBe(24);
    expect(body.actual.length).toBe(144);
    expect(body.actual.every((a) => a.t > NOW - DAY_MS && a.t <= NOW)).toBe(true);
    const series = { length: readings.length, t: readings.map((r) => r.t), survivor: readings.map((r) => r.survivor ?? 0), killer: readings.map((r) => r.killer ?? 0) };
    const expected = buildForecast(series, NOW, { windowMs: 84 * DAY_MS, clock: new ZoneClock("Europe/Dublin") });
    expect(body).toEqual({ platform: "Windows", region: "eu-west-1", generatedAt: NOW, horizonHours: 24, ...expected });
  });

  test("cached until a new hour begins or a new reading arrives for the region", async () => {
    const { hub, advance, now } = setup([{ t: NOW - 2 * DAY_MS, killer: 50 }]);
    const agent = addAgent(hub, "eu-west-1");
    const other = addAgent(hub, "eu-west-2");
    const get = async () => await json<ForecastBody>(await call(hub, "GET", `${BASE}/forecast`));
    const first = await get();
    expect(first.generatedAt).toBe(NOW);
    advance(MIN);
    expect((await get()).generatedAt).toBe(NOW);
    expect((await post(hub, other, reading("Windows", "eu-west-2", now()))).status).toBe(201);
    expect((await get()).generatedAt).toBe(NOW);
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now(), { killer: 150 }))).status).toBe(201);
    const fresh = await get();
    expect(fresh.generatedAt).toBe(NOW + MIN);
    expect(fresh.points[0]?.killer).toBe(150);
    advance(Math.ceil(NOW / HOUR_MS) * HOUR_MS - now());
    expect((await get()).generatedAt).toBe(NOW + MIN);
    advance(1);
    const nextHour = await get();
    expect(nextHour.generatedAt).toBe(now());
    expect(nextHour.points[0]?.t).toBe(Math.ceil(NOW / HOUR_MS) * HOUR_MS + HOUR_MS);
  });

  test("unknown platform or region: 404", async () => {
    const { hub } = setup();
    expect((await call(hub, "GET", "/api/v1/platforms/Switch/regions/eu-west-1/forecast")).status).toBe(404);
    expect((await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-9/forecast")).status).toBe(404);
  });
});
