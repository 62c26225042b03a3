import { describe, expect, test } from "bun:test";
import { assignGroup, pollWindow, roundHalfUp, spacePhases, type CadenceDefaults, type GroupMember } from "../../src/domain/cadence.ts";

const DEFAULTS: CadenceDefaults = { pollMin: "%refreshTime%", pollMax: null };
const own = (pollMin: string | null = null, pollMax: string | null = null) => ({ pollMin, pollMax });
const members = (n: number, overrides: Partial<Record<number, { pollMin: string | null; pollMax: string | null }>> = {}): GroupMember[] =>
  Array.from({ length: n }, (_, i) => ({ id: i + 1, ...(overrides[i + 1] ?? own()) }));

describe("rounding", () => {
  test("half up", () => {
    expect(roundHalfUp(0.5)).toBe(1);
    expect(roundHalfUp(1.4999)).toBe(1);
    expect(roundHalfUp(349.5)).toBe(350);
    expect(roundHalfUp(2)).toBe(2);
  });
});

describe("poll window", () => {
  test("bootstrap: the placeholder is 300 s until the refresh time is known", () => {
    expect(pollWindow(own(), DEFAULTS, null, 1)).toEqual({ min: 300, max: 399 });
  });

  test("the minimum is floored at 300 s", () => {
    expect(pollWindow(own(), DEFAULTS, 120, 1)).toEqual({ min: 300, max: 399 });
    expect(pollWindow(own("60"), DEFAULTS, null, 1)).toEqual({ min: 300, max: 399 });
  });

  test("a learned refresh time drives the placeholder; max defaults to round(min × 1.33)", () => {
    expect(pollWindow(own(), DEFAULTS, 600, 1)).toEqual({ min: 600, max: 798 });
    expect(pollWindow(own("%auto% + 30"), DEFAULTS, 600, 1)).toEqual({ min: 630, max: 838 });
  });

  test("the max is capped at min + min / (2n) so jitter cannot blur the spacing", () => {
    expect(pollWindow(own(), DEFAULTS, null, 2)).toEqual({ min: 300, max: 375 });
    expect(pollWindow(own(), DEFAULTS, null, 3)).toEqual({ min: 300, max: 350 });
    expect(pollWindow(own(), DEFAULTS, null, 5)).toEqual({ min: 300, max: 330 });
    expect(pollWindow(own("600", "2000"), DEFAULTS, null, 1)).toEqual({ min: 600, max: 900 });
  });

  test("the max is never below the min", () => {
    expect(pollWindow(own("500", "400"), DEFAULTS, null, 1)).toEqual({ min: 500, max: 500 });
    expect(pollWindow(own(), { pollMin: "%refreshTime%", pollMax: "100" }, null, 1)).toEqual({ min: 300, max: 300 });
  });

  test("an agent's own values win over the defaults, each on its own", () => {
    const defaults = { pollMin: "400", pollMax: "420" };
    expect(pollWindow(own(), defaults, null, 1)).toEqual({ min: 400, max: 420 });
    expect(pollWindow(own("450"), defaults, null, 1)).toEqual({ min: 450, max: 450 });
    expect(pollWindow(own(null, "410"), defaults, null, 1)).toEqual({ min: 400, max: 410 });
  });

  test("fractional results round half up", () => {
    expect(pollWindow(own("300.5"), DEFAULTS, null, 1)).toEqual({ min: 301, max: 400 });
  });
});

describe("spacing equal periods: phase = round(i × T / n)", () => {
  test("1 agent", () => {
    expect(spacePhases([349.5])).toEqual([0]);
  });
  test("2 agents", () => {
    expect(spacePhases([337.5, 337.5])).toEqual([0, 169]);
  });
  test("3 agents", () => {
    expect(spacePhases([325, 325, 325])).toEqual([0, 108, 217]);
  });
  test("5 agents", () => {
    expect(spacePhases([315, 315, 315, 315, 315])).toEqual([0, 63, 126, 189, 252]);
  });
});

describe("spacing mixed periods", () => {
  test("the most common period is the evenly spaced backbone; the other takes the phase with the widest smallest gap", () => {
    // Backbone 300 s at 0 and 150; a 600 s agent fits best halfway between: 75 (or 225).
    expect(spacePhases([300, 300, 600])).toEqual([0, 150, 75]);
  });

  test("ties between periods go to the shorter as backbone", () => {
    // 300 is the backbone (tie, shorter): phase 0; the 600 s agent goes to 150, halfway.
    expect(spacePhases([600, 300])).toEqual([150, 0]);
  });

  test("agents outside the backbone are placed in order, each seeing the ones before", () => {
    const phases = spacePhases([300, 300, 300, 600, 900]);
    expect(phases.slice(0, 3)).toEqual([0, 100, 200]);
    for (const phase of phases) expect(phase % 5).toBe(0);
    expect(phases[3]).toBe(50);
    // Every poll of the 900 s agent sits in a gap: never on top of a backbone poll.
    const backbone = [0, 100, 200].flatMap((p) => [p, p + 300, p + 600]);
    const own900 = phases[4] ?? 0;
    expect(backbone.includes(own900)).toBe(false);
  });

  test("a long common horizon is capped at two hours and still gives a phase", () => {
    const phases = spacePhases([301, 301, 307]);
    expect(phases[0]).toBe(0);
    expect(phases[1]).toBe(151);
    expect(phases[2]).toBeGreaterThanOrEqual(0);
    expect(phases[2]).toBeLessThan(307);
  });
});

describe("assignments of a group", () => {
  const group = (n: number, refresh: number | null = null) => assignGroup("Windows", "eu-west-1", members(n), DEFAULTS, refresh);

  test("one agent: 300–399, phase 0, probes immediately while refresh time is unknown", () => {
    expect(group(1).get(1)).toEqual({ region: "eu-west-1", platform: "Windows", pollMinSeconds: 300, pollMaxSeconds: 399, phaseOffsetSeconds: 0, probeImmediately: true });
    expect(group(1, 300).get(1)?.probeImmediately).toBe(false);
  });

  test("two agents: 300–375, period 337.5, phases 0 and 169", () => {
    const g = group(2);
    expect([g.get(1), g.get(2)].map((a) => [a?.pollMinSeconds, a?.pollMaxSeconds, a?.phaseOffsetSeconds, a?.probeImmediately])).toEqual([
      [300, 375, 0, true],
      [300, 375, 169, false],
    ]);
  });

  test("three agents: 300–350, period 325, phases 0, 108, 217", () => {
    const g = group(3);
    expect([1, 2, 3].map((id) => g.get(id)?.phaseOffsetSeconds)).toEqual([0, 108, 217]);
    expect(g.get(3)?.pollMaxSeconds).toBe(350);
  });

  test("five agents: 300–330, period 315, phases 0, 63, 126, 189, 252", () => {
    const g = group(5);
    expect([1, 2, 3, 4, 5].map((id) => g.get(id)?.phaseOffsetSeconds)).toEqual([0, 63, 126, 189, 252]);
    expect([1, 2, 3, 4, 5].map((id) => g.get(id)?.probeImmediately)).toEqual([true, false, false, false, false]);
  });

  test("mixed: one agent with its own slower cadence joins two default agents", () => {
    const g = assignGroup("EGS", "us-east-1", members(3, { 3: own("600") }), DEFAULTS, 300);
    // n = 3: defaults are 300–350 (period 325); agent 3 is 600–700 (period 650).
    expect(g.get(1)).toMatchObject({ pollMinSeconds: 300, pollMaxSeconds: 350, phaseOffsetSeconds: 0 });
    expect(g.get(2)).toMatchObject({ pollMinSeconds: 300, pollMaxSeconds: 350, phaseOffsetSeconds: 163 });
    expect(g.get(3)).toMatchObject({ pollMinSeconds: 600, pollMaxSeconds: 700 });
    expect(g.get(3)?.phaseOffsetSeconds).toBe(spacePhases([325, 325, 650])[2]);
  });

  test("agents are ordered by id whatever order they come in", () => {
    const shuffled = [{ id: 9, ...own() }, { id: 4, ...own() }];
    const g = assignGroup("GRDK", "ap-south-1", shuffled, DEFAULTS, null);
    expect(g.get(4)?.phaseOffsetSeconds).toBe(0);
    expect(g.get(4)?.probeImmediately).toBe(true);
    expect(g.get(9)?.phaseOffsetSeconds).toBe(169);
  });
});
