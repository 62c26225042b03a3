/**
 * Sharing (SPEC §19): a link-preview picture rendered anew (each run a new
 * revision), the same picture from the cache, and a badge, all in-process.
 * Baselines in the same run: rasterising an empty 1200×630 SVG (the floor of
 * any render, measured in turns with the pictures so both see the same load
 * on a shared machine), and serialising the badge's JSON. Beside the wall
 * time, the process's CPU time per picture: on a busy machine the wall time
 * is mostly the wait for a core, the CPU time is the render's own cost. Run
 * alone with `bun scripts/bench/share.ts`.
 */
import type { RegionIncentive } from "../../src/domain/incentives.ts";
import { badgeContent, badgeSvg } from "../../src/share/badge.ts";
import { OG_HEIGHT, OG_WIDTH, OgImages, rasterise, regionSvg } from "../../src/share/og.ts";
import { ms, printBenchRows, ratio, time, type BenchRow } from "./common.ts";

const RENDER_BUDGET_MS = 50;
const CACHED_BUDGET_MS = 1;
const BADGE_BUDGET_MS = 1;
const RENDER_RUNS = 60;

const REGION: RegionIncentive = {
  region: "eu-central-1",
  displayName: "EU Central (Frankfurt)",
  flag: "🇩🇪",
  survivor: 0,
  killer: 75,
  ratio: 0.4,
  isReal: true,
  stale: false,
  lastUpdated: new Date().toISOString(),
  since: new Date().toISOString(),
};

interface Sampled {
  readonly wall: number[];
  readonly cpu: number[];
}

async function sample(into: Sampled, fn: () => Promise<unknown>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  into.wall.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  into.cpu.push((used.user + used.system) / 1000);
}

const at = (values: readonly number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;

export async function shareBench(): Promise<BenchRow[]> {
  const images = new OgImages();
  const draw = () => regionSvg("Windows", REGION, null);
  const empty = `<svg xmlns="http://www.w3.org/2000/svg" width="${OG_WIDTH}" height="${OG_HEIGHT}"><rect width="${OG_WIDTH}" height="${OG_HEIGHT}" fill="#15171c"/></svg>`;
  let revision = 1;
  for (let i = 0; i < 3; i++) {
    await images.picture("Windows/eu-central-1", revision++, draw);
    await rasterise(empty);
  }
  const fresh: Sampled = { wall: [], cpu: [] };
  const floor: Sampled = { wall: [], cpu: [] };
  for (let i = 0; i < RENDER_RUNS; i++) {
    await sample(fresh, () => images.picture("Windows/eu-central-1", revision++, draw));
    await sample(floor, () => rasterise(empty));
  }
  const cached = await time(() => images.picture("Windows/eu-central-1", revision - 1, draw), 1000);
  const badge = await time(() => badgeSvg(badgeContent(REGION, "Frankfurt")), 5000, 100);
  const json = await time(() => JSON.stringify(badgeContent(REGION, "Frankfurt")), 5000, 100);
  const freshWall = at(fresh.wall, 0.5);
  return [
    {
      figure: `OG picture rendered anew (SVG → PNG, embedded fonts), median of ${RENDER_RUNS}`,
      value: `${ms(freshWall)} (p95 ${ms(at(fresh.wall, 0.95))}, fastest ${ms(at(fresh.wall, 0))})`,
      budget: `≤ ${RENDER_BUDGET_MS} ms`,
      baseline: `empty 1200×630 SVG, in turns: ${ms(at(floor.wall, 0.5))} (fastest ${ms(at(floor.wall, 0))})`,
      ratio: ratio(freshWall, at(floor.wall, 0.5)),
      ok: freshWall <= RENDER_BUDGET_MS,
    },
    {
      figure: "OG picture rendered anew: CPU time of the process, median",
      value: `${ms(at(fresh.cpu, 0.5))} (p95 ${ms(at(fresh.cpu, 0.95))})`,
      budget: "",
      baseline: `empty SVG: ${ms(at(floor.cpu, 0.5))}`,
      ratio: ratio(at(fresh.cpu, 0.5), at(floor.cpu, 0.5)),
      ok: null,
    },
    {
      figure: `OG picture of the same revision (cache), median of ${cached.runs}`,
      value: `${cached.median.toFixed(4)} ms (p95 ${cached.p95.toFixed(4)} ms)`,
      budget: `≤ ${CACHED_BUDGET_MS} ms`,
      baseline: "",
      ratio: "",
      ok: cached.median <= CACHED_BUDGET_MS,
    },
    {
      figure: `Badge SVG built, median of ${badge.runs}`,
      value: `${badge.median.toFixed(4)} ms (p95 ${badge.p95.toFixed(4)} ms)`,
      budget: `≤ ${BADGE_BUDGET_MS} ms`,
      baseline: `its JSON: ${json.median.toFixed(4)} ms`,
      ratio: ratio(badge.median, json.median),
      ok: badge.median <= BADGE_BUDGET_MS,
    },
  ];
}

if (import.meta.main) printBenchRows("Sharing", await shareBench());
