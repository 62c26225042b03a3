import { describe, expect, test } from "bun:test";
import {
  BUILT_IN_REGIONS,
  Catalogue,
  PLATFORMS,
  PLATFORM_LABELS,
  flagEmoji,
  isPlatform,
  isValidTimeZone,
  parseProvider,
  platformOf,
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
  test("the built-in catalogue has the fifteen regions of the spec, in order, with time zones", () => {
    expect(BUILT_IN_REGIONS.map((r) => [r.id, r.tz])).toEqual([
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
    ]);
    expect(BUILT_IN_REGIONS.find((r) => r.id === "sa-east-1")?.name).toBe("South America (São Paulo)");
    for (const region of BUILT_IN_REGIONS) {
      expect(isValidTimeZone(region.tz)).toBe(true);
      expect([...region.flag].length).toBe(2);
    }
  });

  test("flags are regional-indicator pairs", () => {
    expect(flagEmoji("IE")).toBe("\u{1F1EE}\u{1F1EA}");
    expect(flagEmoji("jp")).toBe("\u{1F1EF}\u{1F1F5}");
    expect(flagEmoji("J")).toBe("");
  });

  test("operator regions are appended after the built-in ones", () => {
    const catalogue = new Catalogue([{ id: "me-south-1", name: "Middle East (Bahrain)", tz: "Asia/Bahrain", flag: "" }]);
    expect(catalogue.regions.length).toBe(16);
    expect(catalogue.regions.at(-1)?.id).toBe("me-south-1");
    expect(catalogue.hasRegion("me-south-1")).toBe(true);
    expect(catalogue.region("eu-west-1")?.tz).toBe("Europe/Dublin");
    expect(catalogue.region("xx-none-1")).toBeUndefined();
    expect(catalogue.order("eu-west-1")).toBe(0);
    expect(catalogue.order("me-south-1")).toBe(15);
    expect(catalogue.order("xx-none-1")).toBeGreaterThan(15);
  });

  test("operator regions are checked", () => {
    const ok = { id: "me-south-1", name: "Bahrain", tz: "Asia/Bahrain", flag: "" };
    expect(regionProblem(ok, BUILT_IN_REGIONS)).toBeNull();
    expect(regionProblem({ ...ok, id: "ME-south-1" }, BUILT_IN_REGIONS)).toContain("must match");
    expect(regionProblem({ ...ok, id: "me-south" }, BUILT_IN_REGIONS)).toContain("must match");
    expect(regionProblem({ ...ok, id: "eu-west-1" }, BUILT_IN_REGIONS)).toContain("already");
    expect(regionProblem({ ...ok, tz: "Mars/Olympus" }, BUILT_IN_REGIONS)).toContain("time zone");
    expect(regionProblem({ ...ok, name: " " }, BUILT_IN_REGIONS)).toContain("name");
  });
});
