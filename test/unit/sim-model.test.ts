import { describe, expect, test } from "bun:test";
import { BUILT_IN_REGIONS, PLATFORMS, regionOf, type Region } from "../../src/domain/catalogue.ts";
import { DAY_MS, HOUR_MS, ZoneClock } from "../../src/domain/timezone.ts";
import { inOutage, LEVELS, levelFor, readingAt, refreshStart, slotModel } from "../../src/sim/model.ts";
import { hashInts, seededRandom } from "../../src/sim/random.ts";
import { nextPollAt, slotOfAgent } from "../../src/sim/live.ts";
import { eachSimulatedReading, simulatedSeries } from "../../src/sim/series.ts";

const START = Date.parse("2026-01-05T00:00:00Z");
const berlin = new ZoneClock("Europe/Berlin");

describe("randomness", () => {
  test("seeded and repeatable", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(first);
    expect(Array.from({ length: 5 }, seededRandom(43))).not.toEqual(first);
    for (const x of first) expect(x >= 0 && x < 1).toBe(true);
    expect(hashInts(1, 2, 3)).toBe(hashInts(1, 2, 3));
    expect(hashInts(1, 2, 3)).not.toBe(hashInts(1, 3, 2));
    expect(hashInts(1_800_000_000_000)).not.toBe(hashInts(1_800_000_000_001));
  });
});

describe("the generator model", () => {
  test("deterministic: the same seed tells the same story, another seed another", () => {
    const model = slotModel(1, "Windows", "eu-central-1");
    const again = slotModel(1, "Windows", "eu-central-1");
    const other = slotModel(2, "Windows", "eu-central-1");
    const sample = (m: typeof model) => Array.from({ length: 200 }, (_, i) => readingAt(m, START + i * 37 * 60_000, berlin));
    expect(sample(again)).toEqual(sample(model));
    expect(sample(other)).not.toEqual(sample(model));
    expect(slotModel(1, "EGS", "eu-central-1")).not.toEqual(model);
  });

  test("levels are quantized to 0–150 in steps of 25, and only the scarce role gets a bonus", () => {
    const model = slotModel(1, "EGS", "ap-south-1");
    const clock = new ZoneClock("Asia/Kolkata");
    const seen = new Set<number>();
    eachSimulatedReading(model, clock, START, START + 28 * DAY_MS, 10 * 60_000, (_, r) => {
      expect((LEVELS as readonly number[]).includes(r.survivor) && (LEVELS as readonly number[]).includes(r.killer)).toBe(true);
      expect(r.survivor === 0 || r.killer === 0).toBe(true);
      expect(r.ratio > 0 && Number.isFinite(r.ratio)).toBe(true);
      // ratio is killers per survivor: a killer bonus means few killers, a survivor bonus many.
      if (r.killer > 0) expect(r.ratio).toBeLessThan(1);
      if (r.survivor > 0) expect(r.ratio).toBeGreaterThan(1);
      seen.add(r.killer - r.survivor);
    });
    expect(seen.size).toBeGreaterThan(5);
    expect(levelFor(0)).toBe(0);
    expect(levelFor(0.25)).toBe(25);
    expect(levelFor(10)).toBe(150);
  });

  test("values hold through each game refresh", () => {
    const model = slotModel(5, "Windows", "us-east-1");
    const clock = new ZoneClock("America/New_York");
    const start = refreshStart(START + 12_345_678);
    expect(readingAt(model, start + 179_999, clock)).toEqual(readingAt(model, start, clock));
  });

  test("a daily rhythm in local time: evenings favour killers, early mornings survivors", () => {
    for (const region of BUILT_IN_REGIONS) {
      const clock = new ZoneClock(region.tz);
      const model = slotModel(1, "Windows", region.id);
      const pressure = { evening: 0, morning: 0 };
      eachSimulatedReading(model, clock, START, START + 56 * DAY_MS, 15 * 60_000, (at, r) => {
        const hour = clock.localHour(at).hour;
        if (hour >= 19 && hour < 23) pressure.evening += r.killer - r.survivor;
        if (hour >= 6 && hour < 10) pressure.morning += r.killer - r.survivor;
      });
      expect({ region: region.id, evening: pressure.evening > pressure.morning }).toEqual({ region: region.id, evening: true });
    }
  });

  test("the rhythm follows local time across daylight saving: the peak stays at the same local hour", () => {
    const model = slotModel(1, "Windows", "eu-central-1");
    const peakUtcHour = (from: number) => {
      const sums = new Array<number>(24).fill(0);
      eachSimulatedReading(model, berlin, from, from + 28 * DAY_MS, 5 * 60_000, (at, r) => {
        const h = new Date(at).getUTCHours();
        sums[h] = (sums[h] ?? 0) + r.killer - r.survivor;
      });
      return sums.indexOf(Math.max(...sums));
    };
    const winter = peakUtcHour(Date.parse("2026-01-05T00:00:00Z"));
    const summer = peakUtcHour(Date.parse("2026-06-01T00:00:00Z"));
    expect(winter - summer).toBe(1);
  });

  test("a weekly rhythm: weekends lean further towards killers", () => {
    let weekend = 0;
    let weekday = 0;
    let weekendN = 0;
    let weekdayN = 0;
    for (const platform of PLATFORMS) {
      const model = slotModel(1, platform, "eu-central-1");
      eachSimulatedReading(model, berlin, START, START + 84 * DAY_MS, 15 * 60_000, (at, r) => {
        const day = berlin.localHour(at).dayOfWeek;
        if (day === 0 || day === 6) {
          weekend += r.killer - r.survivor;
          weekendN++;
        } else if (day >= 1 && day <= 4) {
          weekday += r.killer - r.survivor;
          weekdayN++;
        }
      });
    }
    expect(weekend / weekendN).toBeGreaterThan(weekday / weekdayN + 5);
  });

  test("occasional outages: whole hours, a few percent of the time, and no readings during them", () => {
    const model = slotModel(1, "GRDK", "us-west-2");
    let down = 0;
    const hours = 24 * 365;
    for (let h = 0; h < hours; h++) if (inOutage(model, START + h * HOUR_MS)) down++;
    expect(down / hours).toBeGreaterThan(0.005);
    expect(down / hours).toBeLessThan(0.06);
    expect(inOutage(model, START + 10 * HOUR_MS + 59 * 60_000)).toBe(inOutage(model, START + 10 * HOUR_MS));
    const series = simulatedSeries(model, new ZoneClock("America/Los_Angeles"), START, START + 365 * DAY_MS, 60 * 60_000);
    expect(series.length).toBe(hours - down);
    for (let i = 0; i < series.length; i++) expect(inOutage(model, series.t[i] ?? 0)).toBe(false);
  });
});

describe("playing agents", () => {
  const assignment = { region: "eu-west-1", platform: "Windows", pollMinSeconds: 300, pollMaxSeconds: 400, phaseOffsetSeconds: 100, probeImmediately: false };

  test("the next poll comes at the agent's phase of its period", () => {
    const base = 1_800_000_000_000 - (1_800_000_000_000 % 350_000);
    expect(nextPollAt(assignment, base, null)).toBe(base + 100_000);
    expect(nextPollAt(assignment, base + 100_000, null)).toBe(base + 450_000);
    expect(nextPollAt(assignment, base + 100_001, null)).toBe(base + 450_000);
  });

  test("jitter moves a poll by up to half the window either way", () => {
    const base = 1_800_000_000_000 - (1_800_000_000_000 % 350_000);
    expect(nextPollAt(assignment, base, null, 0)).toBe(base + 50_000);
    expect(nextPollAt(assignment, base, null, 1)).toBe(base + 150_000);
    expect(nextPollAt(assignment, base + 60_000, null, 0)).toBe(base + 60_000);
  });

  test("never sooner than pollMinSeconds after the last post, whatever the jitter, so rule 5 never bites", () => {
    const base = 1_800_000_000_000 - (1_800_000_000_000 % 350_000);
    const moved = { ...assignment, phaseOffsetSeconds: 200 };
    expect(nextPollAt(moved, base + 101_000, base + 100_000)).toBe(base + 550_000);
    const random = seededRandom(11);
    for (let now = base; now < base + 2_000_000; now += 37_000) {
      const jitter = random();
      const next = nextPollAt(moved, now, now - 1000, jitter);
      expect(next - (now - 1000)).toBeGreaterThanOrEqual(300_000);
      expect(next).toBeGreaterThanOrEqual(now);
    }
  });

  test("agents spread over platforms and regions, every pair once before any twice", () => {
    const pairs = PLATFORMS.length * BUILT_IN_REGIONS.length;
    const slots = Array.from({ length: pairs }, (_, n) => slotOfAgent(n, BUILT_IN_REGIONS)).map((s) => `${s.platform}/${s.region.id}`);
    expect(new Set(slots).size).toBe(pairs);
    expect(new Set(slots.slice(0, PLATFORMS.length).map((p) => p.split("/")[0])).size).toBe(PLATFORMS.length);
    expect(new Set(slots.slice(0, BUILT_IN_REGIONS.length).map((p) => p.split("/")[1])).size).toBe(BUILT_IN_REGIONS.length);
  });

  /** n regions of the catalogue's form: the built-in ones first, then made-up ones. */
  const someRegions = (n: number): Region[] =>
    Array.from({ length: n }, (_, i) => BUILT_IN_REGIONS[i] ?? regionOf({ id: `xx-extra-${i + 1}`, name: `Extra ${i + 1}`, tz: "UTC" }));

  test("for any number of regions and agents, every pair is covered as evenly as possible", () => {
    const counts = [1, 2, 3, 4, 5, 6, 15, 16, 17, 18, 30];
    expect(counts).toContain(BUILT_IN_REGIONS.length);
    for (const regionCount of counts) {
      const regions = someRegions(regionCount);
      const pairs = PLATFORMS.length * regionCount;
      for (const agents of [pairs, pairs + 1, 2 * pairs - 1, 3 * pairs + 2]) {
        const per = new Map<string, number>();
        for (let n = 0; n < agents; n++) {
          const { platform, region } = slotOfAgent(n, regions);
          per.set(`${platform}/${region.id}`, (per.get(`${platform}/${region.id}`) ?? 0) + 1);
        }
        const times = [...per.values()];
        const case_ = { regionCount, agents };
        expect({ ...case_, covered: per.size }).toEqual({ ...case_, covered: pairs });
        expect({ ...case_, fewest: Math.min(...times), most: Math.max(...times) }).toEqual({ ...case_, fewest: Math.floor(agents / pairs), most: Math.ceil(agents / pairs) });
        expect({ ...case_, extra: times.filter((t) => t === Math.ceil(agents / pairs)).length }).toEqual({ ...case_, extra: agents % pairs === 0 ? pairs : agents % pairs });
      }
      for (let n = 1; n < 2 * pairs; n++) {
        const [a, b] = [slotOfAgent(n - 1, regions), slotOfAgent(n, regions)];
        expect({ regionCount, n, samePlatform: a.platform === b.platform }).toEqual({ regionCount, n, samePlatform: false });
        if (regionCount > 2) expect({ regionCount, n, sameRegion: a.region.id === b.region.id }).toEqual({ regionCount, n, sameRegion: false });
      }
    }
  });

  test("an empty catalogue is an error, not an endless loop", () => {
    expect(() => slotOfAgent(0, [])).toThrow("no regions");
  });
});
