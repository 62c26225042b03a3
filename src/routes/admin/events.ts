/** Admin: bloodpoint events. */
import { Elysia, t } from "elysia";
import { actorOf } from "../../auth/accounts.ts";
import type { EventAdmin } from "../../admin/events.ts";
import type { Access } from "../../http/access.ts";
import { problems } from "../../http/schemas.ts";
import { PLATFORMS } from "../../domain/catalogue.ts";

const IdParams = t.Object({ id: t.Integer({ minimum: 1, description: "Event id" }) });
const Platforms = t.Nullable(t.Array(t.String({ enum: [...PLATFORMS] }), { maxItems: 3, description: "Platforms it applies to; null for all" }));
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
  },
  { title: "Event", examples: [{ id: 1, ...EXAMPLE }] },
);

const fields = {
  key: t.String({ maxLength: 64, description: "1–64 of a-z, 0-9, '_' and '-'" }),
  label: t.String({ maxLength: 120 }),
  multiplier: t.Number({ exclusiveMinimum: 0 }),
  startsAt: t.String({ maxLength: 40, description: "ISO-8601 time" }),
  endsAt: t.String({ maxLength: 40, description: "ISO-8601 time, after startsAt" }),
  platforms: t.Optional(Platforms),
};

export function adminEventRoutes(access: Access, admin: EventAdmin) {
  const actor = (request: Request) => actorOf(access.userOf(request));
  return new Elysia({ name: "routes/admin/events", prefix: "/api/v1/admin/events" })
    .use(access.plugin)
    .get("", () => ({ events: admin.list() }), {
      access: "admin",
      response: { 200: t.Object({ events: t.Array(EventSchema) }), ...problems(401, 403) },
      detail: { tags: ["admin-events"], summary: "List events", description: "Every admin-defined event, by start time." },
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
      body: t.Partial(t.Object(fields)),
      response: { 200: t.Object({ event: EventSchema }), ...problems(400, 401, 403, 404) },
      detail: { tags: ["admin-events"], summary: "Change an event", description: "Viewers get the change at once." },
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
        response: { 204: t.Void({ description: "Deleted" }), ...problems(401, 403, 404) },
        detail: { tags: ["admin-events"], summary: "Delete an event", description: "Viewers get the change at once." },
      },
    );
}
