import { describe, expect, test } from "bun:test";
import { parseIsoTime } from "../../src/domain/iso-time.ts";

describe("parseIsoTime", () => {
  test("reads strict ISO-8601 date-times with a zone", () => {
    expect(parseIsoTime("2026-11-21T18:04:05.123Z")).toBe(Date.UTC(2026, 10, 21, 18, 4, 5, 123));
    expect(parseIsoTime("2026-11-21T18:04Z")).toBe(Date.UTC(2026, 10, 21, 18, 4));
    expect(parseIsoTime("2026-11-21T19:04:05+01:00")).toBe(Date.UTC(2026, 10, 21, 18, 4, 5));
    expect(parseIsoTime("2026-11-21T13:04:05-0500")).toBe(Date.UTC(2026, 10, 21, 18, 4, 5));
    expect(parseIsoTime("2028-02-29T00:00:00Z")).toBe(Date.UTC(2028, 1, 29));
    expect(parseIsoTime("2000-02-29T00:00:00Z")).toBe(Date.UTC(2000, 1, 29));
    expect(parseIsoTime("2026-11-21T18:04:05.123456789Z")).toBe(Date.UTC(2026, 10, 21, 18, 4, 5, 123));
    expect(parseIsoTime("0050-01-01T00:00:00Z")).toBe(new Date("0050-01-01T00:00:00Z").getTime());
  });

  test("refuses impossible dates instead of rolling them over", () => {
    for (const impossible of [
      "2026-02-30T15:00:00Z",
      "2026-02-29T15:00:00Z",
      "1900-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-01-00T00:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-01T23:60:00Z",
      "2026-01-01T23:59:60Z",
      "2026-01-01T00:00:00+24:00",
    ]) {
      expect({ impossible, ms: parseIsoTime(impossible) }).toEqual({ impossible, ms: null });
    }
  });

  test("refuses loose forms and other types", () => {
    for (const loose of ["2026-11-21", "2026-11-21T18:04:05", "21 Nov 2026 18:04 GMT", "1763748000000", "", " 2026-11-21T18:04:05Z"]) {
      expect(parseIsoTime(loose)).toBeNull();
    }
    expect(parseIsoTime(1_763_748_000_000)).toBeNull();
    expect(parseIsoTime(null)).toBeNull();
  });
});
