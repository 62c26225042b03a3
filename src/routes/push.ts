/**
 * Web Push without an account (SPEC §23): the hub's public key, and
 * subscriptions managed by a per-device token. A wrong or missing token is a
 * 404, the same as an unknown id, so an id alone tells nothing.
 */
import { Elysia, t } from "elysia";
import { MIN_BONUS_RANGE } from "../alerts/model.ts";
import { bearerToken } from "../domain/tokens.ts";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import { clientIp, type SocketSource } from "../http/client-ip.ts";
import { regionSchema } from "../http/field-schemas.ts";
import { HttpProblem } from "../domain/problem.ts";
import { problems } from "../http/schemas.ts";
import { alertRoleSchema, platformSchema } from "../http/vocabularies.ts";
import { AUTH_LENGTH, MAX_ENDPOINT_LENGTH, MAX_RULES, P256DH_LENGTH, type PushRule, type StoredSubscription } from "../push/model.ts";
import { PushRefusal, type Push } from "../push/push.ts";
import type { SubscriptionInput } from "../push/subscriptions.ts";
import { LANGUAGE_CODES } from "../share/languages.ts";
import { clientKey } from "../auth/presence.ts";

const BASE64URL = "^[A-Za-z0-9_-]+={0,2}$";
/** Checked by the handler, after the body, so a missing body is named before a malformed id. */
const ID_PATTERN = /^[A-Za-z0-9_-]{16}$/;
const NOT_FOUND = "There is no push subscription with this id and manage token.";

const EXAMPLE_BODY = {
  subscription: { endpoint: "https://fcm.googleapis.com/fcm/send/dXJ…", keys: { p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", auth: "tBHItJI5svbpez7KI4CCXg" } },
  lang: "en",
  rules: [{ platform: "Windows", region: "eu-central-1", role: "killer", minBonus: 75 }],
  events: false,
};

function bodySchema(ctx: HubContext) {
  return t.Object(
    {
      subscription: t.Object(
        {
          endpoint: t.String({ minLength: 1, maxLength: MAX_ENDPOINT_LENGTH, description: "The push service URL the browser gave (PushSubscription.endpoint); https, on a known push service" }),
          keys: t.Object({
            p256dh: t.String({ minLength: P256DH_LENGTH.min, maxLength: P256DH_LENGTH.max, pattern: BASE64URL, description: "The device's P-256 public key, base64url" }),
            auth: t.String({ minLength: AUTH_LENGTH.min, maxLength: AUTH_LENGTH.max, pattern: BASE64URL, description: "The device's 16-byte auth secret, base64url" }),
          }),
        },
        { description: "PushSubscription.toJSON() as the browser gives it (expirationTime is ignored)" },
      ),
      lang: t.Union(
        LANGUAGE_CODES.map((code) => t.Literal(code)),
        { description: "The language of the notifications: one of the app's languages" },
      ),
      rules: t.Array(
        t.Object({
          platform: platformSchema(),
          region: t.Nullable(regionSchema(ctx.config.catalogue, "A region id of the catalogue; null for any region of the platform")),
          role: alertRoleSchema(),
          minBonus: t.Integer({ ...MIN_BONUS_RANGE, description: "Notify when the role's bonus becomes at least this many percent (and above 0)" }),
        }),
        { minItems: 1, maxItems: MAX_RULES },
      ),
      events: t.Optional(t.Boolean({ description: "Also notify when a bloodpoint event starts on the rules' platforms (default false). At most 6 event pushes an hour reach one subscription; the next one allowed says how many were held back." })),
    },
    { title: "PushSubscriptionRequest", examples: [EXAMPLE_BODY] },
  );
}

const SubscriptionView = t.Object(
  {
    id: t.String(),
    lang: t.String(),
    rules: t.Array(t.Object({ platform: t.String(), region: t.Nullable(t.String()), role: t.String(), minBonus: t.Integer() })),
    events: t.Boolean(),
  },
  { title: "PushSubscriptionView", description: "A subscription as its device sees it; the endpoint and keys are never shown" },
);

const Created = t.Object(
  {
    id: t.String({ description: "The subscription's id" }),
    manageToken: t.String({ description: "Send as Authorization: Bearer <manageToken> to read, change or delete it; shown only here, stored as a hash" }),
  },
  { title: "PushSubscriptionCreated" },
);

interface Body {
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  lang: string;
  rules: PushRule[];
  events?: boolean;
}

const inputOf = (body: Body): SubscriptionInput => ({
  endpoint: body.subscription.endpoint,
  keys: { p256dh: body.subscription.keys.p256dh, auth: body.subscription.keys.auth },
  lang: body.lang,
  events: body.events ?? false,
  rules: body.rules.map((rule) => ({ platform: rule.platform, region: rule.region, role: rule.role, minBonus: rule.minBonus })),
});

const view = (subscription: StoredSubscription) => ({ id: subscription.publicId, lang: subscription.lang, rules: [...subscription.rules], events: subscription.events });

function refusal(error: unknown): never {
  if (error instanceof PushRefusal) {
    const headers: Record<string, string> = error.retryAfterSeconds === null ? {} : { "retry-after": String(error.retryAfterSeconds) };
    throw new HttpProblem(error.status, error.message, { headers, ...(error.status === 400 ? { errors: [{ location: "body.subscription.endpoint", message: error.message }] } : {}) });
  }
  throw error;
}

export function pushRoutes(ctx: HubContext, access: Access, push: Push) {
  const on = (): void => {
    if (push.offReason !== null) throw new HttpProblem(404, push.offReason);
  };
  const opened = (request: Request, id: string): StoredSubscription => {
    if (!ID_PATTERN.test(id)) {
      const message = "must be 16 base64url characters, as the subscription's creation gave it";
      throw new HttpProblem(400, `The subscription id ${message}.`, { errors: [{ location: "params.id", message, value: id }] });
    }
    on();
    const subscription = push.subscriptions.open(id, bearerToken(request));
    if (subscription === null) throw new HttpProblem(404, NOT_FOUND);
    return subscription;
  };
  const address = (request: Request, server: SocketSource | null) => clientKey(clientIp(request, ctx.config.trustedProxies, server));
  const body = bodySchema(ctx);
  const params = t.Object({ id: t.String({ maxLength: 64, description: "The subscription's id (16 base64url characters)" }) });
  const manage = "Send the manageToken from the subscription's creation as `Authorization: Bearer <manageToken>`; a wrong or missing token answers 404, like an unknown id.";
  return new Elysia({ name: "routes/push", prefix: "/api/v1/push" })
    .use(access.plugin)
    .get(
      "/key",
      ({ set }) => {
        on();
        set.headers["cache-control"] = "no-store";
        return { publicKey: push.keys?.publicKey ?? "" };
      },
      {
        access: "public-read",
        response: { 200: t.Object({ publicKey: t.String({ description: "The VAPID application server key, base64url (PushManager.subscribe's applicationServerKey)" }) }, { title: "PushKey" }), ...problems(401, 404) },
        detail: {
          tags: ["push"],
          summary: "The hub's push key",
          description:
            "The VAPID public key browsers subscribe with. 404 when push is off: PUSH_ENABLED=false, or neither CONTACT_EMAIL nor an https ORIGIN is set " +
            "(RFC 8292 asks the hub to name a contact, as mailto: or https); the problem's detail says what to set.",
        },
      },
    )
    .post(
      "/subscriptions",
      async ({ body: sent, request, server, set }) => {
        on();
        try {
          // While sign-in is required, the subscription is the signed-in user's, and ends with their access (SPEC §16.4).
          const owner = ctx.settings.get().requireAuth ? (access.optionalUserOf(request)?.user.id ?? null) : null;
          const result = await push.subscribe(inputOf(sent), address(request, server), owner);
          set.status = result.created ? 201 : 200;
          set.headers["cache-control"] = "no-store";
          return { id: result.id, manageToken: result.manageToken };
        } catch (error) {
          return refusal(error);
        }
      },
      {
        access: "public-read",
        body,
        response: { 200: Created, 201: Created, ...problems(400, 401, 404, 429, 503) },
        detail: {
          tags: ["push"],
          summary: "Subscribe a device",
          description:
            "Stores a browser's push subscription with 1 to 10 rules; a rule fires once when its bonus becomes at least minBonus, not again while it stays there. " +
            "The endpoint must be https on a known push service (fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com, *.notify.windows.com) " +
            "or a host in PUSH_SERVICE_HOSTS, and not resolve to a private address (WEBHOOK_ALLOW_PRIVATE); else 400 naming the rule. " +
            "The same endpoint again replaces its rules (200, with a new id and manage token). At most 5 new subscriptions an hour from one address (429 with Retry-After); " +
            "past MAX_PUSH_SUBSCRIPTIONS, 503. While requireAuth is on, the subscription belongs to the signed-in user and is deleted when that user " +
            "is disabled, deleted or has their password reset. A subscription whose push service keeps refusing its messages for 7 days is deleted.",
        },
      },
    )
    .get(
      "/subscriptions/:id",
      ({ params: { id }, request, set }) => {
        set.headers["cache-control"] = "no-store";
        return view(opened(request, id));
      },
      { access: "public-read", params, response: { 200: SubscriptionView, ...problems(400, 401, 404) }, detail: { tags: ["push"], summary: "A device's subscription", description: manage } },
    )
    .put(
      "/subscriptions/:id",
      async ({ params: { id }, body: sent, request, set }) => {
        const subscription = opened(request, id);
        const input = inputOf(sent);
        try {
          await push.checkEndpoint(input.endpoint);
        } catch (error) {
          return refusal(error);
        }
        const other = push.subscriptions.findByEndpoint(input.endpoint);
        if (other !== null && other.id !== subscription.id) throw new HttpProblem(409, "Another subscription has this endpoint; delete one of them first.");
        set.headers["cache-control"] = "no-store";
        return view(push.subscriptions.replace(subscription, input, ctx.now()));
      },
      {
        access: "public-read",
        params,
        body,
        response: { 200: SubscriptionView, ...problems(400, 401, 404, 409) },
        detail: { tags: ["push"], summary: "Change a device's subscription", description: `Replaces the rules, language and endpoint. ${manage}` },
      },
    )
    .delete(
      "/subscriptions/:id",
      ({ params: { id }, request, set }) => {
        push.subscriptions.delete(opened(request, id).id);
        set.status = 204;
      },
      {
        access: "public-read",
        params,
        response: { 204: t.Void({ description: "Deleted, with its pending messages" }), ...problems(400, 401, 404) },
        detail: { tags: ["push"], summary: "Unsubscribe a device", description: `Deletes the subscription and its pending messages. ${manage}` },
      },
    );
}
