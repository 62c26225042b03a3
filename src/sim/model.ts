/**
 * What the simulator's agents read: a made-up but plausible queue pressure
 * per (platform, region), turned into the game's quantized bonuses. Pure and
 * stateless: a reading is a function of (seed, platform, region, instant),
 * so the live player and the backfill tell the same story.
 *
 * Pressure above zero means killers are scarce (killer bonus), below zero
 * survivors are. It follows a daily rhythm in the region's local time (an
 * evening peak of casual survivors), a weekend lift, slow drifts over hours
 * and days, and a little jitter each time the game refreshes its numbers.
 * Agents also go quiet now and then for an hour or several.
 */
import { isWeekend, type ZoneClock, HOUR_MS } from "../domain/timezone.ts";
import { hashInts, hashString, unitHash } from "./random.ts";

export const LEVELS = [0, 25, 50, 75, 100, 125, 150] as const;
/** The game recomputes its incentives this often; agents see a new value at most this often. */
export const GAME_REFRESH_SECONDS = 180;
export const SIM_GAME_VERSION = "9.3.0";

/** Pressure below this gives no bonus; every further step adds 25 %. */
const BONUS_THRESHOLD = 0.25;
const BONUS_STEP = 0.2;
const PLATFORM_LEAN: Readonly<Record<string, number>> = { Windows: 0.05, EGS: -0.2, GRDK: -0.1 };
const SLOW_DRIFT = { amplitude: 0.28, periodMs: 8 * HOUR_MS } as const;
const DAYS_DRIFT = { amplitude: 0.18, periodMs: 84 * HOUR_MS } as const;
const JITTER = 0.16;
/** Chance that an outage starts in a given hour, and its longest length in hours. */
export const OUTAGE_START_CHANCE = 0.004;
export const OUTAGE_MAX_HOURS = 12;

const SALT = { profile: 1, drift: 2, days: 3, jitter: 4, outage: 5, outageLength: 6 } as const;

export interface SlotModel {
  readonly platform: string;
  readonly region: string;
  readonly key: number;
  /** Standing lean of the slot towards one role. */
  readonly bias: number;
  /** Strength of the daily rhythm. */
  readonly amplitude: number;
  /** Local hour (fractional) when killers are scarcest. */
  readonly peakHour: number;
  /** How much weekends add to the pressure. */
  readonly weekendLift: number;
}

export interface SimReading {
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
}

export function slotModel(seed: number, platform: string, region: string): SlotModel {
  const key = hashInts(seed, hashString(platform), hashString(region));
  const trait = (n: number) => unitHash(key, SALT.profile, n);
  return {
    platform,
    region,
    key,
    bias: (PLATFORM_LEAN[platform] ?? 0) + (trait(1) - 0.5) * 0.5,
    amplitude: 0.45 + 0.35 * trait(2),
    peakHour: 19.5 + 2.5 * trait(3),
    weekendLift: 0.15 + 0.25 * trait(4),
  };
}

/** Smooth noise in [−1, 1] with features about `periodMs` wide: hashed lattice values, smoothstep between them. */
function drift(key: number, salt: number, at: number, periodMs: number): number {
  const position = at / periodMs;
  const cell = Math.floor(position);
  const f = position - cell;
  const s = f * f * (3 - 2 * f);
  const a = unitHash(key, salt, cell) * 2 - 1;
  const b = unitHash(key, salt, cell + 1) * 2 - 1;
  return a + (b - a) * s;
}

/** Start of the game's refresh period that holds `at`: everything read within it is the same. */
export function refreshStart(at: number): number {
  const period = GAME_REFRESH_SECONDS * 1000;
  return Math.floor(at / period) * period;
}

/** The queue pressure of a slot at an instant (held constant through each refresh period). */
export function pressureAt(model: SlotModel, at: number, clock: ZoneClock): number {
  const t = refreshStart(at);
  const hour = clock.localHourOfDay(t);
  const dayOfWeek = clock.localHour(t).dayOfWeek;
  const phase = (2 * Math.PI * (hour - model.peakHour)) / 24;
  const daily = model.amplitude * (Math.cos(phase) + 0.3 * Math.cos(2 * phase + Math.PI / 3));
  let weekend = 0;
  if (isWeekend(dayOfWeek)) weekend = model.weekendLift * (0.6 + 0.4 * Math.cos((2 * Math.PI * (hour - 15)) / 24));
  else if (dayOfWeek === 5 && hour >= 17) weekend = 0.5 * model.weekendLift;
  const slow = SLOW_DRIFT.amplitude * drift(model.key, SALT.drift, t, SLOW_DRIFT.periodMs) + DAYS_DRIFT.amplitude * drift(model.key, SALT.days, t, DAYS_DRIFT.periodMs);
  const jitter = JITTER * (2 * unitHash(model.key, SALT.jitter, t / 1000) - 1);
  return model.bias + daily + weekend + slow + jitter;
}

/** The bonus level a pressure earns for the scarce role: 0 below the threshold, then steps of 25 up to 150. */
export function levelFor(pressure: number): number {
  if (pressure < BONUS_THRESHOLD) return 0;
  const steps = 1 + Math.floor((pressure - BONUS_THRESHOLD) / BONUS_STEP);
  return Math.min(LEVELS[LEVELS.length - 1] ?? 150, steps * 25);
}

/** What an agent of the slot reads at an instant. */
export function readingAt(model: SlotModel, at: number, clock: ZoneClock): SimReading {
  const pressure = pressureAt(model, at, clock);
  return {
    survivor: levelFor(-pressure),
    killer: levelFor(pressure),
    // Killers per survivor in the queue (SPEC §7): the pressure that earns killers a bonus is a shortage of killers.
    ratio: Math.max(0.01, Math.round(Math.exp(-pressure) * 100) / 100),
  };
}

/** Whether the slot's agent is down at an instant: outages start at whole hours and last 1 to 12 hours. */
export function inOutage(model: SlotModel, at: number): boolean {
  const hour = Math.floor(at / HOUR_MS);
  for (let back = 0; back < OUTAGE_MAX_HOURS; back++) {
    const start = hour - back;
    if (unitHash(model.key, SALT.outage, start) >= OUTAGE_START_CHANCE) continue;
    const length = 1 + Math.floor(unitHash(model.key, SALT.outageLength, start) * OUTAGE_MAX_HOURS);
    if (back < length) return true;
  }
  return false;
}
