/**
 * The rules of an agent's event report (SPEC §9.1), pure: which entries of a
 * report are read, and why each one that is not was skipped. A report is the
 * game's whole schedule as the agent read it, so one bad entry never costs
 * the others.
 */
import { characters } from "../domain/characters.ts";
import { AGENT_MULTIPLIER_RANGE, brokenEventBound, EVENT_BOUNDS, eventIdentity, plainLabel, type ReportedEvent } from "../domain/events.ts";
import { parseIsoTime } from "../domain/iso-time.ts";

/** Entries past this many are not read at all (SPEC §16.3). */
export const MAX_REPORT_ENTRIES = 50;
/** One report per agent per this long. */
export const REPORT_INTERVAL_MS = 15_000;
export const MULTIPLIER_RANGE = AGENT_MULTIPLIER_RANGE;
export const MAX_EVENT_KEY = 64;

/** Why an entry was skipped; the label of /metrics and the words of the log. */
export const SKIP_REASONS = {
  entry: "not an object",
  key: `key is not a string of 1 to ${MAX_EVENT_KEY} characters`,
  label: "label is not a string",
  multiplier: `multiplier is not a finite number in [${MULTIPLIER_RANGE[0]}, ${MULTIPLIER_RANGE[1]}]`,
  startsAt: "startsAt is not an ISO-8601 time with a zone",
  endsAt: "endsAt is not an ISO-8601 time with a zone after startsAt",
  ...EVENT_BOUNDS,
  duplicate: "the report already holds an event with this key and startsAt",
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

export interface SkippedEntry {
  /** 0-based index in the report's `events`. */
  readonly index: number;
  readonly reason: SkipReason;
}

export interface ReadReport {
  /** The entries read, in the report's order. */
  readonly events: readonly ReportedEvent[];
  readonly skipped: readonly SkippedEntry[];
  /** Entries past MAX_REPORT_ENTRIES, which were not read. */
  readonly unread: number;
}

function readEntry(value: unknown, now: number): ReportedEvent | SkipReason {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "entry";
  const entry = value as Record<string, unknown>;
  const { key, label, multiplier } = entry;
  if (typeof key !== "string" || key.length === 0 || characters(key) > MAX_EVENT_KEY) return "key";
  if (typeof label !== "string") return "label";
  if (typeof multiplier !== "number" || !Number.isFinite(multiplier) || multiplier < MULTIPLIER_RANGE[0] || multiplier > MULTIPLIER_RANGE[1]) return "multiplier";
  const startsAt = parseIsoTime(entry.startsAt);
  if (startsAt === null) return "startsAt";
  const endsAt = parseIsoTime(entry.endsAt);
  if (endsAt === null || endsAt <= startsAt) return "endsAt";
  const broken = brokenEventBound(startsAt, endsAt, now);
  if (broken !== null) return broken;
  return { key, label: plainLabel(label, key), multiplier, startsAt, endsAt };
}

/** The report's entries, each checked on its own against the clock; null when the body is not an object with an `events` array. */
export function readEventReport(body: unknown, now: number): ReadReport | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const list = (body as Record<string, unknown>).events;
  if (!Array.isArray(list)) return null;
  const events: ReportedEvent[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  list.slice(0, MAX_REPORT_ENTRIES).forEach((value: unknown, index) => {
    const read = readEntry(value, now);
    if (typeof read === "string") {
      skipped.push({ index, reason: read });
      return;
    }
    // The hub tells agent events apart by key and start, so a second entry with both would be the same event twice.
    const identity = eventIdentity(read);
    if (seen.has(identity)) {
      skipped.push({ index, reason: "duplicate" });
      return;
    }
    seen.add(identity);
    events.push(read);
  });
  return { events, skipped, unread: Math.max(0, list.length - MAX_REPORT_ENTRIES) };
}
