import { describe, expect, test } from "bun:test";
import { effect } from "@preact/signals";
import type { IncentivesPayload, RegionIncentive } from "../../src/web/api/client.ts";
import { boardShape, boardView, freshnessRank, isStaleReading, keepShape, keepUnchanged, parseBoardQuery, totalMultiplier } from "../../src/web/board-model.ts";
import { RegionSignals } from "../../src/web/region-signals.ts";

const T = "2026-11-25T18:00:00.000Z";
function region(id: string, values: Partial<RegionIncentive>): RegionIncentive {
  return { region: id, displayName: id, flag: "", survivor: 0, killer: 0, ratio: 1, isReal: true, stale: false, lastUpdated: T, since: T, ...values };
}

const regions = [
  region("a-old-big", { killer: 75, stale: true }),
  region("b-none", { isReal: false, stale: true, lastUpdated: null, since: null }),
  region("c-fresh-small", { killer: 50 }),
  region("d-fresh-zero", {}),
  region("e-old-small", { survivor: 25, stale: true }),
];

describe("the board's order (SPEC §17.1 freshness ranks)", () => {
  test("by bonus: fresh first, then stale, then no reading, each by bonus", () => {
    const view = boardView(regions, parseBoardQuery("?sort=bonus"), 50);
    expect(view.items.map((r) => r.region)).toEqual(["c-fresh-small", "d-fresh-zero", "a-old-big", "e-old-small", "b-none"]);
  });

  test("by name: the same ranks, each by name", () => {
    const view = boardView(regions, parseBoardQuery(""), 50);
    expect(view.items.map((r) => r.region)).toEqual(["c-fresh-small", "d-fresh-zero", "a-old-big", "e-old-small", "b-none"]);
  });

  test("no reading yet is never stale", () => {
    const none = regions[1];
    if (!none) throw new Error("missing");
    expect(freshnessRank(none)).toBe(2);
    expect(isStaleReading(none)).toBe(false);
    expect(regions.filter(isStaleReading).map((r) => r.region)).toEqual(["a-old-big", "e-old-small"]);
  });
});

describe("the total during an event", () => {
  test("1 + bonus/100 + (multiplier − 1)", () => {
    expect(totalMultiplier(75, 2)).toBe(2.75);
    expect(totalMultiplier(0, 2)).toBe(2);
    expect(totalMultiplier(100, 1.5)).toBe(2.5);
    expect(totalMultiplier(75, null)).toBe(1.75);
  });
});

describe("one pass gives the page and every match", () => {
  test("matching holds every kept region in order across pages; items is the asked page of it", () => {
    const view = boardView(regions, parseBoardQuery("?sort=bonus&page=2"), 2);
    expect(view.matching.map((r) => r.region)).toEqual(["c-fresh-small", "d-fresh-zero", "a-old-big", "e-old-small", "b-none"]);
    expect(view.items.map((r) => r.region)).toEqual(["a-old-big", "e-old-small"]);
    expect(boardView(regions, parseBoardQuery("?show=killer"), 50).matching.map((r) => r.region)).toEqual(["c-fresh-small", "a-old-big"]);
  });

  test("the input array is left in its order", () => {
    const before = regions.map((r) => r.region);
    boardView(regions, parseBoardQuery("?sort=bonus"), 50);
    expect(regions.map((r) => r.region)).toEqual(before);
  });
});

describe("a stream message keeps the objects of regions that did not change", () => {
  test("equal regions become the previous objects, changed or new ones stay the new objects", () => {
    const previous = [region("a", { killer: 25 }), region("b", { survivor: 50 }), region("c", {})];
    const next = [region("a", { killer: 25 }), region("b", { survivor: 75 }), region("d", {})];
    const [a, b, d] = next;
    const kept = keepUnchanged(previous, next);
    expect(kept).toBe(next);
    expect(kept[0]).toBe(previous[0] as RegionIncentive);
    expect(kept[1]).toBe(b as RegionIncentive);
    expect(kept[1]).not.toBe(previous[1] as RegionIncentive);
    expect(kept[2]).toBe(d as RegionIncentive);
    expect(a).not.toBe(previous[0] as RegionIncentive);
  });

  test("any differing field counts as a change, a null included", () => {
    const previous = [region("a", { since: T }), region("b", { ratio: 1 })];
    const next = [region("a", { since: null }), region("b", { ratio: 1.5 })];
    const kept = keepUnchanged(previous, next);
    expect(kept[0]?.since).toBeNull();
    expect(kept[1]?.ratio).toBe(1.5);
  });
});

function payloadOf(list: RegionIncentive[], activeEvent: IncentivesPayload["activeEvent"] = null): IncentivesPayload {
  return { platform: "Windows", status: "ok", statusReason: null, updatedAt: null, version: null, category: null, activeEvent, nextEvent: null, generatedAt: T, regions: list };
}

describe("a stream message renders only what it changed", () => {
  test("values changing in place keep the board's shape; order, pinning, pages and banners make a new one", () => {
    const query = parseBoardQuery("");
    const first = boardShape(payloadOf(regions), query, 50, "c-fresh-small");
    // The viewer's region is pinned first; the rest keep the board's order.
    expect(first.ids).toEqual(["c-fresh-small", "d-fresh-zero", "a-old-big", "e-old-small", "b-none"]);
    const moved = regions.map((r) => (r.region === "d-fresh-zero" ? { ...r, survivor: 100 } : r));
    expect(keepShape(first, boardShape(payloadOf(moved), query, 50, "c-fresh-small"))).toBe(first);
    // Going stale moves a region after the fresh ones: a new order, so a new shape.
    const staled = regions.map((r) => (r.region === "d-fresh-zero" ? { ...r, stale: true } : r));
    expect(keepShape(first, boardShape(payloadOf(staled), query, 50, "c-fresh-small")).ids).toEqual(["c-fresh-small", "a-old-big", "d-fresh-zero", "e-old-small", "b-none"]);
    expect(keepShape(first, boardShape(payloadOf(regions), query, 50, "a-old-big"))).not.toBe(first);
    expect(keepShape(first, boardShape(payloadOf(regions), query, 2, "c-fresh-small"))).not.toBe(first);
    const event = { key: "e", label: "Event", multiplier: 2, startsAt: T, endsAt: T };
    const during = keepShape(first, boardShape(payloadOf(regions, event), query, 50, "c-fresh-small"));
    expect(during).not.toBe(first);
    expect(keepShape(during, boardShape(payloadOf(regions, { ...event }), query, 50, "c-fresh-small"))).toBe(during);
    expect(keepShape(during, boardShape(payloadOf(regions, { ...event, multiplier: 3 }), query, 50, "c-fresh-small"))).not.toBe(during);
    expect(keepShape(first, boardShape({ ...payloadOf(regions), status: "degraded" }, query, 50, "c-fresh-small"))).not.toBe(first);
  });

  test("each region's signal fires only when that region's values changed", () => {
    const signals = new RegionSignals();
    const previous = [region("a", { killer: 25 }), region("b", { survivor: 50 })];
    signals.update(previous);
    const fired: string[] = [];
    const stops = ["a", "b"].map((id) =>
      effect(() => {
        fired.push(`${id}:${signals.get(id)?.value.survivor}`);
      }),
    );
    fired.length = 0;
    signals.update(keepUnchanged(previous, [region("a", { killer: 25 }), region("b", { survivor: 75 })]));
    expect(fired).toEqual(["b:75"]);
    expect(signals.get("c")).toBeUndefined();
    signals.update([region("c", {})]);
    expect(signals.get("c")?.value.region).toBe("c");
    for (const stop of stops) stop();
  });
});
