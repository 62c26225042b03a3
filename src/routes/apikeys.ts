/** A signed-in user's own API keys (only while the hub allows API keys), in the wire shapes the field's dashboards speak. */
import { Elysia, t } from "elysia";
import type { Accounts } from "../auth/accounts.ts";
import { actorOf } from "../auth/accounts.ts";
import { MAX_API_KEYS_PER_USER } from "../auth/apikeys.ts";
import type { HubContext } from "../context.ts";
import { audit } from "../db/audit.ts";
import { ApiKeySchema, NewApiKeySchema } from "../http/account-schemas.ts";
import type { Access } from "../http/access.ts";
import { LabelSchema } from "../http/field-schemas.ts";
import { HttpProblem } from "../domain/problem.ts";
import { idParams, problems } from "../http/schemas.ts";

const DAY_MS = 86_400_000;
/** The last instant a JavaScript Date can hold, so every accepted expiry can be shown as a date. */
const LAST_DATE_MS = 8_640_000_000_000_000;

const IdParams = idParams("API key");
const Label = t.Nullable(LabelSchema);

const CreateBody = t.Object(
  {
    label: t.Optional(Label),
    expiresAt: t.Optional(
      t.Nullable(
        t.Integer({
          minimum: 0,
          maximum: LAST_DATE_MS,
          description: "When the key stops working (epoch ms); must be in the future. Null or absent, with no expiresInDays: the key never expires",
        }),
      ),
    ),
    expiresInDays: t.Optional(
      t.Nullable(t.Integer({ minimum: 1, maximum: 3650, description: "Instead of expiresAt: the key stops working this many days from now. Sending both is refused" })),
    ),
  },
  { description: "Every field is optional: {} makes an unlabelled key that never expires." },
);

const PatchBody = t.Object(
  {
    label: t.Optional(Label),
    enabled: t.Optional(t.Boolean({ description: "false switches the key off until switched on again" })),
  },
  { description: "Only the fields sent change." },
);

/** The instant a new key expires, from either way of asking for it; null when it never does. */
function expiryOf(body: { expiresAt?: number | null; expiresInDays?: number | null }, now: number): number | null {
  const { expiresAt = null, expiresInDays = null } = body;
  if (expiresAt !== null && expiresInDays !== null) {
    throw new HttpProblem(400, "Send expiresAt or expiresInDays, not both.", {
      errors: [{ location: "body.expiresInDays", message: "not allowed together with expiresAt" }],
    });
  }
  if (expiresInDays !== null) return now + expiresInDays * DAY_MS;
  if (expiresAt !== null && expiresAt <= now) {
    throw new HttpProblem(400, `expiresAt must be in the future (epoch milliseconds); ${expiresAt} is ${new Date(expiresAt).toISOString()}, which has passed.`, {
      errors: [{ location: "body.expiresAt", message: "must be in the future", value: expiresAt }],
    });
  }
  return expiresAt;
}

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
        return { apiKeys: accounts.apiKeys.list(access.userOf(request).user.id) };
      },
      {
        access: "session",
        response: {
          200: t.Object({ apiKeys: t.Array(ApiKeySchema) }, { title: "ApiKeyList", description: "The signed-in user's keys, oldest first" }),
          ...problems(401, 403),
        },
        detail: { tags: ["api-keys"], summary: "List my API keys", description: "The signed-in user's keys (never the keys themselves, only their prefix)." },
      },
    )
    .post(
      "",
      ({ request, body, set }) => {
        allowed();
        const principal = access.userOf(request);
        accounts.requireRecentAuth(principal);
        const created = accounts.apiKeys.create(principal.user.id, label(body.label) ?? null, expiryOf(body, now()));
        audit(db.orm, actorOf(principal), "apikey.create", `apikey:${created.apiKey.id}`, { label: created.apiKey.label, expiresAt: created.apiKey.expiresAt }, now());
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return created;
      },
      {
        access: "session",
        body: CreateBody,
        response: { 201: NewApiKeySchema, ...problems(400, 401, 403, 409) },
        detail: {
          tags: ["api-keys"],
          summary: "Create an API key",
          description:
            "The key is shown only in this reply; only its SHA-256 is stored. It acts as you, with your current role, until it expires, is switched off or deleted. " +
            "An expiry comes as expiresAt (epoch ms, in the future) or as expiresInDays (1 to 3650), not both. " +
            `A user holds at most ${MAX_API_KEYS_PER_USER} keys, switched off or expired ones included: 409 beyond, until one is deleted. ` +
            "Needs a password or second-factor check from the last 10 minutes: 403 with `reauth: true` otherwise (POST /api/v1/auth/reauth, then repeat). " +
            "An API key cannot create keys: this needs a signed-in session.",
          "x-response-headers": { 201: ["Cache-Control"] },
          "x-body-optional": true,
        },
      },
    )
    .patch(
      "/:id",
      ({ request, params, body }) => {
        allowed();
        const { principal, key } = owned(request, params.id);
        // Switching a key back on gives it its power again, as creating one would (a password change switched it off for a reason).
        if (body.enabled === true && !key.enabled) accounts.requireRecentAuth(principal);
        const updated = accounts.apiKeys.update(key.id, { label: label(body.label), enabled: body.enabled });
        if (!updated) throw new HttpProblem(404, `You have no API key ${key.id}.`);
        // A new label alone is cosmetic and not audited (SPEC §16.1): switching a key on or off is what an investigation needs.
        if (updated.enabled !== key.enabled) audit(db.orm, actorOf(principal), updated.enabled ? "apikey.enable" : "apikey.disable", `apikey:${key.id}`, { label: updated.label }, now());
        return { apiKey: updated };
      },
      {
        access: "session",
        params: IdParams,
        body: PatchBody,
        response: { 200: t.Object({ apiKey: ApiKeySchema }, { description: "The key as it is now" }), ...problems(400, 401, 403, 404) },
        detail: {
          tags: ["api-keys"],
          summary: "Rename or switch a key on or off",
          description:
            "A switched-off key authenticates nothing until switched on again. Switching a key on needs a password or second-factor check from the last 10 minutes, " +
            "as creating one does: 403 with `reauth: true` otherwise.",
        },
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
        response: { 204: t.Void({ description: "Deleted" }), ...problems(400, 401, 403, 404) },
        detail: { tags: ["api-keys"], summary: "Delete an API key", description: "It stops working at once." },
      },
    );
}
