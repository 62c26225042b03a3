/** Admin: bloodpoint events. */
import { Elysia, t } from "elysia";
import { actorOf } from "../../auth/accounts.ts";
import type { EventAdmin } from "../../admin/events.ts";
import type { Access } from "../../http/access.ts";
import { stringOf, idParams, problems } from "../../http/schemas.ts";
import { eventSourceSchema, platformSchema } from "../../http/vocabularies.ts";
import { PLATFORMS } from "../../domain/catalogue.ts";
import { EVENT_KEY_PATTERN } from "../../admin/events.ts";
import { text } from "../../http/text.ts";

const IdParams = idParams("Event");
const Platforms = t.Nullable(t.Array(stringOf(platformSchema()), { maxItems: PLATFORMS.length, description: "Platforms it applies to; null for all" }));
const EXAMPLE = { key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: "2026-11-27T15:00:00.000Z", endsAt: "2026-12-04T15:00:00.000Z", platforms: null };

export const EventSchema = t.Object(
  {
    id: t.Integer(),
    key: t.String(),
    label: t.String(),
    multiplier: t.Number(),
    startsAt: t.String({ format: "date-time" }),
    endsAt: t.String({ format: "date-time" }),
    platforms: Platforms,
    source: eventSourceSchema("admin: made here; agent: from the schedule the agents report (only `hidden` can change)"),
    agentId: t.Nullable(t.Integer({ description: "The agent that reported it; null for admin events and once that agent is deleted" })),
    hidden: t.Boolean({ description: "Left out of payloads and the public schedule; only agent events are hidden, and stay hidden when reported again (matched by key and startsAt)" }),
  },
  { title: "Event", examples: [{ id: 1, ...EXAMPLE, source: "admin", agentId: null, hidden: false }] },
);

const isoTime = (description: string) =>
  text({ format: "date-time", maxLength: 40, rule: "an ISO-8601 date and time with a zone, such as 2026-11-27T15:00:00Z", description, examples: [EXAMPLE.startsAt] });

const fields = {
  key: text({ minLength: 1, maxLength: 64, pattern: EVENT_KEY_PATTERN.source, rule: "1 to 64 of a-z, 0-9, '_' and '-'", description: "1–64 of a-z, 0-9, '_' and '-'" }),
  label: text({ minLength: 1, maxLength: 120, pattern: "\\S", rule: "1 to 120 characters, not all spaces", description: "1–120 characters" }),
  multiplier: t.Number({ exclusiveMinimum: 0, description: "Bloodpoint multiplier, greater than 0 (2 is double bloodpoints)" }),
  startsAt: isoTime("When it starts: an ISO-8601 date-time with a zone (impossible dates such as 30 February are refused)"),
  endsAt: isoTime("When it ends: an ISO-8601 date-time with a zone, after startsAt"),
  platforms: t.Optional(Platforms),
};

export function adminEventRoutes(access: Access, admin: EventAdmin) {
  const actor = (request: Request) => actorOf(access.userOf(request));
  return new Elysia({ name: "routes/admin/events", prefix: "/api/v1/admin/events" })
    .use(access.plugin)
    .get("", () => ({ events: admin.list() }), {
      access: "admin",
      response: { 200: t.Object({ events: t.Array(EventSchema) }), ...problems(401, 403) },
      detail: {
        tags: ["admin-events"],
        summary: "List events",
        description:
          "Every event made by an admin, every event of the schedule the agents reported last, and every event an agent named in a reading's activeEvent " +
          "(one entry per platform it was seen on, with the newest values), by start time, with where it came from and whether it is hidden. " +
          "Agent events are matched by key and startsAt: hiding one hides it wherever it is reported.",
      },
    })
    .post(
      "",
      ({ request, body, set }) => {
        set.status = 201;
        return { event: admin.create(actor(request), body) };
      },
      {
        access: "admin",
        body: t.Object(fields, { examples: [EXAMPLE] }),
        response: { 201: t.Object({ event: EventSchema }), ...problems(400, 401, 403) },
        detail: { tags: ["admin-events"], summary: "Create an event", description: "While in force, it shows in activeEvent of its platforms' payloads (the highest multiplier wins; an admin event wins a tie)." },
      },
    )
    .patch("/:id", ({ request, params, body }) => ({ event: admin.update(actor(request), params.id, body) }), {
      access: "admin",
      params: IdParams,
      body: t.Partial(t.Object({ ...fields, hidden: t.Boolean({ description: "Hide (true) or show (false) an agent event; the only field an agent event takes" }) })),
      response: { 200: t.Object({ event: EventSchema }), ...problems(400, 401, 403, 404, 409) },
      detail: {
        tags: ["admin-events"],
        summary: "Change an event",
        description:
          "Viewers get the change at once. An agent event takes only `hidden` (anything else is a 409: the agents' next report would undo it); " +
          "it stays hidden when reported again. An admin event cannot be hidden (409): change its times or delete it.",
      },
    })
    .delete(
      "/:id",
      ({ request, params, set }) => {
        admin.remove(actor(request), params.id);
        set.status = 204;
      },
      {
        access: "admin",
        params: IdParams,
        response: { 204: t.Void({ description: "Deleted" }), ...problems(401, 403, 404, 409) },
        detail: { tags: ["admin-events"], summary: "Delete an event", description: "Viewers get the change at once. An agent event cannot be deleted (409): hide it instead." },
      },
    );
}
