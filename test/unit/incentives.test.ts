import { describe, expect, test } from "bun:test";
import { Catalogue } from "../../src/domain/catalogue.ts";
import { deriveIncentives, type LiveValue } from "../../src/domain/incentives.ts";

const NOW = Date.parse("2026-11-21T18:00:00.000Z");
const STALE = 900_000;
const catalogue = new Catalogue();
const value = (minutesAgo: number, extra: Partial<LiveValue> = {}): LiveValue => ({
  survivor: 0,
  killer: 50,
  ratio: 1.8,
  measuredAt: NOW - minutesAgo * 60_000,
  since: NOW - minutesAgo * 60_000,
  version: null,
  category: null,
  ...extra,
});
const derive = (live: Record<string, LiveValue>, covered: string[]) =>
  deriveIncentives({ platform: "Windows", catalogue, live: new Map(Object.entries(live)), covered: new Set(covered), staleAfterMs: STALE, now: NOW, activeEvent: null, nextEvent: null });

describe("IncentivesPayload content", () => {
  test("error: no enabled agent, whatever readings remain", () => {
    const { content } = derive({ "eu-west-1": value(1) }, []);
    expect(content.status).toBe("error");
    expect(content.statusReason).toBe("no agents are configured for this platform");
    expect(content.regions.map((r) => r.region)).toEqual(["eu-west-1"]);
  });

  test("initializing: agents but no reading; fallbacks are never real", () => {
    const { content, staleAt } = derive({}, ["eu-central-1", "eu-west-2"]);
    expect(content.status).toBe("initializing");
    expect(content.statusReason).toBeNull();
    expect(content.updatedAt).toBeNull();
    expect(content.regions).toEqual([
      { region: "eu-west-2", displayName: "EU West (London)", flag: "🇬🇧", survivor: 0, killer: 0, ratio: 0, isReal: false, stale: true, lastUpdated: null, since: null },
      { region: "eu-central-1", displayName: "EU Central (Frankfurt)", flag: "🇩🇪", survivor: 0, killer: 0, ratio: 0, isReal: false, stale: true, lastUpdated: null, since: null },
    ]);
    expect(staleAt).toBeNull();
  });

  test("ok: at least one fresh reading; regions in catalogue order; version and category from the newest", () => {
    const { content, staleAt } = derive(
      {
        "ap-south-1": value(20, { version: "old", category: "a" }),
        "eu-west-1": value(2, { version: "9.3.0", category: "live", survivor: 25, killer: 0, ratio: 0.5 }),
      },
      ["ap-south-1", "eu-west-1", "us-east-1"],
    );
    expect(content.status).toBe("ok");
    expect(content.regions.map((r) => [r.region, r.stale, r.isReal])).toEqual([
      ["eu-west-1", false, true],
      ["us-east-1", true, false],
      ["ap-south-1", true, true],
    ]);
    expect(content.regions[0]).toMatchObject({ survivor: 25, killer: 0, ratio: 0.5, lastUpdated: "2026-11-21T17:58:00.000Z" });
    expect(content.updatedAt).toBe("2026-11-21T17:58:00.000Z");
    expect(content.version).toBe("9.3.0");
    expect(content.category).toBe("live");
    expect(staleAt).toBe(NOW - 2 * 60_000 + STALE + 1);
  });

  test("degraded: readings exist, all stale", () => {
    const { content } = derive({ "eu-west-1": value(16) }, ["eu-west-1"]);
    expect(content.status).toBe("degraded");
    expect(content.statusReason).toBe("agents have not reported fresh data recently");
    expect(content.regions[0]?.stale).toBe(true);
  });

  test("stale exactly at the threshold plus one millisecond", () => {
    expect(derive({ "eu-west-1": value(15) }, ["eu-west-1"]).content.regions[0]?.stale).toBe(false);
    expect(
      deriveIncentives({ platform: "Windows", catalogue, live: new Map([["eu-west-1", value(15)]]), covered: new Set(["eu-west-1"]), staleAfterMs: STALE, now: NOW + 1, activeEvent: null, nextEvent: null }).content.regions[0]?.stale,
    ).toBe(true);
  });
});
