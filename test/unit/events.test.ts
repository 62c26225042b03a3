/** Which Bloodpoint event is in force (SPEC §11.6) and which are coming (SPEC §7 GET /api/v1/events). */
import { describe, expect, test } from "bun:test";
import {
  eventIdentity,
  listEvents,
  nextEventBoundary,
  selectActiveEvent,
  selectNextEvent,
  visibleEvents,
  type ScheduledEvent,
  type SeenEvent,
} from "../../src/domain/events.ts";

const NOW = Date.parse("2026-11-21T18:00:00.000Z");
const at = (h: number) => NOW + h * 3_600_000;
const admin = (id: number, multiplier: number, platforms: string[] | null = null, from = -1, to = 1): ScheduledEvent => ({
  id,
  key: `admin-${id}`,
  label: `Admin ${id}`,
  multiplier,
  startsAt: at(from),
  endsAt: at(to),
  platforms,
  source: "admin",
  agentId: null,
});
const scheduled = (id: number, key: string, multiplier: number, from = -1, to = 1): ScheduledEvent => ({
  id,
  key,
  label: key,
  multiplier,
  startsAt: at(from),
  endsAt: at(to),
  platforms: null,
  source: "agent",
  agentId: 7,
});
const seen = (platform: string, key: string, multiplier: number, from = -1, to = 1): SeenEvent => ({
  platform,
  event: { key, label: key, multiplier, startsAt: at(from), endsAt: at(to) },
});
const visible = (events: ScheduledEvent[], readings: SeenEvent[] = [], hidden: string[] = []) => visibleEvents(events, readings, new Set(hidden));

describe("active event", () => {
  test("none in force: null", () => {
    expect(selectActiveEvent("Windows", NOW, visible([admin(1, 2, null, 1, 2)], [seen("Windows", "r", 2, -3, -2)]))).toBeNull();
  });

  test("the highest multiplier wins, across admin, scheduled and seen events", () => {
    expect(selectActiveEvent("Windows", NOW, visible([admin(1, 1.5)], [seen("Windows", "agent-2x", 2)]))?.key).toBe("agent-2x");
    expect(selectActiveEvent("Windows", NOW, visible([admin(1, 3)], [seen("Windows", "agent-2x", 2)]))?.key).toBe("admin-1");
    expect(selectActiveEvent("EGS", NOW, visible([admin(1, 1.5), scheduled(2, "BPEVENT_Bloodhunt_NAME", 2)]))?.key).toBe("BPEVENT_Bloodhunt_NAME");
  });

  test("an admin event wins a tie, then the earliest end", () => {
    expect(selectActiveEvent("Windows", NOW, visible([admin(1, 2, null, -1, 5), scheduled(2, "agent-2x", 2, -1, 1)]))?.key).toBe("admin-1");
    expect(selectActiveEvent("Windows", NOW, visible([scheduled(1, "late", 2, -2, 5), scheduled(2, "soon", 2, -1, 1)]))?.key).toBe("soon");
  });

  test("admin events apply to their platforms only, seen events to their reading's platform", () => {
    expect(selectActiveEvent("Windows", NOW, visible([admin(1, 2, ["EGS"])]))).toBeNull();
    expect(selectActiveEvent("EGS", NOW, visible([admin(1, 2, ["EGS"])]))?.key).toBe("admin-1");
    expect(selectActiveEvent("GRDK", NOW, visible([], [seen("EGS", "r", 2)]))).toBeNull();
  });

  test("a hidden agent event is left out wherever it was reported; an admin event is never hidden by an agent event's identity", () => {
    const event = scheduled(2, "BPEVENT_Bloodhunt_NAME", 2);
    const hidden = [eventIdentity(event)];
    expect(selectActiveEvent("Windows", NOW, visible([event], [seen("Windows", "BPEVENT_Bloodhunt_NAME", 2)], hidden))).toBeNull();
    expect(selectActiveEvent("Windows", NOW, visible([event], [seen("Windows", "BPEVENT_Bloodhunt_NAME", 2, -2, 1)], hidden))?.key).toBe("BPEVENT_Bloodhunt_NAME");
    expect(selectActiveEvent("Windows", NOW, visible([{ ...admin(1, 2), key: event.key, startsAt: event.startsAt }], [], hidden))?.key).toBe(event.key);
  });

  test("the window is [startsAt, endsAt) and times are ISO strings", () => {
    const event = admin(1, 2, null, 0, 1);
    expect(selectActiveEvent("Windows", NOW, visible([event]))).toEqual({ key: "admin-1", label: "Admin 1", multiplier: 2, startsAt: "2026-11-21T18:00:00.000Z", endsAt: "2026-11-21T19:00:00.000Z" });
    expect(selectActiveEvent("Windows", at(1), visible([event]))).toBeNull();
  });

  test("the next boundary is the earliest future start or end of an event for the platform", () => {
    expect(nextEventBoundary("Windows", NOW, visible([admin(1, 2, null, -1, 3), scheduled(2, "s", 2, 2, 5)]))).toBe(at(2));
    expect(nextEventBoundary("Windows", NOW, visible([admin(1, 2, ["EGS"], -1, 1)], [seen("GRDK", "r", 2, -1, 2)]))).toBeNull();
    expect(nextEventBoundary("Windows", NOW, visible([admin(1, 2, null, -2, -1)]))).toBeNull();
  });
});

describe("the public schedule", () => {
  test("in force first by end, then every one to come by start, however far ahead; ended ones left out", () => {
    const events = [
      scheduled(1, "ends-late", 2, -1, 48),
      scheduled(2, "ends-soon", 2, -5, 2),
      scheduled(3, "next-week", 2, 24 * 7, 24 * 8),
      scheduled(4, "tomorrow", 2, 24, 30),
      scheduled(5, "over", 2, -5, -1),
      scheduled(6, "in-20-days", 2, 24 * 20, 24 * 22),
      admin(7, 3, ["GRDK"], 1, 3),
    ];
    expect(listEvents(NOW, visible(events)).map((e) => e.key)).toEqual(["ends-soon", "ends-late", "admin-7", "tomorrow", "next-week", "in-20-days"]);
    expect(listEvents(NOW, visible([scheduled(1, "ends-now", 2, -1, 0)]))).toEqual([]);
  });

  test("an agent event reported in readings and the schedule is listed once, with the union of its platforms", () => {
    const listed = listEvents(NOW, visible([], [seen("GRDK", "bh", 2), seen("Windows", "bh", 2), seen("GRDK", "bh", 2)]));
    expect(listed).toEqual([{ key: "bh", label: "bh", multiplier: 2, startsAt: new Date(at(-1)).toISOString(), endsAt: new Date(at(1)).toISOString(), platforms: ["Windows", "GRDK"], source: "agent" }]);
    const withSchedule = listEvents(NOW, visible([scheduled(1, "bh", 2)], [seen("EGS", "bh", 2)]));
    expect(withSchedule.map((e) => [e.key, e.platforms, e.source])).toEqual([["bh", null, "agent"]]);
  });

  test("admin events are listed as made, beside an agent event of the same key; hidden ones are left out", () => {
    const listed = listEvents(NOW, visible([{ ...admin(1, 2, ["EGS"]), key: "bh" }, scheduled(2, "bh", 2), scheduled(3, "gone", 2)], [], [eventIdentity(scheduled(3, "gone", 2))]));
    expect(listed.map((e) => [e.key, e.source, e.platforms])).toEqual([
      ["bh", "admin", ["EGS"]],
      ["bh", "agent", null],
    ]);
  });
});

describe("next event (the payload's nextEvent)", () => {
  test("the earliest start after now on the platform, hidden ones and those in force left out; ties as for the active one", () => {
    const events = [admin(1, 2, null, -1, 1), admin(2, 1.5, ["EGS"], 2, 3), scheduled(3, "later", 3, 5, 6), scheduled(4, "hidden", 4, 1, 2)];
    const candidates = visible(events, [], [eventIdentity({ key: "hidden", startsAt: at(1) })]);
    expect(selectNextEvent("Windows", NOW, candidates)).toMatchObject({ key: "later", multiplier: 3, startsAt: new Date(at(5)).toISOString() });
    expect(selectNextEvent("EGS", NOW, candidates)?.key).toBe("admin-2");
    expect(selectNextEvent("GRDK", at(6), candidates)).toBeNull();
    // Two starting together: the higher multiplier, then the admin's.
    expect(selectNextEvent("Windows", NOW, visible([scheduled(5, "agent-2x", 2, 1, 2), admin(6, 2, null, 1, 2)]))?.key).toBe("admin-6");
    expect(selectNextEvent("Windows", NOW, visible([admin(6, 2, null, 1, 2), scheduled(5, "agent-3x", 3, 1, 2)]))?.key).toBe("agent-3x");
  });
});
