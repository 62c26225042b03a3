import { describe, expect, test } from "bun:test";
import {
  buildForecast,
  confidenceOf,
  firstForecastHour,
  forecastAt,
  hourlyValues,
  mostLikely,
  seriesOf,
  summarise,
  weightedPercentile,
  type ActualPoint,
  type LocalClock,
} from "../../src/domain/forecast.ts";
import { seededRandom } from "../../src/sim/random.ts";
import { DAY_MS, HOUR_MS, ZoneClock } from "../../src/domain/timezone.ts";

const MIN = 60_000;
const UTC: LocalClock = { localHourKey: (at) => Math.floor(at / HOUR_MS) };
const WINDOW = 84 * DAY_MS;
/** A Monday, 00:00 UTC. */
const MONDAY = Date.parse("2026-11-16T00:00:00Z");

const dist = (entries: Record<number, number>) => new Map(Object.entries(entries).map(([level, weight]) => [Number(level), weight]));

/** Readings every `stepMs` in [from, to) whose values come from `value(t)`. */
function readings(from: number, to: number, stepMs: number, value: (t: number) => { survivor?: number; killer?: number }): ActualPoint[] {
  const out: ActualPoint[] = [];
  for (let t = from; t < to; t += stepMs) {
    const v = value(t);
    out.push({ t, survivor: v.survivor ?? 0, killer: v.killer ?? 0 });
  }
  return out;
}

describe("weighted distributions", () => {
  test("percentile: the smallest level whose cumulative weight reaches q × total", () => {
    const d = dist({ 50: 2, 0: 1, 25: 1 });
    expect(weightedPercentile(d, 0.25)).toBe(0);
    expect(weightedPercentile(d, 0.5)).toBe(25);
    expect(weightedPercentile(d, 0.51)).toBe(50);
    expect(weightedPercentile(d, 0.75)).toBe(50);
    expect(weightedPercentile(dist({ 0: 0.1, 25: 0.2, 50: 0.3, 75: 0.15, 100: 0.25 }), 0.75)).toBe(75);
  });

  test("the most likely level breaks ties toward the higher level", () => {
    expect(mostLikely(dist({ 75: 1, 25: 1 }))).toBe(75);
    expect(mostLikely(dist({ 25: 1, 75: 1 }))).toBe(75);
    expect(mostLikely(dist({ 0: 3, 150: 1 }))).toBe(0);
  });

  test("the band always holds the value, even when the mode lies outside the quartiles", () => {
    expect(summarise(dist({ 0: 0.2, 25: 0.2, 50: 0.2, 75: 0.15, 150: 0.25 }))).toEqual({ value: 150, lo: 25, hi: 150 });
    expect(summarise(dist({ 0: 0.3, 100: 0.24, 125: 0.23, 150: 0.23 }))).toEqual({ value: 0, lo: 0, hi: 125 });
    const random = seededRandom(7);
    for (let i = 0; i < 500; i++) {
      const d = new Map<number, number>();
      for (let j = 0; j < 1 + Math.floor(random() * 6); j++) d.set(25 * Math.floor(random() * 7), random());
      const { value, lo, hi } = summarise(d);
      expect(lo).toBeLessThanOrEqual(value);
      expect(value).toBeLessThanOrEqual(hi);
      expect(d.has(value) && d.has(lo) && d.has(hi)).toBe(true);
    }
  });
});

describe("hourly values", () => {
  test("each role's most frequent level per hour, ties toward the higher level", () => {
    const series = seriesOf([
      { t: MONDAY, survivor: 0, killer: 25 },
      { t: MONDAY + 10 * MIN, survivor: 25, killer: 50 },
      { t: MONDAY + 20 * MIN, survivor: 25, killer: 50 },
      { t: MONDAY + 30 * MIN, survivor: 0, killer: 25 },
      { t: MONDAY + HOUR_MS, survivor: 0, killer: 100 },
    ]);
    expect(hourlyValues(series, 0, series.length, UTC)).toEqual([
      { key: MONDAY / HOUR_MS, at: MONDAY, survivor: 25, killer: 50 },
      { key: MONDAY / HOUR_MS + 1, at: MONDAY + HOUR_MS, survivor: 0, killer: 100 },
    ]);
  });

  test("a 23-hour local day gives 23 values; a 25-hour day gives 24, the repeated hour merged", () => {
    const berlin = new ZoneClock("Europe/Berlin");
    const spring = seriesOf(readings(Date.parse("2026-03-28T23:00:00Z"), Date.parse("2026-03-29T22:00:00Z"), 10 * MIN, () => ({ killer: 25 })));
    expect(hourlyValues(spring, 0, spring.length, berlin).length).toBe(23);
    const fallFrom = Date.parse("2026-10-24T22:00:00Z");
    const fall = seriesOf(
      readings(fallFrom, Date.parse("2026-10-25T23:00:00Z"), 10 * MIN, (t) => {
        if (t >= Date.parse("2026-10-25T00:00:00Z") && t < Date.parse("2026-10-25T01:00:00Z")) return { killer: 100 };
        if (t >= Date.parse("2026-10-25T01:00:00Z") && t < Date.parse("2026-10-25T01:40:00Z")) return { killer: 50 };
        return { killer: 0 };
      }),
    );
    const values = hourlyValues(fall, 0, fall.length, berlin);
    expect(values.length).toBe(24);
    const twoOClock = values.find((v) => v.key === berlin.localHourKey(Date.parse("2026-10-25T00:30:00Z")));
    expect(twoOClock).toMatchObject({ killer: 100, at: Date.parse("2026-10-25T00:00:00Z") });
  });
});

describe("the model", () => {
  test("no readings in the window, no points", () => {
    expect(forecastAt(seriesOf([]), MONDAY, { windowMs: WINDOW, clock: UTC })).toEqual({ points: [], confidence: "low", hourlyCount: 0, spanMs: 0 });
    const old = seriesOf([{ t: MONDAY - WINDOW - 1, survivor: 0, killer: 50 }]);
    expect(forecastAt(old, MONDAY, { windowMs: WINDOW, clock: UTC }).points).toEqual([]);
  });

  test("24 hourly points from ceil(origin / 1 h) × 1 h", () => {
    const series = seriesOf(readings(MONDAY - DAY_MS, MONDAY, 5 * MIN, () => ({ killer: 50 })));
    const onTheHour = forecastAt(series, MONDAY, { windowMs: WINDOW, clock: UTC }).points;
    expect(onTheHour.length).toBe(24);
    expect(onTheHour[0]?.t).toBe(MONDAY);
    expect(onTheHour[23]?.t).toBe(MONDAY + 23 * HOUR_MS);
    expect(forecastAt(series, MONDAY + 1, { windowMs: WINDOW, clock: UTC }).points[0]?.t).toBe(MONDAY + HOUR_MS);
    expect(firstForecastHour(MONDAY + HOUR_MS - 1)).toBe(MONDAY + HOUR_MS);
  });

  test("day-of-week × hour is used with 3 observations, else weekday-or-weekend × hour", () => {
    // Mondays at 10:00 read 100, every other day 25; nothing else happens, and the latest reading is two days old.
    const value = (t: number) => ({ killer: new Date(t).getUTCDay() === 1 && new Date(t).getUTCHours() === 10 ? 100 : 25 });
    const threeMondays = seriesOf(readings(MONDAY - 21 * DAY_MS, MONDAY - 2 * DAY_MS, 10 * MIN, value));
    const atTen = (series: ReturnType<typeof seriesOf>) => forecastAt(series, MONDAY, { windowMs: WINDOW, clock: UTC }).points[10];
    expect(atTen(threeMondays)).toMatchObject({ t: MONDAY + 10 * HOUR_MS, killer: 100 });
    const twoMondays = seriesOf(readings(MONDAY - 14 * DAY_MS, MONDAY - 2 * DAY_MS, 10 * MIN, value));
    expect(atTen(twoMondays)).toMatchObject({ killer: 25, killerLo: 25, killerHi: 25 });
  });

  test("recent hours outweigh old ones (half-life 10 days)", () => {
    // Weekday 06:00 values: three about 60 days old read 50, two about 5 days old read 100.
    // By count 50 would win; by weight (3 × 2^-6 against 2 × 2^-0.55) 100 does.
    const at = (daysBack: number, killer: number) => ({ t: MONDAY - daysBack * DAY_MS + 6 * HOUR_MS, survivor: 0, killer });
    const series = seriesOf([at(62, 50), at(61, 50), at(60, 50), at(6, 100), at(5, 100)]);
    const point = forecastAt(series, MONDAY, { windowMs: WINDOW, clock: UTC }).points[6];
    expect(point).toMatchObject({ t: MONDAY + 6 * HOUR_MS, killer: 100, killerLo: 100, killerHi: 100 });
  });

  test("persistence of the latest reading fades as exp(−h / 4)", () => {
    // A climatology of 0 everywhere, and the latest reading (at the origin) says 150.
    const series = seriesOf([...readings(MONDAY - 28 * DAY_MS, MONDAY, 30 * MIN, () => ({ killer: 0 })), { t: MONDAY, survivor: 0, killer: 150 }]);
    const points = forecastAt(series, MONDAY, { windowMs: WINDOW, clock: UTC }).points;
    // h = 0: persistence weighs 1.
    expect(points[0]).toMatchObject({ killer: 150, killerLo: 150, killerHi: 150 });
    // h = 2: 0.61 against 0.39.
    expect(points[2]).toMatchObject({ killer: 150, killerLo: 0, killerHi: 150 });
    // h = 3: 0.47 against 0.53; the quartiles straddle both.
    expect(points[3]).toMatchObject({ killer: 0, killerLo: 0, killerHi: 150 });
    // h = 5: 0.29 still reaches past the 75th percentile; h = 6: 0.22 no longer does.
    expect(points[5]).toMatchObject({ killer: 0, killerHi: 150 });
    expect(points[6]).toMatchObject({ killer: 0, killerLo: 0, killerHi: 0 });
  });

  test("by default the latest reading's departure from the usual persists, not its level (SPEC's level persistence on request)", () => {
    // Usually 75 at 18:00, 100 at 19:00 and 50 at 20:00; tonight 18:00 reads 25, 50 under the usual.
    const usual: Record<number, number> = { 18: 75, 19: 100, 20: 50 };
    const origin = MONDAY + 18 * HOUR_MS;
    const series = seriesOf([
      ...readings(MONDAY - 21 * DAY_MS, origin, 10 * MIN, (t) => ({ killer: usual[new Date(t).getUTCHours()] ?? 0 })),
      { t: origin, survivor: 0, killer: 25 },
    ]);
    const at = (persistence?: "anomaly" | "level") => forecastAt(series, origin, { windowMs: WINDOW, clock: UTC, persistence }).points;
    expect(at()[1]).toMatchObject({ t: origin + HOUR_MS, killer: 50 });
    expect(at("anomaly")[1]?.killer).toBe(50);
    expect(at("level")[1]).toMatchObject({ t: origin + HOUR_MS, killer: 25 });
    expect(at()[0]?.killer).toBe(25);
    expect(at("level")[0]?.killer).toBe(25);
  });

  test("leak-free: readings after the origin change nothing", () => {
    const random = seededRandom(3);
    const all = readings(MONDAY - 30 * DAY_MS, MONDAY + 2 * DAY_MS, 7 * MIN, () => ({ survivor: 25 * Math.floor(random() * 3), killer: 25 * Math.floor(random() * 7) }));
    const origin = MONDAY + 90 * MIN;
    const known = seriesOf(all.filter((r) => r.t <= origin));
    expect(forecastAt(seriesOf(all), origin, { windowMs: WINDOW, clock: UTC })).toEqual(forecastAt(known, origin, { windowMs: WINDOW, clock: UTC }));
  });

  test("confidence: high with 14 days and 168 hourly values, medium with 4 days, else low", () => {
    expect(confidenceOf(14 * DAY_MS, 168)).toBe("high");
    expect(confidenceOf(14 * DAY_MS, 167)).toBe("medium");
    expect(confidenceOf(14 * DAY_MS - 1, 500)).toBe("medium");
    expect(confidenceOf(4 * DAY_MS, 3)).toBe("medium");
    expect(confidenceOf(4 * DAY_MS - 1, 500)).toBe("low");
    const series = seriesOf(readings(MONDAY - 15 * DAY_MS, MONDAY, HOUR_MS, () => ({ killer: 25 })));
    expect(forecastAt(series, MONDAY, { windowMs: WINDOW, clock: UTC }).confidence).toBe("high");
    expect(forecastAt(series, MONDAY, { windowMs: 5 * DAY_MS, clock: UTC }).confidence).toBe("medium");
  });
});

describe("local time across daylight-saving changes", () => {
  const berlin = new ZoneClock("Europe/Berlin");
  /** Killer 75 during one local hour of every day, 0 otherwise; the latest reading is days old so only the climatology speaks. */
  const history = (localHour: number, until: number) =>
    seriesOf(readings(until - 28 * DAY_MS, until, 10 * MIN, (t) => ({ killer: berlin.localHour(t).hour === localHour ? 75 : 0 })));

  test("the 25-hour day: both UTC hours of local 02:00 get 02:00's forecast", () => {
    const origin = Date.parse("2026-10-24T22:00:00Z");
    const points = forecastAt(history(2, Date.parse("2026-10-22T12:00:00Z")), origin, { windowMs: WINDOW, clock: berlin }).points;
    const high = points.filter((p) => p.killer === 75).map((p) => new Date(p.t).toISOString());
    expect(high).toEqual(["2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z"]);
  });

  test("the 23-hour day: local 03:00 comes an hour early in UTC and 02:00 never comes", () => {
    const origin = Date.parse("2026-03-28T23:00:00Z");
    const atThree = forecastAt(history(3, Date.parse("2026-03-26T12:00:00Z")), origin, { windowMs: WINDOW, clock: berlin }).points;
    expect(atThree.filter((p) => p.killer === 75).map((p) => new Date(p.t).toISOString())).toEqual(["2026-03-29T01:00:00.000Z"]);
    const atTwo = forecastAt(history(2, Date.parse("2026-03-26T12:00:00Z")), origin, { windowMs: WINDOW, clock: berlin }).points;
    expect(atTwo.filter((p) => p.killer === 75)).toEqual([]);
  });
});

describe("the forecast body", () => {
  test("points now, the hindcast made 24 h ago, and the readings of the last 24 h", () => {
    const now = MONDAY + 30 * MIN;
    const all = readings(MONDAY - 10 * DAY_MS, now + 1, 20 * MIN, (t) => ({ killer: new Date(t).getUTCHours() < 12 ? 25 : 50 }));
    const series = seriesOf(all);
    const body = buildForecast(series, now, { windowMs: WINDOW, clock: UTC });
    expect(body.confidence).toBe("medium");
    expect(body.points).toEqual(forecastAt(series, now, { windowMs: WINDOW, clock: UTC }).points);
    const known = seriesOf(all.filter((r) => r.t <= now - DAY_MS));
    expect(body.past).toEqual(forecastAt(known, now - DAY_MS, { windowMs: WINDOW, clock: UTC }).points);
    expect(body.past[0]?.t).toBe(MONDAY - DAY_MS + HOUR_MS);
    expect(body.actual).toEqual(all.filter((r) => r.t > now - DAY_MS && r.t <= now));
    expect(body.actual.length).toBe(72);
  });

  test("with no readings: low confidence and empty arrays", () => {
    expect(buildForecast(seriesOf([]), MONDAY, { windowMs: WINDOW, clock: UTC })).toEqual({ confidence: "low", points: [], past: [], actual: [] });
  });
});
