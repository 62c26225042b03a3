/** GET /api/v1/events: the Bloodpoint events in force and coming (under the read gate). */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import { listEvents } from "../domain/events.ts";
import type { Access } from "../http/access.ts";
import { stringOf, problems, readCacheControl } from "../http/schemas.ts";
import { eventSourceSchema, platformSchema } from "../http/vocabularies.ts";

const EXAMPLE = {
  key: "BPEVENT_Bloodhunt_NAME",
  label: "Bloodhunt",
  multiplier: 2,
  startsAt: "2026-11-26T15:00:00.000Z",
  endsAt: "2026-11-30T15:00:00.000Z",
  platforms: null,
  source: "agent" as const,
};

export const ListedEventSchema = t.Object(
  {
    key: t.String(),
    label: t.String({ description: "Plain text: escape it for the format you show it in" }),
    multiplier: t.Number({ exclusiveMinimum: 0, description: "Bloodpoint multiplier (2 is double bloodpoints)" }),
    startsAt: t.String({ format: "date-time" }),
    endsAt: t.String({ format: "date-time" }),
    platforms: t.Nullable(t.Array(stringOf(platformSchema()), { description: "The platforms it holds on, in display order; null for all" })),
    source: eventSourceSchema("admin: defined by an admin; agent: reported by the agents"),
  },
  { title: "ListedEvent", examples: [EXAMPLE] },
);

export function eventRoutes(ctx: HubContext, access: Access) {
  const { live, settings, now } = ctx;
  return new Elysia({ name: "routes/events", prefix: "/api/v1" }).use(access.plugin).get(
    "/events",
    ({ set }) => {
      set.headers["cache-control"] = readCacheControl(settings.get().requireAuth, 120);
      return { events: listEvents(now(), live.visibleEvents()) };
    },
    {
      access: "public-read",
      response: { 200: t.Object({ events: t.Array(ListedEventSchema) }, { title: "EventsPayload", examples: [{ events: [EXAMPLE] }] }), ...problems(401) },
      detail: {
        tags: ["incentives"],
        summary: "Bloodpoint events",
        description:
          "The events in force now (by end), then every kept event still to come (by start), for any platform, hidden ones left out, so a board can count down to the next one. " +
          "Agents' entries are kept up to 60 days ahead (see POST /api/v1/agent/events); an admin's event is listed however far ahead it was set. " +
          "An event the agents reported on several platforms, or in both their schedule and their readings, is listed once. " +
          "A payload's activeEvent is the one of these in force for its platform with the highest multiplier.",
      },
    },
  );
}
