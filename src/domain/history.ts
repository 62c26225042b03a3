/**
 * The pure parts of the history endpoint (SPEC §7): which window a request
 * asks for, and how wide its buckets are.
 */
import { DAY_MS, HOUR_MS } from "./timezone.ts";

/** At most this many readings are returned one by one; beyond it they are bucketed. */
export const MAX_HISTORY_POINTS = 1500;
export const DEFAULT_HISTORY_SPAN_MS = 24 * HOUR_MS;

const MINUTE_MS = 60_000;

/** Bucket widths, narrowest first. */
export const BUCKET_WIDTHS_MS: readonly number[] = [
  MINUTE_MS,
  5 * MINUTE_MS,
  15 * MINUTE_MS,
  30 * MINUTE_MS,
  HOUR_MS,
  3 * HOUR_MS,
  6 * HOUR_MS,
  12 * HOUR_MS,
  DAY_MS,
  7 * DAY_MS,
];

/** The narrowest width that cuts the span into at most 1500 buckets; the widest one when none does. */
export function bucketWidthFor(spanMs: number): number {
  for (const width of BUCKET_WIDTHS_MS) if (spanMs / width <= MAX_HISTORY_POINTS) return width;
  return BUCKET_WIDTHS_MS[BUCKET_WIDTHS_MS.length - 1] ?? 7 * DAY_MS;
}

/** Start of the epoch-aligned bucket of width w that holds t. */
export function bucketStart(t: number, width: number): number {
  return t - (((t % width) + width) % width);
}

export interface HistoryWindowInput {
  /** The raw query values, if given. */
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly now: number;
  readonly retentionMs: number;
}

export type HistoryWindow =
  | { readonly ok: true; readonly from: number; readonly to: number }
  | { readonly ok: false; readonly location: "query.from" | "query.to"; readonly detail: string };

const INTEGER = /^-?\d+$/;

type Parsed = { readonly ms: number } | { readonly problem: string } | undefined;

function epochMs(name: string, value: string | undefined): Parsed {
  if (value === undefined) return undefined;
  if (!INTEGER.test(value)) return { problem: `${name} must be an integer: epoch milliseconds.` };
  const ms = Number(value);
  if (!Number.isSafeInteger(ms)) return { problem: `${name} is out of range; give epoch milliseconds.` };
  return { ms };
}

/**
 * Resolves the window in the order the specification gives: integers are
 * checked first; `to` defaults to now and is clamped to it; `from` defaults to
 * `to` − 24 h and must be before `to`; then `from` is raised to the retention
 * window. Both ends are included.
 */
export function resolveHistoryWindow(input: HistoryWindowInput): HistoryWindow {
  const rawFrom = epochMs("from", input.from);
  const rawTo = epochMs("to", input.to);
  if (rawFrom && "problem" in rawFrom) return { ok: false, location: "query.from", detail: rawFrom.problem };
  if (rawTo && "problem" in rawTo) return { ok: false, location: "query.to", detail: rawTo.problem };
  const to = Math.min(rawTo?.ms ?? input.now, input.now);
  const from = rawFrom?.ms ?? to - DEFAULT_HISTORY_SPAN_MS;
  if (from >= to) return { ok: false, location: "query.from", detail: `from (${from}) must be before to (${to}); to is never later than now.` };
  return { ok: true, from: Math.max(from, to - input.retentionMs), to };
}
