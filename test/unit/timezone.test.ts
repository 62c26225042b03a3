import { describe, expect, test } from "bun:test";
import { dayOfWeekOf, describeLocalHour, HOUR_MS, intlOffsetMs, isWeekend, ZoneClock } from "../../src/domain/timezone.ts";

const at = (iso: string) => Date.parse(iso);

describe("ZoneClock", () => {
  test("offsets follow the zone's rules, half hours included", () => {
    const berlin = new ZoneClock("Europe/Berlin");
    expect(berlin.offsetMs(at("2026-01-15T12:00:00Z"))).toBe(HOUR_MS);
    expect(berlin.offsetMs(at("2026-07-15T12:00:00Z"))).toBe(2 * HOUR_MS);
    expect(new ZoneClock("Asia/Kolkata").offsetMs(at("2026-07-15T12:00:00Z"))).toBe(5.5 * HOUR_MS);
    expect(new ZoneClock("America/Sao_Paulo").offsetMs(at("2026-07-15T12:00:00Z"))).toBe(-3 * HOUR_MS);
  });

  test("spring forward: the local day has 23 hours and no 02:00", () => {
    const berlin = new ZoneClock("Europe/Berlin");
    const hours = new Set<number>();
    for (let t = at("2026-03-28T23:00:00Z"); t < at("2026-03-29T22:00:00Z"); t += HOUR_MS) hours.add(berlin.localHour(t).hour);
    expect(hours.size).toBe(23);
    expect(hours.has(2)).toBe(false);
    expect(berlin.localHour(at("2026-03-29T00:59:59Z")).hour).toBe(1);
    expect(berlin.localHour(at("2026-03-29T01:00:00Z")).hour).toBe(3);
  });

  test("fall back: the local day has 25 hours and 02:00 twice, as one key", () => {
    const berlin = new ZoneClock("Europe/Berlin");
    const keys: number[] = [];
    for (let t = at("2026-10-24T22:00:00Z"); t < at("2026-10-25T23:00:00Z"); t += HOUR_MS) keys.push(berlin.localHourKey(t));
    expect(keys.length).toBe(25);
    expect(new Set(keys).size).toBe(24);
    expect(berlin.localHour(at("2026-10-25T00:30:00Z"))).toEqual(berlin.localHour(at("2026-10-25T01:30:00Z")));
    expect(berlin.localHour(at("2026-10-25T01:30:00Z")).hour).toBe(2);
  });

  test("a transition inside a UTC hour is found to the minute (Lord Howe moves by 30 minutes)", () => {
    const lordHowe = new ZoneClock("Australia/Lord_Howe");
    const before = at("2026-04-04T14:59:00Z");
    const after = at("2026-04-04T15:00:00Z");
    expect(lordHowe.offsetMs(before)).toBe(intlOffsetMs("Australia/Lord_Howe", before));
    expect(lordHowe.offsetMs(after)).toBe(intlOffsetMs("Australia/Lord_Howe", after));
    expect(lordHowe.offsetMs(before) - lordHowe.offsetMs(after)).toBe(30 * 60_000);
  });

  test("days of the week and local hours", () => {
    expect(dayOfWeekOf(0)).toBe(4);
    expect(dayOfWeekOf(-1)).toBe(3);
    expect(isWeekend(0) && isWeekend(6) && !isWeekend(1) && !isWeekend(5)).toBe(true);
    const tokyo = new ZoneClock("Asia/Tokyo");
    expect(tokyo.localHour(at("2026-11-20T15:30:00Z"))).toMatchObject({ dayOfWeek: 6, hour: 0 });
    expect(tokyo.localHourOfDay(at("2026-11-20T15:30:00Z"))).toBe(0.5);
    expect(describeLocalHour(24 * 3 + 5)).toMatchObject({ dayOfWeek: 0, hour: 5 });
  });
});
