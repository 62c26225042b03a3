import { describe, expect, test } from "bun:test";
import { chooseClosest, clearlyFaster, measurementDue, REMEASURE_MS } from "../../src/web/latency.ts";
import { regionForZone } from "../../src/domain/catalogue.ts";
import { automaticRegion, viewerRegion } from "../../src/web/regions.ts";

describe("time zones the browsers report (SPEC §17.1)", () => {
  test("old IANA links map like their canonical zone", () => {
    const pairs: [string, string][] = [
      ["America/Buenos_Aires", "America/Argentina/Buenos_Aires"],
      ["America/Cordoba", "America/Argentina/Cordoba"],
      ["Asia/Calcutta", "Asia/Kolkata"],
      ["Asia/Saigon", "Asia/Ho_Chi_Minh"],
      ["America/Indianapolis", "America/Indiana/Indianapolis"],
      ["US/Eastern", "America/New_York"],
      ["US/Pacific", "America/Los_Angeles"],
      ["Canada/Eastern", "America/Toronto"],
      ["Australia/ACT", "Australia/Sydney"],
      ["Europe/Kiev", "Europe/Kyiv"],
      ["Hongkong", "Asia/Hong_Kong"],
    ];
    for (const [alias, canonical] of pairs) expect({ alias, region: regionForZone(alias) }).toEqual({ alias, region: regionForZone(canonical) });
    expect(regionForZone("America/Buenos_Aires")).toBe("sa-east-1");
    expect(regionForZone("America/Santiago")).toBe("sa-east-1");
    expect(regionForZone("America/Lima")).toBe("sa-east-1");
    expect(regionForZone("Asia/Calcutta")).toBe("ap-south-1");
    expect(regionForZone("US/Pacific")).toBe("us-west-1");
    // A Mexican zone is not taken for Bahia in Brazil.
    expect(regionForZone("America/Bahia_Banderas")).toBe("us-east-1");
    expect(regionForZone("America/Bahia")).toBe("sa-east-1");
  });

  test("the viewer's own choice wins over the closest region, which wins over the time zone", () => {
    const shown = ["eu-west-1", "eu-west-2", "us-east-1"];
    expect(viewerRegion(shown, "us-east-1", "Europe/Dublin", "eu-west-2")).toBe("us-east-1");
    expect(viewerRegion(shown, null, "Europe/Dublin", "eu-west-2")).toBe("eu-west-2");
    expect(viewerRegion(shown, null, "Europe/Dublin", null)).toBe("eu-west-1");
    expect(viewerRegion(shown, null, "Europe/Dublin", "ap-south-1")).toBe("eu-west-1");
    expect(viewerRegion(shown, null, "Eire", null)).toBe("eu-west-1");
    expect(viewerRegion(shown, null, "Asia/Tokyo", null)).toBeNull();
  });

  test("the automatic choice says whether latency or the time zone decided it", () => {
    const shown = ["eu-west-1", "eu-west-2", "us-east-1"];
    expect(automaticRegion(shown, "Europe/Dublin", "us-east-1")).toEqual({ region: "us-east-1", by: "latency" });
    // A measured region this platform does not show falls back to the time zone, and says so.
    expect(automaticRegion(shown, "Europe/Dublin", "ap-south-1")).toEqual({ region: "eu-west-1", by: "zone" });
    expect(automaticRegion(shown, "Europe/Dublin", null)).toEqual({ region: "eu-west-1", by: "zone" });
    expect(automaticRegion(shown, "Asia/Kolkata", null)).toBeNull();
  });
});

describe("the closest region by latency", () => {
  const NOW = 1_000_000;
  test("clearly faster means 15 % and 10 ms", () => {
    expect(clearlyFaster(80, 100)).toBe(true);
    expect(clearlyFaster(86, 100)).toBe(false);
    expect(clearlyFaster(25, 34)).toBe(false);
    expect(clearlyFaster(20, 34)).toBe(true);
  });

  test("the fastest wins the first time; later it replaces the remembered one only when clearly faster", () => {
    const results = new Map<string, number | null>([["eu-west-1", 40], ["eu-west-2", 30], ["us-east-1", null]]);
    expect(chooseClosest(results, null, NOW)).toEqual({ region: "eu-west-2", ms: 30, at: NOW });
    expect(chooseClosest(results, { region: "eu-west-1", ms: 38, at: 0 }, NOW)).toEqual({ region: "eu-west-2", ms: 30, at: NOW });
    const close = new Map<string, number | null>([["eu-west-1", 33], ["eu-west-2", 30]]);
    expect(chooseClosest(close, { region: "eu-west-1", ms: 35, at: 0 }, NOW)).toEqual({ region: "eu-west-1", ms: 33, at: NOW });
    expect(chooseClosest(new Map([["eu-west-1", null]]), { region: "eu-west-2", ms: 30, at: 5 }, NOW)).toEqual({ region: "eu-west-2", ms: 30, at: 5 });
  });

  test("measured again once a day", () => {
    expect(measurementDue(null, NOW)).toBe(true);
    expect(measurementDue({ region: "eu-west-1", ms: 1, at: NOW - REMEASURE_MS + 1 }, NOW)).toBe(false);
    expect(measurementDue({ region: "eu-west-1", ms: 1, at: NOW - REMEASURE_MS }, NOW)).toBe(true);
  });
});
