/**
 * The acceptance rules for an agent's reading (SPEC §9), checked in order so
 * that a refusal names the first rule broken. Pure: the caller supplies the
 * agent's assignment, the clock, when the agent's previous reading arrived and
 * whether the probe exception of rule 5 applies.
 */
import { characters } from "./characters.ts";
import { AGENT_MULTIPLIER_RANGE, brokenEventBound, EVENT_BOUNDS, EVENT_BOUNDS_RULE, plainLabel, type ReportedEvent } from "./events.ts";
import { parseIsoTime } from "./iso-time.ts";

export const MAX_FUTURE_MS = 60_000;
export const MAX_PAST_MS = 10 * 60_000;
export const MAX_BONUS = 1000;
export const MAX_RATIO = 100_000;
export const MAX_LABEL_LENGTH = 64;
export const REFRESH_TIME_RANGE = [1, 21_600] as const;
export const RATE_FACTOR = 0.8;

export interface AcceptedReading {
  readonly region: string;
  readonly platform: string;
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
  readonly measuredAt: number;
  readonly version: string | null;
  readonly category: string | null;
  /** Null when absent or outside 1–21600 (such values are ignored, not refused). */
  readonly refreshTimeSeconds: number | null;
  /** Null when absent or not a well-formed event (ignored, not refused). */
  readonly activeEvent: ReportedEvent | null;
}

export interface Refusal {
  readonly status: 400 | 429;
  readonly rule: number;
  readonly detail: string;
  readonly location: string;
  readonly retryAfterSeconds?: number;
}

/**
 * `duplicate`: the reading repeats the agent's previous one (same time and
 * values), so it is an agent retrying a post whose answer it never got: it is
 * answered again, not stored again, and rule 5 does not apply to it.
 */
export type Verdict = { readonly ok: true; readonly reading: AcceptedReading; readonly duplicate: boolean } | { readonly ok: false; readonly refusal: Refusal };

/** What of the agent's previous accepted reading makes a post a retry of it. */
export interface PreviousReading {
  readonly measuredAt: number;
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
}

export interface ReadingContext {
  readonly region: string;
  readonly platform: string;
  readonly now: number;
  readonly pollMinSeconds: number;
  /** Rule 5 never asks for a longer wait than this. */
  readonly pollMaxSeconds: number;
  /** When the agent's previous accepted reading arrived (epoch ms), or null. */
  readonly previousAcceptedAt: number | null;
  /** The agent's previous accepted reading, or null. */
  readonly previous: PreviousReading | null;
  /**
   * This would be the agent's second accepted reading and its first was a
   * probe: rule 5 lets it through, once, because after probing an agent moves
   * onto its phase, which may come sooner than the spacing.
   */
  readonly secondAfterProbe: boolean;
}

function refuse(rule: number, location: string, detail: string): Verdict {
  return { ok: false, refusal: { status: 400, rule, location, detail: `Rule ${rule}: ${detail}` } };
}

function isBonus(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_BONUS;
}

function isRatio(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_RATIO;
}

function optionalLabel(value: unknown): { ok: boolean; value: string | null } {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value === "string" && characters(value) <= MAX_LABEL_LENGTH) return { ok: true, value };
  return { ok: false, value: null };
}

function isAgentMultiplier(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= AGENT_MULTIPLIER_RANGE[0] && value <= AGENT_MULTIPLIER_RANGE[1];
}

/**
 * A number outside 1–100 as activeEvent's multiplier: refused like every
 * value rule (SPEC §16.3), where an activeEvent malformed otherwise is ignored.
 */
function multiplierOutOfRange(activeEvent: unknown): boolean {
  if (activeEvent === null || typeof activeEvent !== "object" || Array.isArray(activeEvent)) return false;
  const { multiplier } = activeEvent as Record<string, unknown>;
  return typeof multiplier === "number" && !isAgentMultiplier(multiplier);
}

/** A well-formed reported event, or null. */
export function parseReportedEvent(value: unknown): ReportedEvent | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const event = value as Record<string, unknown>;
  const { key, label, multiplier } = event;
  const startsAt = parseIsoTime(event.startsAt);
  const endsAt = parseIsoTime(event.endsAt);
  if (typeof key !== "string" || key.length < 1 || characters(key) > 64) return null;
  if (typeof label !== "string" || characters(label) > 120) return null;
  if (!isAgentMultiplier(multiplier)) return null;
  if (startsAt === null || endsAt === null || endsAt <= startsAt) return null;
  return { key, label: plainLabel(label, key), multiplier, startsAt, endsAt };
}

export function checkReading(body: unknown, context: ReadingContext): Verdict {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return refuse(1, "body", "the reading must be a JSON object with region, platform, survivor, killer, ratio, isReal and measuredAt.");
  }
  const input = body as Record<string, unknown>;

  if (input.region !== context.region || input.platform !== context.platform) {
    const location = input.region !== context.region ? "body.region" : "body.platform";
    return refuse(1, location, `region and platform must equal this agent's assignment (${context.region} on ${context.platform}).`);
  }
  if (input.isReal !== true) return refuse(2, "body.isReal", "isReal must be true; the hub stores only real readings.");

  const measuredAt = parseIsoTime(input.measuredAt);
  if (measuredAt === null) return refuse(3, "body.measuredAt", "measuredAt must be an ISO-8601 time with a zone, such as 2026-11-21T18:04:05.123Z.");
  if (measuredAt > context.now + MAX_FUTURE_MS) return refuse(3, "body.measuredAt", "measuredAt is more than 60 s in the future; check the agent's clock.");
  if (measuredAt < context.now - MAX_PAST_MS) return refuse(3, "body.measuredAt", "measuredAt is more than 10 minutes in the past.");

  if (!isBonus(input.survivor)) return refuse(4, "body.survivor", `survivor must be an integer from 0 to ${MAX_BONUS}.`);
  if (!isBonus(input.killer)) return refuse(4, "body.killer", `killer must be an integer from 0 to ${MAX_BONUS}.`);
  const ratio = input.ratio;
  if (!isRatio(ratio)) {
    return refuse(4, "body.ratio", `ratio must be a finite number greater than 0 and at most ${MAX_RATIO}.`);
  }

  const previous = context.previous;
  const duplicate =
    previous !== null && previous.measuredAt === measuredAt && previous.survivor === input.survivor && previous.killer === input.killer && previous.ratio === ratio;
  // An arrival stamped ahead of the clock was stamped by a clock that has since gone back; waiting for it would lock the agent out.
  const previousAt = context.previousAcceptedAt !== null && context.previousAcceptedAt <= context.now + MAX_FUTURE_MS ? context.previousAcceptedAt : null;
  if (previousAt !== null && !context.secondAfterProbe && !duplicate) {
    const spacingMs = RATE_FACTOR * context.pollMinSeconds * 1000;
    const waitMs = previousAt + spacingMs - context.now;
    if (waitMs > 0) {
      const retryAfterSeconds = Math.min(context.pollMaxSeconds, Math.max(1, Math.ceil(waitMs / 1000)));
      return {
        ok: false,
        refusal: {
          status: 429,
          rule: 5,
          location: "body",
          retryAfterSeconds,
          detail: `Rule 5: readings must be at least ${Math.round(spacingMs / 1000)} s apart (0.8 × pollMinSeconds); retry in ${retryAfterSeconds} s.`,
        },
      };
    }
  }

  const version = optionalLabel(input.version);
  if (!version.ok) return refuse(6, "body.version", `version must be a string of at most ${MAX_LABEL_LENGTH} characters.`);
  const category = optionalLabel(input.category);
  if (!category.ok) return refuse(6, "body.category", `category must be a string of at most ${MAX_LABEL_LENGTH} characters.`);
  if (multiplierOutOfRange(input.activeEvent)) {
    return refuse(6, "body.activeEvent.multiplier", `activeEvent.multiplier must be a number from ${AGENT_MULTIPLIER_RANGE[0]} to ${AGENT_MULTIPLIER_RANGE[1]}.`);
  }
  const activeEvent = parseReportedEvent(input.activeEvent);
  // The bounds of a report's entry (SPEC §16.4): an event lasting until the year 9999 is refused, not shown.
  const broken = activeEvent === null ? null : brokenEventBound(activeEvent.startsAt, activeEvent.endsAt, context.now);
  if (broken !== null) {
    return refuse(6, `body.activeEvent.${broken === "duration" ? "endsAt" : "startsAt"}`, `activeEvent must ${EVENT_BOUNDS_RULE}; ${EVENT_BOUNDS[broken]}.`);
  }
  const refreshTimeSeconds = keptRefreshTime(input.refreshTimeSeconds);

  return {
    ok: true,
    duplicate,
    reading: {
      region: context.region,
      platform: context.platform,
      survivor: input.survivor,
      killer: input.killer,
      ratio,
      measuredAt,
      version: version.value,
      category: category.value,
      refreshTimeSeconds,
      activeEvent,
    },
  };
}

/** Why a reading that arrives by another way than an agent's post (an import) would have been refused by the rules above, as words for a report. */
export const STORED_READING_PROBLEMS = {
  time: "measuredAt is not a time",
  future: `measuredAt is more than ${MAX_FUTURE_MS / 1000} s in the future`,
  bonus: `survivor or killer is not an integer from 0 to ${MAX_BONUS}`,
  ratio: `ratio is not a number above 0 and at most ${MAX_RATIO}`,
  label: `version or category is not text of at most ${MAX_LABEL_LENGTH} characters`,
} as const;

export interface StoredReadingValues {
  readonly survivor: unknown;
  readonly killer: unknown;
  readonly ratio: unknown;
  readonly version: unknown;
  readonly category: unknown;
  /** Epoch milliseconds. */
  readonly measuredAt: unknown;
}

/**
 * The value rules an agent's reading obeys (3's clock ahead, 4 and 6), for a
 * reading already in stored form, whatever types its columns hold; null when
 * it passes. Rule 3's limit in the past does not apply: history is old.
 */
export function storedReadingProblem(values: StoredReadingValues, now: number): string | null {
  const { measuredAt } = values;
  if (typeof measuredAt !== "number" || !Number.isSafeInteger(measuredAt) || measuredAt < 0) return STORED_READING_PROBLEMS.time;
  if (measuredAt > now + MAX_FUTURE_MS) return STORED_READING_PROBLEMS.future;
  if (!isBonus(values.survivor) || !isBonus(values.killer)) return STORED_READING_PROBLEMS.bonus;
  if (!isRatio(values.ratio)) return STORED_READING_PROBLEMS.ratio;
  if (!optionalLabel(values.version).ok || !optionalLabel(values.category).ok) return STORED_READING_PROBLEMS.label;
  return null;
}

/** A refresh time as an agent's would be kept: within 1–21600 s, else none (ignored, not refused). */
export function keptRefreshTime(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= REFRESH_TIME_RANGE[0] && value <= REFRESH_TIME_RANGE[1] ? value : null;
}
