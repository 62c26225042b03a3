import { describe, expect, test } from "bun:test";
import { BUCKET_WIDTHS_MS, bucketStart, bucketWidthFor, MAX_HISTORY_POINTS, resolveHistoryWindow } from "../../src/domain/history.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const NOW = Date.parse("2026-11-21T18:04:05.123Z");
const RETENTION = 31 * DAY;

function window(from?: string, to?: string) {
  return resolveHistoryWindow({ from, to, now: NOW, retentionMs: RETENTION });
}

describe("bucket widths", () => {
  test("the ladder, narrowest first", () => {
    expect(BUCKET_WIDTHS_MS.map((w) => w / MIN)).toEqual([1, 5, 15, 30, 60, 180, 360, 720, 1440, 10080]);
  });

  test("the narrowest width giving at most 1500 buckets, at the exact boundaries", () => {
    expect(bucketWidthFor(1)).toBe(MIN);
    expect(bucketWidthFor(1500 * MIN)).toBe(MIN);
    expect(bucketWidthFor(1500 * MIN + 1)).toBe(5 * MIN);
    expect(bucketWidthFor(24 * HOUR)).toBe(MIN);
    expect(bucketWidthFor(7 * DAY)).toBe(15 * MIN);
    expect(bucketWidthFor(31 * DAY)).toBe(30 * MIN);
    expect(bucketWidthFor(365 * DAY)).toBe(6 * HOUR);
    expect(bucketWidthFor(1500 * DAY)).toBe(DAY);
    expect(bucketWidthFor(1500 * DAY + 1)).toBe(7 * DAY);
    expect(bucketWidthFor(100_000 * DAY)).toBe(7 * DAY);
    for (const span of [HOUR, 3 * DAY, 90 * DAY, 1000 * DAY]) expect(span / bucketWidthFor(span)).toBeLessThanOrEqual(MAX_HISTORY_POINTS);
  });

  test("buckets are aligned to the epoch", () => {
    expect(bucketStart(NOW, HOUR)).toBe(Date.parse("2026-11-21T18:00:00.000Z"));
    expect(bucketStart(NOW, 7 * DAY) % (7 * DAY)).toBe(0);
    expect(bucketStart(5 * MIN, 5 * MIN)).toBe(5 * MIN);
    expect(bucketStart(5 * MIN - 1, 5 * MIN)).toBe(0);
  });
});

describe("the history window", () => {
  test("defaults: to is now, from is to − 24 h", () => {
    expect(window()).toEqual({ ok: true, from: NOW - DAY, to: NOW });
    expect(window(undefined, String(NOW - HOUR))).toEqual({ ok: true, from: NOW - HOUR - DAY, to: NOW - HOUR });
  });

  test("to is clamped to now before from is defaulted or compared", () => {
    expect(window(undefined, String(NOW + DAY))).toEqual({ ok: true, from: NOW - DAY, to: NOW });
    expect(window(String(NOW + HOUR), String(NOW + DAY))).toMatchObject({ ok: false, location: "query.from" });
  });

  test("from must be before to", () => {
    expect(window(String(NOW - HOUR), String(NOW - HOUR))).toMatchObject({ ok: false, location: "query.from" });
    expect(window(String(NOW), undefined)).toMatchObject({ ok: false, location: "query.from" });
    expect(window(String(NOW - 1), undefined)).toEqual({ ok: true, from: NOW - 1, to: NOW });
  });

  test("the span is clamped to the retention window", () => {
    expect(window("0")).toEqual({ ok: true, from: NOW - RETENTION, to: NOW });
    expect(window(String(NOW - 40 * DAY), String(NOW - 2 * DAY))).toEqual({ ok: true, from: NOW - 2 * DAY - RETENTION, to: NOW - 2 * DAY });
  });

  test("non-integers are refused first of all, whatever else is wrong", () => {
    for (const bad of ["", "1.5", "1e3", "abc", " 12", "+5", "0x10", "NaN", "Infinity", "99999999999999999999"]) {
      expect({ bad, result: window(bad) }).toMatchObject({ bad, result: { ok: false, location: "query.from" } });
      expect({ bad, result: window(String(NOW), bad) }).toMatchObject({ bad, result: { ok: false, location: "query.to" } });
    }
    expect(window("-5", String(NOW))).toMatchObject({ ok: true });
  });
});
