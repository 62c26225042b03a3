/** The agent protocol: assignment and readings, authenticated by the agent's bearer token. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import { AGENT_MULTIPLIER_RANGE, EVENT_BOUNDS_RULE, EVENT_DURATION_RANGE_MS, MAX_EVENT_LABEL, MAX_START_AHEAD_MS } from "../domain/events.ts";
import { MAX_EVENT_KEY, MAX_REPORT_ENTRIES, MULTIPLIER_RANGE, REPORT_INTERVAL_MS } from "../events/report.ts";
import { ActiveEventSchema, AssignmentSchema, problems } from "../http/schemas.ts";

export const ReadingSubmissionSchema = t.Object(
  {
    region: t.String({ description: "Must equal the agent's assigned region (rule 1)" }),
    platform: t.String({ description: "Must equal the agent's assigned platform (rule 1)" }),
    isReal: t.Boolean({ description: "Must be true (rule 2)" }),
    measuredAt: t.String({ format: "date-time", description: "ISO-8601, at most 60 s in the future and 10 minutes in the past (rule 3)" }),
    survivor: t.Integer({ minimum: 0, maximum: 1000, description: "Survivor bonus percent (rule 4)" }),
    killer: t.Integer({ minimum: 0, maximum: 1000, description: "Killer bonus percent (rule 4)" }),
    ratio: t.Number({ exclusiveMinimum: 0, maximum: 100000, description: "Killer:survivor queue ratio (rule 4)" }),
    version: t.Optional(t.String({ maxLength: 64, description: "Game version (rule 6)" })),
    category: t.Optional(t.String({ maxLength: 64, description: "Category (rule 6)" })),
    refreshTimeSeconds: t.Optional(t.Number({ minimum: 1, maximum: 21600, description: "The game's refresh interval; outside 1–21600 it is ignored" })),
    activeEvent: t.Optional(
      t.Object(
        {
          ...ActiveEventSchema.properties,
          multiplier: t.Number({
            minimum: AGENT_MULTIPLIER_RANGE[0],
            maximum: AGENT_MULTIPLIER_RANGE[1],
            description: `A number outside ${AGENT_MULTIPLIER_RANGE[0]}–${AGENT_MULTIPLIER_RANGE[1]} refuses the reading (rule 6)`,
          }),
        },
        {
          description:
            `The bloodpoint event the agent sees; ignored when malformed, except that a multiplier outside ${AGENT_MULTIPLIER_RANGE[0]}–${AGENT_MULTIPLIER_RANGE[1]}, ` +
            `or an event that does not ${EVENT_BOUNDS_RULE} (as a report's entry), is a 400 (rule 6)`,
        },
      ),
    ),
  },
  {
    title: "ReadingSubmission",
    description:
      "A reading is accepted when, in order: (1) region and platform equal the assignment; (2) isReal is true; (3) measuredAt is an ISO-8601 time " +
      "at most 60 s ahead and 10 minutes behind; (4) survivor and killer are integers in 0–1000 and ratio a finite number in (0, 100000]; (5) the agent's " +
      "previous accepted reading is at least 0.8 × pollMinSeconds old (else 429 with Retry-After); (6) version and category, when present, are strings " +
      `of at most 64 characters, activeEvent's multiplier, when it is a number, is in ${AGENT_MULTIPLIER_RANGE[0]}–${AGENT_MULTIPLIER_RANGE[1]}, and a well-formed ` +
      `activeEvent must ${EVENT_BOUNDS_RULE}. A refusal's detail names the first rule broken.`,
    examples: [{ region: "eu-west-1", platform: "Windows", isReal: true, measuredAt: "2026-11-21T18:04:05.123Z", survivor: 0, killer: 75, ratio: 2.4, version: "9.3.0", refreshTimeSeconds: 300 }],
  },
);

const MINUTES = 60_000;
const DAYS = 24 * 60 * MINUTES;
const BOUNDS =
  `An entry is also skipped unless it lasts at least ${EVENT_DURATION_RANGE_MS[0] / MINUTES} minutes and at most ${EVENT_DURATION_RANGE_MS[1] / DAYS} days ` +
  `and starts at most ${MAX_START_AHEAD_MS / DAYS} days ahead of the hub's clock.`;

const EVENT_EXAMPLE = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: "2026-11-26T15:00:00Z", endsAt: "2026-11-30T15:00:00Z" };

/** What the report's entries should be; an entry that is not is skipped, not refused, so nothing here is enforced on the whole body. */
export const EventReportSchema = t.Object(
  {
    events: t.Array(
      t.Object(
        {
          key: t.String({ minLength: 1, maxLength: MAX_EVENT_KEY, description: `The game's id of the event; 1–${MAX_EVENT_KEY} characters, else the entry is skipped` }),
          label: t.String({
            description: `Shown to viewers as plain text: control characters are removed, it is trimmed and cut to ${MAX_EVENT_LABEL} characters, and the key stands in when nothing is left`,
          }),
          multiplier: t.Number({ minimum: MULTIPLIER_RANGE[0], maximum: MULTIPLIER_RANGE[1], description: "Bloodpoint multiplier; a finite number in [1, 100], else the entry is skipped" }),
          startsAt: t.String({ format: "date-time", description: `ISO-8601 with a zone, at most ${MAX_START_AHEAD_MS / DAYS} days ahead` }),
          endsAt: t.String({
            format: "date-time",
            description: `ISO-8601 with a zone, ${EVENT_DURATION_RANGE_MS[0] / MINUTES} minutes to ${EVENT_DURATION_RANGE_MS[1] / DAYS} days after startsAt`,
          }),
        },
        { title: "ReportedEventEntry" },
      ),
      { description: `The whole schedule as the game lists it; only the first ${MAX_REPORT_ENTRIES} entries are read` },
    ),
  },
  {
    title: "EventReport",
    description:
      "The game's Bloodpoint-event schedule as the agent read it. Each entry is checked on its own and skipped when it breaks a rule (counted in /metrics " +
      `and logged); the good ones replace the schedule agents reported before, for every platform. ${BOUNDS} Events are told apart by key and startsAt: a second ` +
      "entry with both is skipped.",
    examples: [{ events: [EVENT_EXAMPLE] }],
  },
);

const ReadingAcceptedSchema = t.Object(
  {
    assignment: AssignmentSchema,
    live: t.Boolean({ description: "Whether the reading became the live value of its (platform, region)" }),
    duplicate: t.Boolean({
      description: "True when the reading repeated the agent's previous one (same measuredAt and values): a retry of a post whose answer was lost. It is answered again, not stored again, and rule 5 does not apply to it",
    }),
  },
  { title: "ReadingAccepted" },
);

/** The readings route retries its own write while the lock is held (Ingest.submit). */
export const READINGS_ROUTE = "/api/v1/agent/readings";

export function agentRoutes(ctx: HubContext, access: Access) {
  return new Elysia({ name: "routes/agent", prefix: "/api/v1/agent" })
    .use(access.plugin)
    .get(
      "/assignment",
      ({ request, set }) => {
        set.headers["cache-control"] = "no-store";
        return ctx.agents.assignment(access.agentOf(request));
      },
      {
        access: "agent",
        response: { 200: AssignmentSchema, ...problems(401, 403) },
        detail: { tags: ["agent"], summary: "What to watch and how often", description: "The agent's region, platform and cadence." },
      },
    )
    .post(
      "/readings",
      async ({ request, body, set }) => {
        const result = await ctx.metrics.timeAsync("ingest", () => ctx.ingest.submit(access.agentOf(request), body));
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return result;
      },
      {
        access: "agent",
        response: { 201: ReadingAcceptedSchema, ...problems(400, 401, 403, 413, 415, 429, 503) },
        detail: {
          tags: ["agent"],
          summary: "Post a reading",
          description:
            "Stores the reading and, if it is the newest of its (platform, region), makes it the live value. The reply carries the current assignment. " +
            "503 with Retry-After when the hub cannot write (disk full, read-only, its files removed, or another process holding the write lock for more than 2 s); nothing was stored.",
          "x-request-body": ReadingSubmissionSchema,
        },
      },
    )
    .post(
      "/events",
      ({ request, body, set }) => {
        ctx.eventReports.report(access.agentOf(request), body);
        set.status = 204;
      },
      {
        access: "agent",
        response: { 204: t.Void({ description: "Read; the schedule changed if the report held a good entry and differed from it" }), ...problems(400, 401, 403, 413, 415, 429, 503) },
        detail: {
          tags: ["agent"],
          summary: "Report the event schedule",
          description:
            `The game's Bloodpoint-event schedule. Answered 204 whatever became of the entries; 400 only when the body is not an object with an \`events\` array. ` +
            `A report with no good entry changes nothing (an agent that failed to decode the game's schedule must not wipe a live event). One report per agent ` +
            `per ${REPORT_INTERVAL_MS / 1000} s: every report that passes authentication counts, malformed ones included; a sooner one gets 429 with Retry-After ` +
            "and does not restart the wait. A report identical to the current schedule writes nothing; a change is audited once as events.reported. " +
            "The events show in GET /api/v1/events and, while in force, in every platform's activeEvent, unless an admin hid them.",
          "x-request-body": EventReportSchema,
        },
      },
    );
}
