/**
 * Bloodpoint events: which one is in force for a platform right now, and
 * which are coming. Admins define events; agents report the game's schedule
 * (SPEC §9.1) and the event they see in a reading. The highest multiplier
 * wins, an admin-defined event wins a tie, then the earliest end.
 */
import { PLATFORMS } from "./catalogue.ts";
import { characters } from "./characters.ts";
import { DAY_MS } from "./timezone.ts";

/** Who put an event on the schedule. */
export const EVENT_SOURCES = ["admin", "agent"] as const;
export type EventSource = (typeof EVENT_SOURCES)[number];

/** What becomes of an agent's event reports (SPEC §16.3): scheduled, or answered and dropped. */
export const EVENT_REPORT_MODES = ["accepted", "ignored"] as const;
export type EventReportMode = (typeof EVENT_REPORT_MODES)[number];

/** An event as an agent reports it (in a reading's activeEvent or a report). */
export interface ReportedEvent {
  readonly key: string;
  readonly label: string;
  readonly multiplier: number;
  readonly startsAt: number;
  readonly endsAt: number;
}

/** An event of the events table: one an admin defined, or one of the schedule agents report. */
export interface ScheduledEvent extends ReportedEvent {
  readonly id: number;
  /** Null means every platform. */
  readonly platforms: readonly string[] | null;
  readonly source: EventSource;
  /** The agent that reported it (agent events whose agent still exists), else null. */
  readonly agentId: number | null;
}

/** An event an agent saw in a reading: it holds for the reading's platform only. */
export interface SeenEvent {
  readonly platform: string;
  readonly event: ReportedEvent;
}

export interface PublicEvent {
  readonly key: string;
  readonly label: string;
  readonly multiplier: number;
  readonly startsAt: string;
  readonly endsAt: string;
}

/** An entry of GET /api/v1/events. */
export interface ListedEvent extends PublicEvent {
  readonly platforms: string[] | null;
  readonly source: EventSource;
}

/** An event a viewer may see: hidden ones are already left out. */
export interface EventCandidate {
  readonly event: ReportedEvent;
  readonly platforms: readonly string[] | null;
  readonly source: EventSource;
}

export const MAX_EVENT_LABEL = 120;

/** An agent's multiplier, in a report or a reading's activeEvent (SPEC §9.1, §16.3); admins may set any above 0. */
export const AGENT_MULTIPLIER_RANGE = [1, 100] as const;

const MINUTE_MS = 60_000;
/**
 * How long an event an agent reports may last, in a report or a reading's
 * activeEvent: the game's events last hours to weeks, never moments or months
 * (SPEC §16.3, §16.4).
 */
export const EVENT_DURATION_RANGE_MS = [10 * MINUTE_MS, 31 * DAY_MS] as const;
/** How far ahead of the hub's clock an event an agent reports may start. */
export const MAX_START_AHEAD_MS = 60 * DAY_MS;

/** The bounds of an agent-reported event, as a rule's words. */
export const EVENT_BOUNDS_RULE = `last ${EVENT_DURATION_RANGE_MS[0] / MINUTE_MS} minutes to ${EVENT_DURATION_RANGE_MS[1] / DAY_MS} days and start at most ${MAX_START_AHEAD_MS / DAY_MS} days ahead`;

/** The bounds of an agent-reported event, each with the words that say it is broken. */
export const EVENT_BOUNDS = {
  duration: `the event does not last between ${EVENT_DURATION_RANGE_MS[0] / MINUTE_MS} minutes and ${EVENT_DURATION_RANGE_MS[1] / DAY_MS} days`,
  ahead: `the event starts more than ${MAX_START_AHEAD_MS / DAY_MS} days ahead`,
} as const;
export type EventBound = keyof typeof EVENT_BOUNDS;

/** Which bound an agent-reported event breaks (the first), or null when it keeps them. */
export function brokenEventBound(startsAt: number, endsAt: number, now: number): EventBound | null {
  const duration = endsAt - startsAt;
  if (duration < EVENT_DURATION_RANGE_MS[0] || duration > EVENT_DURATION_RANGE_MS[1]) return "duration";
  if (startsAt > now + MAX_START_AHEAD_MS) return "ahead";
  return null;
}

/**
 * C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and
 * isolates, which reorder the text around them wherever the label is shown.
 */
const CONTROL_CHARACTERS = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** The first `max` characters (code points, so a surrogate pair is never split). */
function cut(text: string, max: number): string {
  return characters(text) <= max ? text : Array.from(text).slice(0, max).join("");
}

/** An agent's label as plain text: control characters removed, trimmed, at most 120 characters; the key when nothing is left. */
export function plainLabel(label: string, key: string): string {
  const plain = (text: string) => cut(text.replace(CONTROL_CHARACTERS, "").trim(), MAX_EVENT_LABEL).trim();
  return plain(label) || plain(key) || key;
}

/** Agent events are one event wherever they were reported when key and start agree; hiding one hides it everywhere. */
export function eventIdentity(event: { readonly key: string; readonly startsAt: number }): string {
  return `${event.key}\u0000${event.startsAt}`;
}

/**
 * What viewers may see: every event of the schedule and every event seen in
 * readings, less the hidden agent events (matched by key and start).
 */
export function visibleEvents(scheduled: readonly ScheduledEvent[], seen: readonly SeenEvent[], hidden: ReadonlySet<string>): EventCandidate[] {
  const out: EventCandidate[] = [];
  for (const event of scheduled) {
    if (event.source === "agent" && hidden.has(eventIdentity(event))) continue;
    out.push({ event, platforms: event.platforms, source: event.source });
  }
  for (const { platform, event } of seen) {
    if (hidden.has(eventIdentity(event))) continue;
    out.push({ event, platforms: [platform], source: "agent" });
  }
  return out;
}

function inForce(event: ReportedEvent, now: number): boolean {
  return event.startsAt <= now && now < event.endsAt;
}

function appliesTo(candidate: EventCandidate, platform: string): boolean {
  return candidate.platforms === null || candidate.platforms.includes(platform);
}

export function toPublicEvent(event: ReportedEvent): PublicEvent {
  return {
    key: event.key,
    label: event.label,
    multiplier: event.multiplier,
    startsAt: new Date(event.startsAt).toISOString(),
    endsAt: new Date(event.endsAt).toISOString(),
  };
}

/** Which of two events wins: the higher multiplier, then an admin's, then the one ending first, then by key. */
function byPrecedence(a: EventCandidate, b: EventCandidate): number {
  return (
    b.event.multiplier - a.event.multiplier ||
    Number(b.source === "admin") - Number(a.source === "admin") ||
    a.event.endsAt - b.event.endsAt ||
    a.event.key.localeCompare(b.event.key)
  );
}

export function selectActiveEvent(platform: string, now: number, candidates: readonly EventCandidate[]): PublicEvent | null {
  const winner = candidates
    .filter((c) => appliesTo(c, platform) && inForce(c.event, now))
    .sort(byPrecedence)[0];
  return winner ? toPublicEvent(winner.event) : null;
}

/** The next instant after `now` at which any of these events that applies to the platform starts or ends, or null. */
export function nextEventBoundary(platform: string, now: number, candidates: readonly EventCandidate[]): number | null {
  let next: number | null = null;
  for (const candidate of candidates) {
    if (!appliesTo(candidate, platform)) continue;
    for (const at of [candidate.event.startsAt, candidate.event.endsAt]) {
      if (at > now && (next === null || at < next)) next = at;
    }
  }
  return next;
}

/**
 * The event that starts next on the platform (hidden ones already left out):
 * the earliest start after `now`, then as selectActiveEvent breaks ties. It
 * rides in the platform's payload, so an event scheduled, changed or hidden
 * reaches every open board through the stream (SPEC §16.3); null when none.
 */
export function selectNextEvent(platform: string, now: number, candidates: readonly EventCandidate[]): PublicEvent | null {
  const next = candidates
    .filter((c) => appliesTo(c, platform) && c.event.startsAt > now)
    .sort((a, b) => a.event.startsAt - b.event.startsAt || byPrecedence(a, b))[0];
  return next ? toPublicEvent(next.event) : null;
}

/**
 * The public schedule: events in force now (by end), then every kept event
 * still to come (by start), however far ahead: agents' entries are kept up
 * to 60 days ahead (SPEC §16.3), an admin's as set. An agent event reported on several
 * platforms, or both in a reading and in the schedule, is listed once with
 * the union of its platforms; admin events are listed as they were made.
 */
export function listEvents(now: number, candidates: readonly EventCandidate[]): ListedEvent[] {
  const merged = new Map<string, { event: ReportedEvent; platforms: Set<string> | null; source: EventSource }>();
  let adminIndex = 0;
  for (const candidate of candidates) {
    const { event } = candidate;
    if (event.endsAt <= now) continue;
    const id = candidate.source === "admin" ? `admin\u0000${adminIndex++}` : eventIdentity(event);
    const entry = merged.get(id);
    if (!entry) {
      merged.set(id, { event, platforms: candidate.platforms === null ? null : new Set(candidate.platforms), source: candidate.source });
      continue;
    }
    if (candidate.platforms === null) {
      // The schedule covers every platform and speaks for the event; a reading's copy adds nothing.
      merged.set(id, { event, platforms: null, source: candidate.source });
    } else if (entry.platforms !== null) {
      for (const platform of candidate.platforms) entry.platforms.add(platform);
    }
  }
  const listed = [...merged.values()];
  const running = listed.filter((e) => inForce(e.event, now)).sort((a, b) => a.event.endsAt - b.event.endsAt || a.event.key.localeCompare(b.event.key));
  const upcoming = listed.filter((e) => !inForce(e.event, now)).sort((a, b) => a.event.startsAt - b.event.startsAt || a.event.key.localeCompare(b.event.key));
  return [...running, ...upcoming].map(({ event, platforms, source }) => ({
    ...toPublicEvent(event),
    platforms: platforms === null ? null : PLATFORMS.filter((p) => platforms.has(p)),
    source,
  }));
}
