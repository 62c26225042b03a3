import { describe, expect, test } from "bun:test";
import {
  BUILT_IN_REGIONS,
  Catalogue,
  PLATFORMS,
  PLATFORM_LABELS,
  REGION_ID_PATTERN,
  flagEmoji,
  isPlatform,
  isValidTimeZone,
  parseProvider,
  platformOf,
  regionForZone,
  regionOf,
  regionProblem,
} from "../../src/domain/catalogue.ts";

describe("platforms and providers", () => {
  test("platforms come in display order with their labels", () => {
    expect([...PLATFORMS]).toEqual(["Windows", "EGS", "GRDK"]);
    expect(PLATFORM_LABELS).toEqual({ Windows: "Steam", EGS: "Epic Games Store", GRDK: "Microsoft Store" });
  });

  test("a provider decides the platform, whatever its letter case", () => {
    expect(parseProvider("steam")).toBe("steam");
    expect(parseProvider("STEAM")).toBe("steam");
    expect(parseProvider(" Epic ")).toBe("epic");
    expect(parseProvider("GrDk")).toBe("grdk");
    expect(parseProvider("xbox")).toBeNull();
    expect(parseProvider("")).toBeNull();
    expect(platformOf("steam")).toBe("Windows");
    expect(platformOf("epic")).toBe("EGS");
    expect(platformOf("grdk")).toBe("GRDK");
  });

  test("platform ids are case-sensitive", () => {
    expect(isPlatform("Windows")).toBe(true);
    expect(isPlatform("windows")).toBe(false);
    expect(isPlatform("PS5")).toBe(false);
  });
});

describe("regions", () => {
  test("the spec's fifteen regions are in the catalogue in the spec's order, with its time zones", () => {
    const spec: [string, string][] = [
      ["eu-west-1", "Europe/Dublin"],
      ["eu-west-2", "Europe/London"],
      ["eu-central-1", "Europe/Berlin"],
      ["us-east-1", "America/New_York"],
      ["us-east-2", "America/New_York"],
      ["us-west-1", "America/Los_Angeles"],
      ["us-west-2", "America/Los_Angeles"],
      ["ca-central-1", "America/Toronto"],
      ["sa-east-1", "America/Sao_Paulo"],
      ["ap-southeast-1", "Asia/Singapore"],
      ["ap-southeast-2", "Australia/Sydney"],
      ["ap-northeast-1", "Asia/Tokyo"],
      ["ap-northeast-2", "Asia/Seoul"],
      ["ap-east-1", "Asia/Hong_Kong"],
      ["ap-south-1", "Asia/Kolkata"],
    ];
    const specIds = new Set(spec.map(([id]) => id));
    expect(BUILT_IN_REGIONS.filter((r) => specIds.has(r.id)).map((r) => [r.id, r.tz])).toEqual(spec);
    expect(BUILT_IN_REGIONS.find((r) => r.id === "sa-east-1")?.name).toBe("South America (São Paulo)");
  });

  test("every built-in region carries everything about it: time zone, flag and country, zones, latency host", () => {
    expect(new Set(BUILT_IN_REGIONS.map((r) => r.id)).size).toBe(BUILT_IN_REGIONS.length);
    for (const region of BUILT_IN_REGIONS) {
      expect({ id: region.id, matches: REGION_ID_PATTERN.test(region.id), tz: isValidTimeZone(region.tz) }).toEqual({ id: region.id, matches: true, tz: true });
      expect(region.country).toMatch(/^[A-Z]{2}$/);
      expect(region.flag).toBe(flagEmoji(region.country ?? ""));
      expect([...region.flag].length).toBe(2);
      // SPEC §17.1: for AWS ids, the GameLift endpoint.
      expect(region.latencyHost).toBe(`gamelift.${region.id}.amazonaws.com`);
      expect(regionProblem(region, [])).toBeNull();
      expect(region.zones.length + region.areas.length).toBeGreaterThan(0);
      for (const zone of region.zones) expect({ zone, valid: isValidTimeZone(zone) }).toEqual({ zone, valid: true });
    }
  });

  test("every zone the board maps resolves through the catalogue to the region that names it; none is named twice", () => {
    const zones = BUILT_IN_REGIONS.flatMap((r) => r.zones.map((zone) => ({ zone, region: r.id })));
    expect(new Set(zones.map((z) => z.zone)).size).toBe(zones.length);
    for (const { zone, region } of zones) expect({ zone, region: regionForZone(zone) }).toEqual({ zone, region });
    const areas = BUILT_IN_REGIONS.flatMap((r) => r.areas);
    expect(new Set(areas).size).toBe(areas.length);
    for (const region of BUILT_IN_REGIONS) for (const area of region.areas) expect(regionForZone(`${area}Somewhere_New`)).toBe(region.id);
  });

  test("a zone no region names falls in the longest area that holds it, or nowhere", () => {
    const regions = [
      regionOf({ id: "xx-wide-1", name: "Wide", tz: "UTC", areas: ["America/"] }),
      regionOf({ id: "xx-narrow-1", name: "Narrow", tz: "UTC", zones: ["America/Named"], areas: ["America/Argentina/"] }),
    ];
    expect(regionForZone("America/Argentina/Salta", regions)).toBe("xx-narrow-1");
    expect(regionForZone("America/Named", regions)).toBe("xx-narrow-1");
    expect(regionForZone("America/Chicago", regions)).toBe("xx-wide-1");
    expect(regionForZone("Europe/Paris", regions)).toBeNull();
    expect(regionForZone("Europe/Paris")).toBe("eu-central-1");
    expect(regionForZone("Mars/Olympus")).toBeNull();
  });

  test("flags are regional-indicator pairs", () => {
    expect(flagEmoji("IE")).toBe("\u{1F1EE}\u{1F1EA}");
    expect(flagEmoji("jp")).toBe("\u{1F1EF}\u{1F1F5}");
    expect(flagEmoji("J")).toBe("");
  });

  test("every built-in region declares a short name for a phone's row: the place its name ends with", () => {
    for (const region of BUILT_IN_REGIONS) {
      expect({ id: region.id, endsWithPlace: region.name.endsWith(`(${region.shortName})`), short: region.shortName.length <= 14 }).toEqual({ id: region.id, endsWithPlace: true, short: true });
    }
  });

  test("an operator's region may give only id, name and tz: no flag or country, no zones, the GameLift host", () => {
    expect(regionOf({ id: "me-south-1", name: "Middle East (Bahrain)", tz: "Asia/Bahrain" })).toEqual({
      id: "me-south-1",
      name: "Middle East (Bahrain)",
      shortName: "Middle East (Bahrain)",
      tz: "Asia/Bahrain",
      flag: "",
      country: null,
      zones: [],
      areas: [],
      latencyHost: "gamelift.me-south-1.amazonaws.com",
    });
    expect(regionOf({ id: "me-south-1", name: "Bahrain", tz: "Asia/Bahrain", flag: "bh", latencyHost: "ping.example.net" })).toMatchObject({ flag: "\u{1F1E7}\u{1F1ED}", country: "BH", latencyHost: "ping.example.net" });
    expect(regionOf({ id: "me-south-1", name: "Bahrain", tz: "Asia/Bahrain", flag: "\u{1F3F4}" })).toMatchObject({ flag: "\u{1F3F4}", country: null });
  });

  test("operator regions are appended after the built-in ones", () => {
    const catalogue = new Catalogue([regionOf({ id: "me-south-1", name: "Middle East (Bahrain)", tz: "Asia/Bahrain" })]);
    expect(catalogue.regions.length).toBe(BUILT_IN_REGIONS.length + 1);
    expect(catalogue.regions.at(-1)?.id).toBe("me-south-1");
    expect(catalogue.hasRegion("me-south-1")).toBe(true);
    expect(catalogue.region("eu-west-1")?.tz).toBe("Europe/Dublin");
    expect(catalogue.region("xx-none-1")).toBeUndefined();
    expect(catalogue.order("eu-west-1")).toBe(0);
    expect(catalogue.order("me-south-1")).toBe(BUILT_IN_REGIONS.length);
    expect(catalogue.order("xx-none-1")).toBeGreaterThan(BUILT_IN_REGIONS.length);
  });

  test("operator regions are checked", () => {
    const ok = regionOf({ id: "me-south-1", name: "Bahrain", tz: "Asia/Bahrain" });
    expect(regionProblem(ok, BUILT_IN_REGIONS)).toBeNull();
    expect(regionProblem({ ...ok, id: "ME-south-1" }, BUILT_IN_REGIONS)).toContain("must match");
    expect(regionProblem({ ...ok, id: "me-south" }, BUILT_IN_REGIONS)).toContain("must match");
    expect(regionProblem({ ...ok, id: "eu-west-1" }, BUILT_IN_REGIONS)).toContain("already");
    expect(regionProblem({ ...ok, tz: "Mars/Olympus" }, BUILT_IN_REGIONS)).toContain("time zone");
    expect(regionProblem({ ...ok, name: " " }, BUILT_IN_REGIONS)).toContain("name");
    expect(regionProblem({ ...ok, latencyHost: "ping.example.net" }, BUILT_IN_REGIONS)).toBeNull();
    // The host goes into the page's CSP: nothing but a lower-case DNS name passes.
    for (const latencyHost of ["", "localhost", "Ping.Example.net", "ping.example.net; script-src *", "https://ping.example.net", "ping.example.net:443", "-a.example.net", "a..example.net", `${"a".repeat(64)}.example.net`]) {
      expect({ latencyHost, problem: regionProblem({ ...ok, latencyHost }, BUILT_IN_REGIONS) }).toEqual({ latencyHost, problem: expect.stringContaining("latencyHost") });
    }
  });
});
