/** The region page's pure parts: the live edge of the history and the patterns in the viewer's time zone. Tested without a browser. */
import type { HistoryRangePayload, PatternsPayload, RegionIncentive } from "./api/client.ts";

/** The history with the live reading appended, so its right edge moves when a reading lands (only while the window ends now). */
export function withLive(body: HistoryRangePayload, live: RegionIncentive | null): HistoryRangePayload {
  if (!live?.isReal || !live.lastUpdated) return body;
  const at = Date.parse(live.lastUpdated);
  const last = body.points.at(-1);
  if (last && at <= last.t) return body;
  return { ...body, lastAt: at, points: [...body.points, { t: at, survivor: live.survivor, killer: live.killer }] };
}

const HOUR = 3_600_000;
/** A Monday 00:00 UTC: each cell is placed at its instant of this week to find its local weekday and hour. */
const MONDAY = Date.UTC(2026, 0, 5);

export interface LocalCell {
  /** 0 = Monday, in the viewer's time zone. */
  readonly day: number;
  readonly hour: number;
  readonly share: number;
  readonly median: number | null;
}

/** The cells of one role in the viewer's time zone, indexed day × 24 + hour. */
export function localCells(cells: PatternsPayload["cells"], role: "survivor" | "killer"): LocalCell[] {
  const local: LocalCell[] = [];
  for (const cell of cells) {
    const at = new Date(MONDAY + (cell.day * 24 + cell.hour) * HOUR);
    const day = (at.getDay() + 6) % 7;
    local[day * 24 + at.getHours()] = { day, hour: at.getHours(), share: role === "survivor" ? cell.survivorShare : cell.killerShare, median: role === "survivor" ? cell.survivorMedian : cell.killerMedian };
  }
  return local;
}

/** The three local hours that paid best: how often times how much. */
export function bestHours(cells: readonly LocalCell[]): LocalCell[] {
  return cells
    .filter((c) => c !== undefined && c.share > 0 && c.median !== null)
    .sort((a, b) => b.share * (b.median ?? 0) - a.share * (a.median ?? 0))
    .slice(0, 3);
}

