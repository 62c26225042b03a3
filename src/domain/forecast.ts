/**
 * The 24-hour forecast of one region (SPEC §13). Pure: the caller supplies
 * the readings, the instant of the forecast and the region's local clock.
 *
 * Readings are first reduced to one value per local (date, hour), the hour's
 * most frequent level. A climatology of those hourly values, weighted by
 * recency, is taken at the finest of four levels that has enough
 * observations, then blended with persistence of the latest reading. Every
 * forecast value is a level that was actually observed.
 *
 * What persists is, by default, the latest reading's departure from its own
 * hour's climatology ("anomaly" persistence) rather than its levels as they
 * stand ("level" persistence, SPEC §13 as written). A region's bonuses swing
 * with the time of day, so an evening reading says little about the level
 * three hours later but much about whether tonight runs above or below the
 * usual. The hindcast benchmark (scripts/bench/forecast.ts) scores both.
 */
import { DAY_MS, HOUR_MS, describeLocalHour, isWeekend } from "./timezone.ts";

export const HORIZON_HOURS = 24;
export const RECENCY_HALF_LIFE_DAYS = 10;
/** Persistence of the latest reading weighs exp(−h / this), h in hours since that reading. */
export const PERSISTENCE_FADE_HOURS = 4;
/** A climatology level is used once it holds this many hourly values. */
export const MIN_OBSERVATIONS = 3;
export const BAND_QUANTILES = [0.25, 0.75] as const;

export type Confidence = "low" | "medium" | "high";

/** Readings of one region, oldest first; equal times in order of arrival. */
export interface ReadingSeries {
  readonly length: number;
  readonly t: ArrayLike<number>;
  readonly survivor: ArrayLike<number>;
  readonly killer: ArrayLike<number>;
}

/** Whatever tells the local (date, hour) of an instant; ZoneClock does it through Intl. */
export interface LocalClock {
  localHourKey(at: number): number;
}

export interface ForecastPoint {
  readonly t: number;
  readonly survivor: number;
  readonly survivorLo: number;
  readonly survivorHi: number;
  readonly killer: number;
  readonly killerLo: number;
  readonly killerHi: number;
}

export interface ActualPoint {
  readonly t: number;
  readonly survivor: number;
  readonly killer: number;
}

export interface ForecastContent {
  readonly confidence: Confidence;
  readonly points: ForecastPoint[];
  readonly past: ForecastPoint[];
  readonly actual: ActualPoint[];
}

/** What the latest reading carries forward: its departure from the usual (the default), or its levels as they stand. */
export type PersistenceMode = "anomaly" | "level";

export interface ForecastOptions {
  /** How far back the model learns from (FORECAST_WINDOW_DAYS). */
  readonly windowMs: number;
  readonly clock: LocalClock;
  readonly persistence?: PersistenceMode;
}

/** Builds a series from reading objects (tests and small callers). */
export function seriesOf(readings: readonly ActualPoint[]): ReadingSeries {
  return {
    length: readings.length,
    t: readings.map((r) => r.t),
    survivor: readings.map((r) => r.survivor),
    killer: readings.map((r) => r.killer),
  };
}

/** Index of the first reading with t ≥ at (or > at when `after`), by binary search. */
export function seekIndex(series: ReadingSeries, at: number, after = false): number {
  let lo = 0;
  let hi = series.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = series.t[mid] ?? 0;
    if (t < at || (after && t === at)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A discrete distribution over levels, as level → weight. */
export type Distribution = Map<number, number>;

/** The most likely level; ties go to the higher level. */
export function mostLikely(distribution: Distribution): number {
  let best = 0;
  let bestWeight = Number.NEGATIVE_INFINITY;
  for (const [level, weight] of distribution) {
    if (weight > bestWeight || (weight === bestWeight && level > best)) {
      best = level;
      bestWeight = weight;
    }
  }
  return best;
}

/**
 * The smallest level whose cumulative weight reaches q × the total weight.
 * Sums of fractional weights carry rounding noise, so "reaches" allows a
 * relative 1e-9 short.
 */
export function weightedPercentile(distribution: Distribution, q: number): number {
  const levels = [...distribution.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const weight of distribution.values()) total += weight;
  const target = q * total - 1e-9 * total;
  let cumulative = 0;
  for (const level of levels) {
    cumulative += distribution.get(level) ?? 0;
    if (cumulative >= target) return level;
  }
  return levels[levels.length - 1] ?? 0;
}

/** Value and band of a distribution: lo ≤ value ≤ hi always. */
export function summarise(distribution: Distribution): { value: number; lo: number; hi: number } {
  const value = mostLikely(distribution);
  return {
    value,
    lo: Math.min(weightedPercentile(distribution, BAND_QUANTILES[0]), value),
    hi: Math.max(weightedPercentile(distribution, BAND_QUANTILES[1]), value),
  };
}

export interface HourlyValue {
  /** Local-hour key (hours since 1970-01-01T00:00 local). */
  readonly key: number;
  /** When the hour's first reading was taken. */
  readonly at: number;
  readonly survivor: number;
  readonly killer: number;
}

/** Counts of levels within one hour, as [level, count, level, count, …]: an hour rarely sees more than a few levels. */
type Tally = number[];

interface HourTally {
  readonly key: number;
  readonly at: number;
  readonly survivor: Tally;
  readonly killer: Tally;
}

function count(tally: Tally, level: number, times: number): void {
  for (let i = 0; i < tally.length; i += 2) {
    if (tally[i] === level) {
      tally[i + 1] = (tally[i + 1] ?? 0) + times;
      return;
    }
  }
  tally.push(level, times);
}

/** The most frequent level of a tally; ties go to the higher level. */
function modeOf(tally: Tally): number {
  let best = 0;
  let bestCount = 0;
  for (let i = 0; i < tally.length; i += 2) {
    const level = tally[i] ?? 0;
    const n = tally[i + 1] ?? 0;
    if (n > bestCount || (n === bestCount && level > best)) {
      best = level;
      bestCount = n;
    }
  }
  return best;
}

/**
 * One value per local (date, hour) from the readings with index in [start, end):
 * each role's most frequent level in that hour (ties toward the higher level).
 * The hour repeated when clocks go back is one (date, hour), so it merges.
 * Runs of equal readings are counted at once: values change far less often
 * than agents read them.
 */
export function hourlyValues(series: ReadingSeries, start: number, end: number, clock: LocalClock): HourlyValue[] {
  const tallies = new Map<number, HourTally>();
  let current: HourTally | undefined;
  let runSurvivor = -1;
  let runKiller = -1;
  let run = 0;
  const flush = (): void => {
    if (current && run > 0) {
      count(current.survivor, runSurvivor, run);
      count(current.killer, runKiller, run);
    }
    run = 0;
  };
  for (let i = start; i < end; i++) {
    const t = series.t[i] ?? 0;
    const key = clock.localHourKey(t);
    const survivor = series.survivor[i] ?? 0;
    const killer = series.killer[i] ?? 0;
    if (!current || current.key !== key) {
      flush();
      current = tallies.get(key);
      if (!current) {
        current = { key, at: t, survivor: [], killer: [] };
        tallies.set(key, current);
      }
    } else if (survivor !== runSurvivor || killer !== runKiller) {
      flush();
    }
    runSurvivor = survivor;
    runKiller = killer;
    run++;
  }
  flush();
  return [...tallies.values()].map((tally) => ({ key: tally.key, at: tally.at, survivor: modeOf(tally.survivor), killer: modeOf(tally.killer) }));
}

export function confidenceOf(spanMs: number, hourlyCount: number): Confidence {
  if (spanMs >= 14 * DAY_MS && hourlyCount >= 168) return "high";
  if (spanMs >= 4 * DAY_MS) return "medium";
  return "low";
}

interface Observation {
  readonly dayOfWeek: number;
  readonly weekend: boolean;
  readonly weight: number;
  readonly survivor: number;
  readonly killer: number;
}

export interface ModelRun {
  readonly points: ForecastPoint[];
  readonly confidence: Confidence;
  readonly hourlyCount: number;
  readonly spanMs: number;
}

const EMPTY_RUN: ModelRun = { points: [], confidence: "low", hourlyCount: 0, spanMs: 0 };

/** First forecast hour for a forecast made at `origin`: ceil(origin / 1 h) × 1 h. */
export function firstForecastHour(origin: number): number {
  return Math.ceil(origin / HOUR_MS) * HOUR_MS;
}

/** The observations a target hour is forecast from: the finest level with enough of them. */
function climatologyFor(byHour: readonly Observation[][], all: readonly Observation[], dayOfWeek: number, hour: number): readonly Observation[] {
  const sameHour = byHour[hour] ?? [];
  const sameDay = sameHour.filter((o) => o.dayOfWeek === dayOfWeek);
  if (sameDay.length >= MIN_OBSERVATIONS) return sameDay;
  const weekend = isWeekend(dayOfWeek);
  const sameKind = sameHour.filter((o) => o.weekend === weekend);
  if (sameKind.length >= MIN_OBSERVATIONS) return sameKind;
  if (sameHour.length >= MIN_OBSERVATIONS) return sameHour;
  return all;
}

/** The most likely killer − survivor balance of some observations (one role's bonus is the other's zero). */
function balanceMode(observations: readonly Observation[]): number {
  const distribution: Distribution = new Map();
  for (const o of observations) distribution.set(o.killer - o.survivor, (distribution.get(o.killer - o.survivor) ?? 0) + o.weight);
  return mostLikely(distribution);
}

/** The observed level nearest to a value; ties go to the higher level. */
function nearestLevel(levels: readonly number[], value: number): number {
  let best = levels[0] ?? 0;
  for (const level of levels) if (Math.abs(level - value) <= Math.abs(best - value)) best = level;
  return best;
}

function blend(observations: readonly Observation[], role: "survivor" | "killer", latest: number, persistence: number): Distribution {
  const distribution: Distribution = new Map();
  let total = 0;
  for (const o of observations) total += o.weight;
  if (total > 0) {
    for (const o of observations) {
      const level = o[role];
      distribution.set(level, (distribution.get(level) ?? 0) + ((1 - persistence) * o.weight) / total);
    }
  }
  distribution.set(latest, (distribution.get(latest) ?? 0) + persistence);
  return distribution;
}

/**
 * The forecast the model makes at `origin` from the readings taken in
 * [origin − window, origin] and nothing later: 24 hourly points from
 * ceil(origin / 1 h) × 1 h. No readings, no points.
 */
export function forecastAt(series: ReadingSeries, origin: number, options: ForecastOptions): ModelRun {
  const start = seekIndex(series, origin - options.windowMs);
  const end = seekIndex(series, origin, true);
  if (end <= start) return EMPTY_RUN;
  const hourly = hourlyValues(series, start, end, options.clock);
  const halfLifeMs = RECENCY_HALF_LIFE_DAYS * DAY_MS;
  const byHour: Observation[][] = Array.from({ length: 24 }, () => []);
  const all: Observation[] = [];
  for (const value of hourly) {
    const local = describeLocalHour(value.key);
    const observation: Observation = {
      dayOfWeek: local.dayOfWeek,
      weekend: isWeekend(local.dayOfWeek),
      weight: 0.5 ** ((origin - value.at) / halfLifeMs),
      survivor: value.survivor,
      killer: value.killer,
    };
    byHour[local.hour]?.push(observation);
    all.push(observation);
  }
  const last = end - 1;
  const latestAt = series.t[last] ?? origin;
  const latestSurvivor = series.survivor[last] ?? 0;
  const latestKiller = series.killer[last] ?? 0;
  const anomalies = (options.persistence ?? "anomaly") === "anomaly";
  const latestLocal = describeLocalHour(options.clock.localHourKey(latestAt));
  const anomaly = latestKiller - latestSurvivor - balanceMode(climatologyFor(byHour, all, latestLocal.dayOfWeek, latestLocal.hour));
  const levels = [...new Set([latestSurvivor, latestKiller, ...all.flatMap((o) => [o.survivor, o.killer])])].sort((a, b) => a - b);
  const first = firstForecastHour(origin);
  const points: ForecastPoint[] = [];
  for (let i = 0; i < HORIZON_HOURS; i++) {
    const t = first + i * HOUR_MS;
    const local = describeLocalHour(options.clock.localHourKey(t));
    const observations = climatologyFor(byHour, all, local.dayOfWeek, local.hour);
    const persistence = Math.exp(-(t - latestAt) / HOUR_MS / PERSISTENCE_FADE_HOURS);
    let carried = { survivor: latestSurvivor, killer: latestKiller };
    if (anomalies) {
      const balance = balanceMode(observations) + anomaly;
      carried = { survivor: nearestLevel(levels, Math.max(0, -balance)), killer: nearestLevel(levels, Math.max(0, balance)) };
    }
    const survivor = summarise(blend(observations, "survivor", carried.survivor, persistence));
    const killer = summarise(blend(observations, "killer", carried.killer, persistence));
    points.push({ t, survivor: survivor.value, survivorLo: survivor.lo, survivorHi: survivor.hi, killer: killer.value, killerLo: killer.lo, killerHi: killer.hi });
  }
  const spanMs = latestAt - (series.t[start] ?? latestAt);
  return { points, confidence: confidenceOf(spanMs, hourly.length), hourlyCount: hourly.length, spanMs };
}

/**
 * Everything the forecast endpoint shows at `now`: the forecast, the
 * hindcast made 24 h earlier from what was known then, and the readings of
 * the last 24 h to hold it against. `series` should cover
 * [now − 24 h − window, now].
 */
export function buildForecast(series: ReadingSeries, now: number, options: ForecastOptions): ForecastContent {
  const current = forecastAt(series, now, options);
  const past = forecastAt(series, now - HORIZON_HOURS * HOUR_MS, options).points;
  const actual: ActualPoint[] = [];
  const end = seekIndex(series, now, true);
  for (let i = seekIndex(series, now - HORIZON_HOURS * HOUR_MS, true); i < end; i++) {
    actual.push({ t: series.t[i] ?? 0, survivor: series.survivor[i] ?? 0, killer: series.killer[i] ?? 0 });
  }
  return { confidence: current.confidence, points: current.points, past, actual };
}
