/** A signed-in user's own API keys (only while the hub allows API keys). */
import { Elysia, t } from "elysia";
import type { Accounts } from "../auth/accounts.ts";
import { actorOf } from "../auth/accounts.ts";
import type { HubContext } from "../context.ts";
import { audit } from "../db/audit.ts";
import { ApiKeySchema } from "../http/account-schemas.ts";
import type { Access } from "../http/access.ts";
import { HttpProblem } from "../http/problem.ts";
import { problems } from "../http/schemas.ts";

const IdParams = t.Object({ id: t.Integer({ minimum: 1 }) });

export function apiKeyRoutes(ctx: HubContext, access: Access, accounts: Accounts) {
  const { db, settings, now } = ctx;
  const allowed = () => {
    if (!settings.get().enableApiKeys) throw new HttpProblem(403, "API keys are turned off on this hub; an admin can turn them on (enableApiKeys).");
  };
  const owned = (request: Request, id: number) => {
    const principal = access.userOf(request);
    const key = accounts.apiKeys.find(principal.user.id, id);
    if (!key) throw new HttpProblem(404, `You have no API key ${id}.`);
    return { principal, key };
  };
  const label = (value: string | null | undefined) => (value === undefined ? undefined : value === null || value.trim() === "" ? null : value.trim());

  return new Elysia({ name: "routes/apikeys", prefix: "/api/v1/auth/api-keys" })
    .use(access.plugin)
    .get(
      "",
      ({ request }) => {
        allowed();
        return { keys: accounts.apiKeys.list(access.userOf(request).user.id) };
      },
      {
        access: "session",
        response: { 200: t.Object({ keys: t.Array(ApiKeySchema) }), ...problems(401, 403) },
        detail: { tags: ["api-keys"], summary: "List my API keys", description: "The signed-in user's keys (never the keys themselves, only their prefix)." },
      },
    )
    .post(
      "",
      ({ request, body, set }) => {
        allowed();
        const principal = access.userOf(request);
        const created = accounts.apiKeys.create(principal.user.id, label(body.label) ?? null, body.expiresInDays ?? null);
        audit(db.orm, actorOf(principal), "apikey.create", `apikey:${created.key.id}`, { label: created.key.label }, now());
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return created;
      },
      {
        access: "session",
        body: t.Object({
          label: t.Optional(t.Nullable(t.String({ maxLength: 120 }))),
          expiresInDays: t.Optional(t.Nullable(t.Integer({ minimum: 1, maximum: 3650 }))),
        }),
        response: {
          201: t.Object({ key: ApiKeySchema, token: t.String({ description: "hub_ + 43 base64url characters, shown only here" }) }),
          ...problems(400, 401, 403),
        },
        detail: { tags: ["api-keys"], summary: "Create an API key", description: "The token is shown only in this reply; only its SHA-256 is stored. It acts as you, with your current role." },
      },
    )
    .patch(
      "/:id",
      ({ request, params, body }) => {
        allowed();
        const { principal, key } = owned(request, params.id);
        const updated = accounts.apiKeys.update(key.id, { label: label(body.label), enabled: body.enabled });
        audit(db.orm, actorOf(principal), "apikey.update", `apikey:${key.id}`, { label: body.label, enabled: body.enabled }, now());
        if (!updated) throw new HttpProblem(404, `You have no API key ${key.id}.`);
        return { key: updated };
      },
      {
        access: "session",
        params: IdParams,
        body: t.Object({ label: t.Optional(t.Nullable(t.String({ maxLength: 120 }))), enabled: t.Optional(t.Boolean()) }),
        response: { 200: t.Object({ key: ApiKeySchema }), ...problems(400, 401, 403, 404) },
        detail: { tags: ["api-keys"], summary: "Rename or switch a key on or off", description: "A disabled key authenticates nothing until enabled again." },
      },
    )
    .delete(
      "/:id",
      ({ request, params, set }) => {
        allowed();
        const { principal, key } = owned(request, params.id);
        accounts.apiKeys.remove(key.id);
        audit(db.orm, actorOf(principal), "apikey.delete", `apikey:${key.id}`, null, now());
        set.status = 204;
      },
      {
        access: "session",
        params: IdParams,
        response: { 204: t.Void({ description: "Deleted" }), ...problems(401, 403, 404) },
        detail: { tags: ["api-keys"], summary: "Delete an API key", description: "It stops working at once." },
      },
    );
}
