/**
 * Sharing (SPEC §19): a link-preview picture rendered anew (each run a new
 * revision), the same picture from the cache, and a badge, all in-process.
 * Baselines in the same run: rasterising an empty 1200×630 SVG (the floor of
 * any render), and serialising the badge's JSON. Run alone with
 * `bun scripts/bench/share.ts`.
 */
import type { RegionIncentive } from "../../src/domain/incentives.ts";
import { badgeContent, badgeSvg } from "../../src/share/badge.ts";
import { OG_HEIGHT, OG_WIDTH, OgImages, rasterise, regionSvg } from "../../src/share/og.ts";
import { ms, printBenchRows, ratio, time, type BenchRow } from "./common.ts";

const RENDER_BUDGET_MS = 50;
const CACHED_BUDGET_MS = 1;
const BADGE_BUDGET_MS = 1;

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

export async function shareBench(): Promise<BenchRow[]> {
  const images = new OgImages();
  const draw = () => regionSvg("Windows", REGION, null);
  let revision = 1;
  const fresh = await time(() => images.picture("Windows/eu-central-1", revision++, draw), 30);
  const cached = await time(() => images.picture("Windows/eu-central-1", revision, draw), 1000);
  const empty = `<svg xmlns="http://www.w3.org/2000/svg" width="${OG_WIDTH}" height="${OG_HEIGHT}"><rect width="${OG_WIDTH}" height="${OG_HEIGHT}" fill="#15171c"/></svg>`;
  const floor = await time(() => rasterise(empty), 30);
  const badge = await time(() => badgeSvg(badgeContent(REGION, "Frankfurt")), 5000, 100);
  const json = await time(() => JSON.stringify(badgeContent(REGION, "Frankfurt")), 5000, 100);
  return [
    {
      figure: `OG picture rendered anew (SVG → PNG, embedded fonts), median of ${fresh.runs}`,
      value: `${ms(fresh.median)} (p95 ${ms(fresh.p95)})`,
      budget: `≤ ${RENDER_BUDGET_MS} ms`,
      baseline: `empty 1200×630 SVG: ${ms(floor.median)}`,
      ratio: ratio(fresh.median, floor.median),
      ok: fresh.median <= RENDER_BUDGET_MS,
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
