import { describe, expect, test } from "bun:test";
import { EVENT_BOUNDS } from "../../src/domain/events.ts";
import { parseIsoTime } from "../../src/domain/iso-time.ts";
import { checkReading, parseReportedEvent, type ReadingContext, type Verdict } from "../../src/domain/readings.ts";
import { readEventReport, SKIP_REASONS } from "../../src/events/report.ts";

const NOW = Date.parse("2026-11-21T18:00:00.000Z");
const CONTEXT: ReadingContext = { region: "eu-west-1", platform: "Windows", now: NOW, pollMinSeconds: 300, pollMaxSeconds: 399, previousAcceptedAt: null, previous: null, secondAfterProbe: false };
const VALID = { region: "eu-west-1", platform: "Windows", survivor: 0, killer: 75, ratio: 2.5, isReal: true, measuredAt: "2026-11-21T17:59:30.000Z" };

function verdict(overrides: Record<string, unknown> = {}, context: Partial<ReadingContext> = {}): Verdict {
  return checkReading({ ...VALID, ...overrides }, { ...CONTEXT, ...context });
}

function refusedBy(v: Verdict): number | null {
  return v.ok ? null : v.refusal.rule;
}

describe("a valid reading", () => {
  test("is accepted with its values", () => {
    const v = verdict({ version: "9.3.0", category: "default", refreshTimeSeconds: 240 });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.reading).toEqual({
      region: "eu-west-1",
      platform: "Windows",
      survivor: 0,
      killer: 75,
      ratio: 2.5,
      measuredAt: Date.parse(VALID.measuredAt),
      version: "9.3.0",
      category: "default",
      refreshTimeSeconds: 240,
      activeEvent: null,
    });
  });
});

describe("rule 1: region and platform equal the assignment", () => {
  test("refused", () => {
    expect(refusedBy(verdict({ region: "eu-west-2" }))).toBe(1);
    expect(refusedBy(verdict({ platform: "EGS" }))).toBe(1);
    expect(refusedBy(verdict({ region: undefined }))).toBe(1);
    expect(refusedBy(checkReading(null, CONTEXT))).toBe(1);
    expect(refusedBy(checkReading([VALID], CONTEXT))).toBe(1);
    const v = verdict({ platform: "windows" });
    expect(v.ok ? "" : v.refusal.detail).toStartWith("Rule 1:");
    expect(v.ok ? "" : v.refusal.location).toBe("body.platform");
  });
  test("accepted", () => expect(verdict().ok).toBe(true));
});

describe("rule 2: isReal is true", () => {
  test("refused", () => {
    for (const isReal of [false, "true", 1, null, undefined]) expect(refusedBy(verdict({ isReal }))).toBe(2);
  });
  test("accepted", () => expect(verdict({ isReal: true }).ok).toBe(true));
});

describe("rule 3: measuredAt is ISO-8601, at most 60 s ahead and 10 min behind", () => {
  test("refused", () => {
    for (const measuredAt of [Date.parse(VALID.measuredAt), "yesterday", "2026-11-21", "2026-11-21T17:59:30", "2026-13-40T99:00:00Z", null]) {
      expect(refusedBy(verdict({ measuredAt }))).toBe(3);
    }
    expect(refusedBy(verdict({ measuredAt: "2026-11-21T18:01:00.001Z" }))).toBe(3);
    expect(refusedBy(verdict({ measuredAt: "2026-11-21T17:49:59.999Z" }))).toBe(3);
  });
  test("accepted at the edges and with offsets", () => {
    expect(verdict({ measuredAt: "2026-11-21T18:01:00.000Z" }).ok).toBe(true);
    expect(verdict({ measuredAt: "2026-11-21T17:50:00.000Z" }).ok).toBe(true);
    expect(verdict({ measuredAt: "2026-11-21T19:00:00+01:00" }).ok).toBe(true);
    expect(verdict({ measuredAt: "2026-11-21T17:59Z" }).ok).toBe(true);
  });
});

describe("rule 4: bonuses are integers 0–1000, ratio finite in (0, 100000]", () => {
  test("refused", () => {
    for (const survivor of [-1, 1001, 1.5, "75", null, Number.NaN]) expect(refusedBy(verdict({ survivor }))).toBe(4);
    for (const killer of [-25, 2000, 0.1, "0", undefined]) expect(refusedBy(verdict({ killer }))).toBe(4);
    for (const ratio of [0, -1, 100000.5, Number.POSITIVE_INFINITY, "2", null]) expect(refusedBy(verdict({ ratio }))).toBe(4);
  });
  test("accepted at the edges", () => {
    expect(verdict({ survivor: 0, killer: 1000 }).ok).toBe(true);
    expect(verdict({ survivor: 1000, killer: 0, ratio: 100000 }).ok).toBe(true);
    expect(verdict({ ratio: 0.0001 }).ok).toBe(true);
  });
});

describe("rule 5: at least 0.8 × pollMinSeconds since the previous accepted reading", () => {
  test("refused with 429 and Retry-After in whole seconds", () => {
    const v = verdict({}, { previousAcceptedAt: NOW - 100_000 });
    expect(refusedBy(v)).toBe(5);
    if (v.ok) return;
    expect(v.refusal.status).toBe(429);
    expect(v.refusal.retryAfterSeconds).toBe(140);
    const almost = verdict({}, { previousAcceptedAt: NOW - 239_999 });
    expect(almost.ok ? 0 : almost.refusal.retryAfterSeconds).toBe(1);
  });
  test("accepted once the spacing has passed, or with no previous reading", () => {
    expect(verdict({}, { previousAcceptedAt: NOW - 240_000 }).ok).toBe(true);
    expect(verdict({}, { previousAcceptedAt: null }).ok).toBe(true);
    expect(verdict({}, { previousAcceptedAt: NOW - 400_000, pollMinSeconds: 600 }).ok).toBe(false);
  });
  test("the second reading after a probe is exempt, however soon it comes", () => {
    expect(verdict({}, { previousAcceptedAt: NOW - 207_000, secondAfterProbe: true }).ok).toBe(true);
    expect(verdict({}, { previousAcceptedAt: NOW, secondAfterProbe: true }).ok).toBe(true);
  });
  test("without the probe exception the same reading is refused", () => {
    expect(refusedBy(verdict({}, { previousAcceptedAt: NOW - 207_000, secondAfterProbe: false }))).toBe(5);
  });
  test("never asks for a longer wait than the cadence maximum, and ignores an arrival stamped by a clock that has since gone back", () => {
    const slow = verdict({}, { previousAcceptedAt: NOW - 1000, pollMinSeconds: 3600, pollMaxSeconds: 900 });
    expect(slow.ok ? 0 : slow.refusal.retryAfterSeconds).toBe(900);
    expect(verdict({}, { previousAcceptedAt: NOW + 86_400_000 }).ok).toBe(true);
    const edge = verdict({}, { previousAcceptedAt: NOW + 60_000 });
    expect(edge.ok ? 0 : edge.refusal.retryAfterSeconds).toBe(300);
  });
  test("a reading that repeats the previous one is a retry: not refused by rule 5, and marked duplicate", () => {
    const previous = { measuredAt: Date.parse(VALID.measuredAt), survivor: VALID.survivor, killer: VALID.killer, ratio: VALID.ratio };
    const retry = verdict({}, { previousAcceptedAt: NOW - 1000, previous });
    expect(retry.ok && retry.duplicate).toBe(true);
    for (const change of [{ killer: 76 }, { survivor: 1 }, { ratio: 2.6 }, { measuredAt: "2026-11-21T17:59:31.000Z" }]) {
      expect(refusedBy(verdict(change, { previousAcceptedAt: NOW - 1000, previous }))).toBe(5);
    }
    const fresh = verdict({}, { previousAcceptedAt: null, previous: null });
    expect(fresh.ok && !fresh.duplicate).toBe(true);
    expect(refusedBy(verdict({ survivor: -1 }, { previousAcceptedAt: NOW - 1000, previous }))).toBe(4);
  });
  test("the exception lifts only rule 5", () => {
    expect(refusedBy(verdict({ survivor: -1 }, { previousAcceptedAt: NOW, secondAfterProbe: true }))).toBe(4);
    expect(refusedBy(verdict({ version: "v".repeat(99) }, { previousAcceptedAt: NOW, secondAfterProbe: true }))).toBe(6);
  });
});

describe("rule 6: version and category are strings of at most 64; refreshTimeSeconds outside 1–21600 is ignored", () => {
  test("refused", () => {
    expect(refusedBy(verdict({ version: "v".repeat(65) }))).toBe(6);
    expect(refusedBy(verdict({ category: 7 }))).toBe(6);
    expect(refusedBy(verdict({ version: { major: 9 } }))).toBe(6);
  });
  test("accepted, ignoring refresh times out of range", () => {
    const v = verdict({ version: "v".repeat(64), category: null, refreshTimeSeconds: 30_000 });
    expect(v.ok && v.reading.refreshTimeSeconds).toBeNull();
    expect(v.ok && v.reading.version?.length).toBe(64);
    const low = verdict({ refreshTimeSeconds: 0.5 });
    expect(low.ok && low.reading.refreshTimeSeconds).toBeNull();
    const text = verdict({ refreshTimeSeconds: "300" });
    expect(text.ok && text.reading.refreshTimeSeconds).toBeNull();
    const edge = verdict({ refreshTimeSeconds: 21600 });
    expect(edge.ok && edge.reading.refreshTimeSeconds).toBe(21600);
  });
});

describe("rule order: the first rule broken is named", () => {
  test("region beats everything", () => {
    expect(refusedBy(verdict({ region: "x", isReal: false, survivor: "bad", version: "v".repeat(99) }, { previousAcceptedAt: NOW }))).toBe(1);
  });
  test("isReal beats time and values", () => {
    expect(refusedBy(verdict({ isReal: false, measuredAt: "nope", survivor: -1 }))).toBe(2);
  });
  test("time beats values", () => {
    expect(refusedBy(verdict({ measuredAt: "nope", survivor: -1 }))).toBe(3);
  });
  test("values beat the rate", () => {
    expect(refusedBy(verdict({ survivor: -1 }, { previousAcceptedAt: NOW }))).toBe(4);
  });
  test("the rate beats labels", () => {
    expect(refusedBy(verdict({ version: "v".repeat(99) }, { previousAcceptedAt: NOW }))).toBe(5);
  });
});

describe("a reading's activeEvent has a report entry's bounds (SPEC §16.4)", () => {
  const MINUTE = 60_000;
  const DAY = 24 * 60 * MINUTE;
  const iso = (ms: number) => new Date(ms).toISOString();
  const event = (startsAt: number, endsAt: number) => ({ key: "bp", label: "Bloodpoints", multiplier: 2, startsAt: iso(startsAt), endsAt: iso(endsAt) });
  const refusal = (v: Verdict) => (v.ok ? null : { rule: v.refusal.rule, location: v.refusal.location, detail: v.refusal.detail });

  test("the review's ×100 until the year 9999 is refused by rule 6, naming the rule", () => {
    const v = verdict({ activeEvent: { key: "bp", label: "Bloodpoints", multiplier: 100, startsAt: iso(NOW - MINUTE), endsAt: "9999-12-31T00:00:00Z" } });
    expect(refusal(v)).toEqual({
      rule: 6,
      location: "body.activeEvent.endsAt",
      detail: "Rule 6: activeEvent must last 10 minutes to 31 days and start at most 60 days ahead; the event does not last between 10 minutes and 31 days.",
    });
  });

  test("shorter than 10 minutes or longer than 31 days, or starting more than 60 days ahead, is refused; the edges are kept", () => {
    expect(refusal(verdict({ activeEvent: event(NOW, NOW + 10 * MINUTE - 1) }))?.location).toBe("body.activeEvent.endsAt");
    expect(refusal(verdict({ activeEvent: event(NOW, NOW + 31 * DAY + 1) }))?.location).toBe("body.activeEvent.endsAt");
    const ahead = refusal(verdict({ activeEvent: event(NOW + 60 * DAY + 1, NOW + 61 * DAY) }));
    expect(ahead).toEqual({ rule: 6, location: "body.activeEvent.startsAt", detail: expect.stringContaining("the event starts more than 60 days ahead") });
    for (const [start, end] of [
      [NOW, NOW + 10 * MINUTE],
      [NOW - DAY, NOW + 30 * DAY],
      [NOW + 60 * DAY, NOW + 91 * DAY],
    ] as const) {
      const v = verdict({ activeEvent: event(start, end) });
      expect(v.ok && v.reading.activeEvent?.endsAt).toBe(end);
    }
  });

  test("the report's entries are judged by the same bounds", () => {
    const report = readEventReport({ events: [event(NOW, NOW + 10 * MINUTE - 1), event(NOW + 60 * DAY + 1, NOW + 61 * DAY), event(NOW, NOW + DAY)] }, NOW);
    expect(report?.skipped).toEqual([
      { index: 0, reason: "duration" },
      { index: 1, reason: "ahead" },
    ]);
    expect(SKIP_REASONS.duration).toBe(EVENT_BOUNDS.duration);
  });
});

describe("helpers", () => {
  test("ISO times need a date, a time and a zone", () => {
    expect(parseIsoTime("2026-11-21T18:04:05.123Z")).toBe(Date.parse("2026-11-21T18:04:05.123Z"));
    expect(parseIsoTime("2026-11-21T18:04:05+0100")).not.toBeNull();
    expect(parseIsoTime("2026-11-21 18:04:05Z")).toBeNull();
    expect(parseIsoTime(1_800_000_000_000)).toBeNull();
  });

  test("a reported event is kept only when well formed", () => {
    const event = { key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: "2026-11-20T00:00:00Z", endsAt: "2026-11-27T00:00:00Z" };
    expect(parseReportedEvent(event)).toEqual({ key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: Date.parse(event.startsAt), endsAt: Date.parse(event.endsAt) });
    expect(parseReportedEvent({ ...event, multiplier: 0 })).toBeNull();
    expect(parseReportedEvent({ ...event, endsAt: event.startsAt })).toBeNull();
    expect(parseReportedEvent({ ...event, key: "" })).toBeNull();
    expect(parseReportedEvent("double")).toBeNull();
    const v = verdict({ activeEvent: event });
    expect(v.ok && v.reading.activeEvent?.key).toBe("double-bp");
    const bad = verdict({ activeEvent: { key: "x" } });
    expect(bad.ok && bad.reading.activeEvent).toBeNull();
  });
});
