/**
 * "When to play" (SPEC §7 patterns): for each UTC (weekday, hour) of the
 * window, how often each role had a bonus and how big it usually was. Pure;
 * the route reads the series and the client shifts the cells to the viewer's
 * time zone.
 */
import type { ReadingSeries } from "./forecast.ts";

export const PATTERN_WEEKS = { min: 1, max: 52, default: 8 } as const;
export const WEEK_MS = 7 * 24 * 3_600_000;

export interface PatternCell {
  readonly day: number;
  readonly hour: number;
  readonly readings: number;
  readonly survivorShare: number;
  readonly killerShare: number;
  readonly survivorMedian: number | null;
  readonly killerMedian: number | null;
}

/** Whole weeks the retention window holds (at least one, so a short retention still answers). */
export function retentionWeeks(retentionDays: number): number {
  return Math.max(1, Math.floor(retentionDays / 7));
}

/** The weeks to use: the default when none is asked, else the asked number clamped to what retention holds. */
export function patternWeeks(asked: number | undefined, retentionDays: number): number {
  const held = retentionWeeks(retentionDays);
  return Math.min(asked ?? PATTERN_WEEKS.default, held);
}

/** The median of the bonuses above 0, as a level actually read (the lower middle of an even count); null when none. */
function medianOf(values: number[]): number | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  return values[Math.floor((values.length - 1) / 2)] ?? null;
}

export function weekHourPatterns(series: ReadingSeries): PatternCell[] {
  const counts = new Int32Array(168);
  const survivors: number[][] = Array.from({ length: 168 }, () => []);
  const killers: number[][] = Array.from({ length: 168 }, () => []);
  for (let i = 0; i < series.length; i++) {
    const at = new Date(series.t[i] ?? 0);
    const cell = ((at.getUTCDay() + 6) % 7) * 24 + at.getUTCHours();
    counts[cell] = (counts[cell] ?? 0) + 1;
    const survivor = series.survivor[i] ?? 0;
    const killer = series.killer[i] ?? 0;
    if (survivor > 0) survivors[cell]?.push(survivor);
    if (killer > 0) killers[cell]?.push(killer);
  }
  const cells: PatternCell[] = [];
  for (let cell = 0; cell < 168; cell++) {
    const readings = counts[cell] ?? 0;
    const s = survivors[cell] ?? [];
    const k = killers[cell] ?? [];
    cells.push({
      day: Math.floor(cell / 24),
      hour: cell % 24,
      readings,
      survivorShare: readings === 0 ? 0 : s.length / readings,
      killerShare: readings === 0 ? 0 : k.length / readings,
      survivorMedian: medianOf(s),
      killerMedian: medianOf(k),
    });
  }
  return cells;
}
