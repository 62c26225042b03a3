import { describe, expect, test } from "bun:test";
import type { HistoryRangePayload, PatternsPayload, RegionIncentive } from "../../src/web/api/client.ts";
import { bestHours, localCells, withLive } from "../../src/web/region-model.ts";

const body: HistoryRangePayload = { platform: "Windows", region: "eu-west-1", resolution: "raw", bucketMs: 0, firstAt: 1000, lastAt: 2000, points: [{ t: 1000, survivor: 0, killer: 25 }, { t: 2000, survivor: 0, killer: 50 }] };
const live = (t: number, killer: number): RegionIncentive => ({
  region: "eu-west-1", displayName: "EU West", flag: "", survivor: 0, killer, ratio: 0.5, isReal: true, stale: false, lastUpdated: new Date(t).toISOString(), since: null,
});

describe("the region page lives", () => {
  test("a reading newer than the history becomes its right edge; an older one or none changes nothing", () => {
    expect(withLive(body, live(3000, 75)).points.at(-1)).toEqual({ t: 3000, survivor: 0, killer: 75 });
    expect(withLive(body, live(3000, 75)).lastAt).toBe(3000);
    expect(withLive(body, live(2000, 75))).toBe(body);
    expect(withLive(body, null)).toBe(body);
  });
});

describe("when to play", () => {
  const cells = (): PatternsPayload["cells"] =>
    Array.from({ length: 168 }, (_, i) => ({ day: Math.floor(i / 24), hour: i % 24, readings: 10, survivorShare: 0, killerShare: 0, survivorMedian: null, killerMedian: null }));

  test("cells move to the viewer's time zone and the best three hours weigh how often by how much", () => {
    const data = cells();
    const set = (day: number, hour: number, share: number, median: number) => Object.assign(data[day * 24 + hour] ?? {}, { killerShare: share, killerMedian: median });
    set(0, 18, 0.9, 75);
    set(2, 3, 1, 100);
    set(4, 20, 0.5, 75);
    set(5, 9, 0.2, 150);
    const local = localCells(data, "killer");
    expect(local.filter(Boolean)).toHaveLength(168);
    // The unit tests run with TZ unset (UTC) unless told otherwise; the shift follows the process's zone.
    const offsetHours = -new Date(Date.UTC(2026, 0, 5)).getTimezoneOffset() / 60;
    const best = bestHours(local);
    expect(best.map((c) => [c.share, c.median])).toEqual([[1, 100], [0.9, 75], [0.5, 75]]);
    expect(best[0]?.hour).toBe((3 + offsetHours + 24) % 24);
    expect(localCells(data, "survivor").every((c) => c.share === 0)).toBe(true);
  });
});
