/**
 * How often each agent polls, and when. The hub owns the cadence: it turns
 * each agent's min/max expressions into seconds and spaces the agents of one
 * (platform, region) so that their polls spread evenly over time.
 */
import { evaluateCadence, parseCadence } from "./cadence-expression.ts";

/** Until an agent has reported the game's refresh interval, placeholders mean this. */
export const BOOTSTRAP_REFRESH_SECONDS = 300;
export const MIN_POLL_SECONDS = 300;
const DEFAULT_MAX_FACTOR = 1.33;
const PHASE_STEP_SECONDS = 5;
const LCM_CAP_SECONDS = 2 * 60 * 60;

/** Every figure of the cadence rounds half up. */
export function roundHalfUp(value: number): number {
  return Math.floor(value + 0.5);
}

export interface CadenceSource {
  /** The agent's own override, or null for the global default. */
  readonly pollMin: string | null;
  readonly pollMax: string | null;
}

export interface CadenceDefaults {
  readonly pollMin: string;
  readonly pollMax: string | null;
}

export interface PollWindow {
  readonly min: number;
  readonly max: number;
}

/**
 * The poll window of one agent in a group of `groupSize` enabled agents.
 * `refreshTime` is the group's learned refresh interval, or null if unknown.
 */
export function pollWindow(source: CadenceSource, defaults: CadenceDefaults, refreshTime: number | null, groupSize: number): PollWindow {
  const refresh = refreshTime ?? BOOTSTRAP_REFRESH_SECONDS;
  const minExpr = source.pollMin ?? defaults.pollMin;
  const maxExpr = source.pollMax ?? defaults.pollMax;
  const min = Math.max(MIN_POLL_SECONDS, roundHalfUp(evaluateCadence(parseCadence(minExpr), refresh)));
  const wanted = maxExpr === null ? roundHalfUp(min * DEFAULT_MAX_FACTOR) : roundHalfUp(evaluateCadence(parseCadence(maxExpr), refresh));
  const cap = roundHalfUp(min + min / (2 * Math.max(1, groupSize)));
  return { min, max: Math.min(Math.max(wanted, min), cap) };
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** Least common multiple of periods given in half-second units, capped. */
function horizon(periods: readonly number[]): { seconds: number; periodic: boolean } {
  let lcm = 1;
  for (const period of periods) {
    const halves = Math.round(period * 2);
    lcm = (lcm / gcd(lcm, halves)) * halves;
    if (lcm / 2 > LCM_CAP_SECONDS) return { seconds: LCM_CAP_SECONDS, periodic: false };
  }
  return { seconds: lcm / 2, periodic: true };
}

function smallestGap(times: number[], span: number, periodic: boolean): number {
  times.sort((a, b) => a - b);
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < times.length; i++) smallest = Math.min(smallest, (times[i] ?? 0) - (times[i - 1] ?? 0));
  const first = times[0];
  const last = times.at(-1);
  if (periodic && first !== undefined && last !== undefined && times.length > 1) smallest = Math.min(smallest, first + span - last);
  return smallest;
}

function pollTimes(period: number, phase: number, span: number, into: number[]): void {
  for (let t = phase; t < span; t += period) into.push(t);
}

/**
 * Phase offsets (seconds) for the agents of one group, in the order given
 * (callers order by agent id). Equal periods are spaced evenly; otherwise the
 * most common period (ties: the shorter) is the evenly spaced backbone and
 * every other agent, in order, takes the phase in 5 s steps that keeps the
 * smallest gap between all polls over the common horizon as large as possible.
 */
export function spacePhases(periods: readonly number[]): number[] {
  const n = periods.length;
  if (n === 0) return [];
  const first = periods[0] ?? 0;
  if (periods.every((p) => p === first)) return periods.map((p, i) => roundHalfUp((i * p) / n));

  const counts = new Map<number, number>();
  for (const p of periods) counts.set(p, (counts.get(p) ?? 0) + 1);
  let backbone = first;
  for (const [period, count] of counts) {
    const best = counts.get(backbone) ?? 0;
    if (count > best || (count === best && period < backbone)) backbone = period;
  }
  const backboneCount = counts.get(backbone) ?? 1;
  const { seconds: span, periodic } = horizon([...counts.keys()]);

  const phases: (number | null)[] = periods.map(() => null);
  const placed: number[] = [];
  let j = 0;
  periods.forEach((period, i) => {
    if (period !== backbone) return;
    const phase = roundHalfUp((j++ * backbone) / backboneCount);
    phases[i] = phase;
    pollTimes(period, phase, span, placed);
  });
  periods.forEach((period, i) => {
    if (phases[i] !== null) return;
    let bestPhase = 0;
    let bestGap = Number.NEGATIVE_INFINITY;
    for (let phase = 0; phase < period; phase += PHASE_STEP_SECONDS) {
      const times = [...placed];
      pollTimes(period, phase, span, times);
      const gap = smallestGap(times, span, periodic);
      if (gap > bestGap) {
        bestGap = gap;
        bestPhase = phase;
      }
    }
    phases[i] = bestPhase;
    pollTimes(period, bestPhase, span, placed);
  });
  return phases.map((p) => p ?? 0);
}

export interface GroupMember extends CadenceSource {
  readonly id: number;
}

export interface Assignment {
  readonly region: string;
  readonly platform: string;
  readonly pollMinSeconds: number;
  readonly pollMaxSeconds: number;
  readonly phaseOffsetSeconds: number;
  readonly probeImmediately: boolean;
}

/** Assignments of every enabled agent of one (platform, region), keyed by agent id. */
export function assignGroup(
  platform: string,
  region: string,
  members: readonly GroupMember[],
  defaults: CadenceDefaults,
  refreshTime: number | null,
): Map<number, Assignment> {
  const ordered = [...members].sort((a, b) => a.id - b.id);
  const windows = ordered.map((m) => pollWindow(m, defaults, refreshTime, ordered.length));
  const phases = spacePhases(windows.map((w) => (w.min + w.max) / 2));
  const out = new Map<number, Assignment>();
  ordered.forEach((member, i) => {
    const window = windows[i] ?? { min: MIN_POLL_SECONDS, max: MIN_POLL_SECONDS };
    out.set(member.id, {
      region,
      platform,
      pollMinSeconds: window.min,
      pollMaxSeconds: window.max,
      phaseOffsetSeconds: phases[i] ?? 0,
      probeImmediately: i === 0 && refreshTime === null,
    });
  });
  return out;
}
