/**
 * The forecast: its speed uncached on 84 days of readings (SPEC §15: under
 * 150 ms), against the same run's cost of merely loading those readings;
 * and its accuracy on the simulator's data, rolling the origin hourly over
 * the last 14 days, against seasonal-naive (the same hour a week earlier)
 * and persistence (the last value), and against SPEC §13's model as written
 * (level persistence), which this hub's model (anomaly persistence) must
 * beat to replace it. Run alone with `bun scripts/bench/forecast.ts`.
 *
 * Accuracy is scored leak-free: each forecast is made by the same code the
 * endpoint runs, from the readings up to its origin only; the truth for a
 * forecast hour is the most frequent level read during that hour, and hours
 * the agent was down for are left out.
 */
import { BUILT_IN_REGIONS, PLATFORMS, type Platform, type Region } from "../../src/domain/catalogue.ts";
import { forecastAt, mostLikely, seekIndex, type ForecastPoint, type ReadingSeries } from "../../src/domain/forecast.ts";
import { DAY_MS, HOUR_MS, ZoneClock } from "../../src/domain/timezone.ts";
import { closeDatabase } from "../../src/db/open.ts";
import { backfill } from "../../src/sim/backfill.ts";
import { slotModel } from "../../src/sim/model.ts";
import { simulatedSeries } from "../../src/sim/series.ts";
import { benchHub, get, ms, printBenchRows, printTable, ratio, scratch, scratchDb, time, type BenchRow } from "./common.ts";

const WINDOW_DAYS = 84;
const BUDGET_MS = 150;
const EVALUATION_DAYS = 14;
const SEED = 1;
/** The end of the simulated data scored for accuracy: fixed, so the table is the same on every run; its last weeks hold the autumn DST changes. */
export const ACCURACY_END = Date.UTC(2026, 10, 16);

export async function forecastSpeedBench(): Promise<BenchRow[]> {
  const dir = scratch("forecast");
  const db = scratchDb(dir.path);
  try {
    const end = Date.now();
    const region = BUILT_IN_REGIONS.find((r) => r.id === "eu-central-1");
    const other = BUILT_IN_REGIONS.find((r) => r.id === "us-east-1");
    if (!region || !other) throw new Error("catalogue regions missing");
    // The model reads 84 days plus the day before (for the hindcast): one reading a minute, beside two other slots.
    backfill(db, {
      days: WINDOW_DAYS + 1,
      end,
      seed: SEED,
      slots: [
        { platform: "Windows", region },
        { platform: "Windows", region: other },
        { platform: "GRDK", region },
      ],
    });
    const hub = benchHub(db, [], () => end);
    const from = end - (WINDOW_DAYS + 1) * DAY_MS;
    const stored = hub.ctx.readings.series("Windows", region.id, from, end).length;
    const path = `/api/v1/platforms/Windows/regions/${region.id}/forecast`;
    const uncached = await time(async () => {
      hub.ctx.forecasts.invalidate();
      await (await get(hub, path)).arrayBuffer();
    }, 15);
    const load = await time(() => hub.ctx.readings.series("Windows", region.id, from, end), 15);
    const cached = await time(async () => await (await get(hub, path)).arrayBuffer(), 50);
    return [
      {
        figure: `Forecast uncached, ${WINDOW_DAYS} days (+1 for the hindcast), ${stored.toLocaleString("en-US")} readings, median of ${uncached.runs}`,
        value: `${ms(uncached.median)} (p95 ${ms(uncached.p95)})`,
        budget: `< ${BUDGET_MS} ms`,
        baseline: `loading those readings: ${ms(load.median)}`,
        ratio: ratio(uncached.median, load.median),
        ok: uncached.median < BUDGET_MS,
      },
      {
        figure: "Forecast cached",
        value: ms(cached.median),
        budget: "—",
        baseline: `uncached: ${ms(uncached.median)}`,
        ratio: ratio(cached.median, uncached.median),
        ok: null,
      },
    ];
  } finally {
    closeDatabase(db);
    dir.cleanup();
  }
}

type Role = "survivor" | "killer";
const ROLES: readonly Role[] = ["survivor", "killer"];

/** The most frequent level read in [from, from + 1 h), or null when nothing was read. */
function hourValue(series: ReadingSeries, role: Role, from: number): number | null {
  const start = seekIndex(series, from);
  const end = seekIndex(series, from + HOUR_MS);
  if (end <= start) return null;
  const counts = new Map<number, number>();
  for (let i = start; i < end; i++) {
    const level = series[role][i] ?? 0;
    counts.set(level, (counts.get(level) ?? 0) + 1);
  }
  return mostLikely(counts);
}

/** The last value read at or before `at`. */
function lastValue(series: ReadingSeries, role: Role, at: number): number | null {
  const i = seekIndex(series, at, true) - 1;
  return i >= 0 ? (series[role][i] ?? 0) : null;
}

type Forecaster = "model" | "specModel" | "seasonalNaive" | "persistence";

export interface AccuracyResult {
  readonly slots: number;
  readonly pairs: number;
  readonly mae: Readonly<Record<Forecaster, Readonly<Record<Role, number>>>>;
}

/** One slot per catalogue region, the platforms taking turns: every time zone and every platform is scored. */
export function accuracySlots(): { platform: Platform; region: Region }[] {
  return BUILT_IN_REGIONS.map((region, i) => ({ platform: PLATFORMS[i % PLATFORMS.length] ?? "Windows", region }));
}

export function accuracyBench(slots = accuracySlots()): AccuracyResult {
  const sums: Record<Forecaster, Record<Role, number>> = {
    model: { survivor: 0, killer: 0 },
    specModel: { survivor: 0, killer: 0 },
    seasonalNaive: { survivor: 0, killer: 0 },
    persistence: { survivor: 0, killer: 0 },
  };
  let pairs = 0;
  const windowMs = WINDOW_DAYS * DAY_MS;
  const firstOrigin = ACCURACY_END - EVALUATION_DAYS * DAY_MS;
  for (const { platform, region } of slots) {
    const clock = new ZoneClock(region.tz);
    const series = simulatedSeries(slotModel(SEED, platform, region.id), clock, firstOrigin - windowMs - 8 * DAY_MS, ACCURACY_END, 60_000);
    for (let origin = firstOrigin; origin < ACCURACY_END; origin += HOUR_MS) {
      const points = forecastAt(series, origin, { windowMs, clock }).points;
      const specPoints = forecastAt(series, origin, { windowMs, clock, persistence: "level" }).points;
      points.forEach((point: ForecastPoint, h) => {
        const spec = specPoints[h];
        if (!spec || point.t + HOUR_MS > ACCURACY_END) return;
        const truth = { survivor: hourValue(series, "survivor", point.t), killer: hourValue(series, "killer", point.t) };
        if (truth.survivor === null || truth.killer === null) return;
        for (const role of ROLES) {
          const actual = truth[role] ?? 0;
          const weekAgo = point.t - 7 * DAY_MS;
          const seasonal = hourValue(series, role, weekAgo) ?? lastValue(series, role, weekAgo + HOUR_MS) ?? 0;
          const persistence = lastValue(series, role, origin) ?? 0;
          sums.model[role] += Math.abs(point[role] - actual);
          sums.specModel[role] += Math.abs(spec[role] - actual);
          sums.seasonalNaive[role] += Math.abs(seasonal - actual);
          sums.persistence[role] += Math.abs(persistence - actual);
        }
        pairs++;
      });
    }
  }
  const mean = (s: Record<Role, number>) => ({ survivor: s.survivor / pairs, killer: s.killer / pairs });
  return {
    slots: slots.length,
    pairs,
    mae: { model: mean(sums.model), specModel: mean(sums.specModel), seasonalNaive: mean(sums.seasonalNaive), persistence: mean(sums.persistence) },
  };
}

export function printAccuracy(result: AccuracyResult): void {
  const { model, specModel, seasonalNaive, persistence } = result.mae;
  const row = (name: string, mae: Record<Role, number>) => [name, mae.survivor.toFixed(2), mae.killer.toFixed(2)];
  printTable(
    `Forecast accuracy: MAE in bonus percent, ${result.slots} simulated slots, origins hourly over the last ${EVALUATION_DAYS} days, horizons 0–23 h, ${result.pairs.toLocaleString("en-US")} forecast hours`,
    ["Forecast", "Survivor MAE", "Killer MAE"],
    [
      row("This hub's model (anomaly persistence)", model),
      row("Climatology blended with the last level (level persistence)", specModel),
      row("Seasonal-naive (same hour a week earlier)", seasonalNaive),
      row("Persistence (last value)", persistence),
    ],
  );
  const beats = (m: Record<Role, number>) => ROLES.every((role) => m[role] < seasonalNaive[role] && m[role] < persistence[role]);
  const better = ROLES.every((role) => model[role] < specModel[role]);
  console.log(`\nThis hub's model ${beats(model) ? "beats" : "does NOT beat"} both baselines on both roles, and ${better ? "beats" : "does NOT beat"} the climatology blended with the last level.`);
}

if (import.meta.main) {
  printBenchRows("Forecast", await forecastSpeedBench());
  printAccuracy(accuracyBench());
}
