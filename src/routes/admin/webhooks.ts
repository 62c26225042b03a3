/** Admin: webhooks, their secrets, test deliveries and delivery log (SPEC §18). */
import { EVENT_ALERT_LIMIT } from "../../alerts/event-rate.ts";
import { Elysia, t } from "elysia";
import { neverFiresProblem } from "../../alerts/admin.ts";
import type { FormatSpec } from "../../alerts/formats/format.ts";
import { FORMATS } from "../../alerts/formats/index.ts";
import type { FormatRegistry } from "../../alerts/formats/registry.ts";
import { MIN_BONUS_RANGE } from "../../alerts/model.ts";
import { maskUrl, UNREADABLE_URL } from "../../alerts/secrets.ts";
import { actorOf } from "../../auth/accounts.ts";
import type { HubContext } from "../../context.ts";
import { PLATFORMS } from "../../domain/catalogue.ts";
import type { Access } from "../../http/access.ts";
import { regionSchema } from "../../http/field-schemas.ts";
import type { RouteProblem } from "../../http/openapi.ts";
import { idParams, integerQuery, MAX_ID, problems, queryInteger } from "../../http/schemas.ts";
import { text } from "../../http/text.ts";
import { alertRoleSchema, deliveryStatusSchema, deliveryTypeSchema } from "../../http/vocabularies.ts";
import { ALERT_ROLES } from "../../domain/alerts.ts";

const TAG = "admin-alerts";
export const DELIVERY_LIMITS = { min: 1, max: 200, default: 50 } as const;

const IdParams = idParams("Webhook");
const EXAMPLE_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0nX5GRbZx2c=";
const EXAMPLE = {
  url: "https://discord.com/api/webhooks/123456789012345678/the-webhook-token-discord-gave-you",
  format: "discord",
  platforms: ["Windows"],
  regions: ["eu-west-1", "eu-central-1"],
  roles: ["killer"],
  minBonus: 100,
  onStatus: false,
  onEvents: true,
  enabled: true,
} as const;
const EXAMPLE_WEBHOOK = { id: 3, ...EXAMPLE, url: maskUrl(EXAMPLE.url), createdAt: 1_795_300_000_000, lastDeliveryAt: 1_795_301_143_000, failingSince: null, disabledReason: null };

/** "a", "a and b", "a, b and c"; with a serial comma, "a, b, and c". */
function series(items: readonly string[], conjunction: "and" | "or", serialComma = false): string {
  if (items.length <= 2) return items.join(` ${conjunction} `);
  return `${items.slice(0, -1).join(", ")}${serialComma ? "," : ""} ${conjunction} ${items.at(-1) ?? ""}`;
}

/** A format's name: the registry's names as a union of constants in its order, each format's summary in the description. */
export function formatSchema<const Formats extends readonly FormatSpec[]>(registry: FormatRegistry<Formats>) {
  const names: readonly Formats[number]["name"][] = registry.names;
  const union = t.Union(
    names.map((name) => t.Literal(name)),
    { title: "WebhookFormat", description: registry.formats.map((format) => `${format.name}: ${format.summary}`).join("; ") },
  );
  // TypeBox types a union built from a list as never; it validates the names, and is typed as them.
  return t.Unsafe<Formats[number]["name"]>(union);
}

const Format = formatSchema(FORMATS);
const SIGNED = FORMATS.formats.filter((format) => format.signed);
const UNSIGNED = FORMATS.formats.filter((format) => !format.signed);
const CARRIED = FORMATS.formats.flatMap((format) => (format.carries === null ? [] : [format.carries]));
const Role = alertRoleSchema();
const Platforms = t.Nullable(t.Array(text({ enum: PLATFORMS, description: "A platform id" }), { minItems: 1, maxItems: PLATFORMS.length, description: "Platforms followed; null for all" }));
const MinBonus = t.Nullable(
  t.Integer({
    ...MIN_BONUS_RANGE,
    description:
      "Fire bonus.reached when a role's bonus becomes at least this many percent (and above 0, so 0 means any bonus); null for no bonus alerts",
  }),
);

export const WebhookSchema = t.Object(
  {
    id: t.Integer({ minimum: 1 }),
    url: t.String({
      description:
        "The target, masked: its scheme, host and last 4 characters (https://discord.com/…x9Qz). The full URL is stored encrypted and never " +
        `shown again, since for ${series(UNSIGNED.map((f) => f.label), "and")} the URL itself is the credential and a ${series(SIGNED.map((f) => f.label), "or")} ` +
        "URL may carry a token; to change it, PATCH a " +
        `new url. "${UNREADABLE_URL}" when hub.key was replaced since it was set`,
    }),
    format: Format,
    enabled: t.Boolean(),
    platforms: t.Nullable(t.Array(t.String()), { description: "Platforms followed; null for all" }),
    regions: t.Nullable(t.Array(t.String()), { description: "Regions followed; null for all" }),
    roles: t.Array(Role, { description: "Roles whose bonus is watched" }),
    minBonus: t.Nullable(t.Integer({ description: "Bonus percent that fires bonus.reached; null for no bonus alerts" })),
    onStatus: t.Boolean({ description: "Fire status.changed when a followed platform's status changes" }),
    onEvents: t.Boolean({ description: "Fire event.started and event.ended for followed platforms" }),
    createdAt: t.Integer({ description: "Epoch ms" }),
    lastDeliveryAt: t.Nullable(t.Integer({ description: "When a delivery last succeeded (epoch ms)" })),
    failingSince: t.Nullable(t.Integer({ description: "Since when every attempt has failed (epoch ms); null while it works" })),
    disabledReason: t.Nullable(t.String({ description: "Why the hub disabled it after a day of failures; cleared when an admin enables it again" })),
  },
  { title: "Webhook", examples: [EXAMPLE_WEBHOOK] },
);

const DeliverySchema = t.Object(
  {
    id: t.Integer({ minimum: 1 }),
    messageId: t.String({
      description: "The webhook-id header of the json format: msg_ and a UUIDv7, the same on every retry of this delivery and never used by another one, even after a restore",
    }),
    type: deliveryTypeSchema(),
    status: deliveryStatusSchema("pending (waiting or retrying), delivered (a 2xx came back) or failed (given up)"),
    attempts: t.Integer({ minimum: 0 }),
    lastStatusCode: t.Nullable(t.Integer({ description: "HTTP status of the last reply; null when none came" })),
    lastError: t.Nullable(t.String({ description: "Why the last attempt failed: a timeout, a refused address, or the start of the receiver's reply" })),
    createdAt: t.Integer({ description: "When the change happened and the delivery was written (epoch ms)" }),
    deliveredAt: t.Nullable(t.Integer({ description: "Epoch ms" })),
    nextAttemptAt: t.Nullable(t.Integer({ description: "When it will be tried next (epoch ms), while pending" })),
  },
  { title: "WebhookDelivery" },
);

const DeliveryPageSchema = t.Object(
  {
    deliveries: t.Array(DeliverySchema, { description: "Newest first" }),
    next: t.Nullable(t.Integer({ minimum: 1, description: "Pass as `before` for the next (older) page; null when there are no older deliveries" })),
  },
  {
    title: "WebhookDeliveryPage",
    examples: [
      {
        deliveries: [
          { id: 42, type: "bonus.reached", status: "delivered", attempts: 1, lastStatusCode: 204, lastError: null, createdAt: 1_795_301_142_900, deliveredAt: 1_795_301_143_000, nextAttemptAt: null },
          { id: 41, type: "test", status: "failed", attempts: 31, lastStatusCode: 404, lastError: "HTTP 404: Unknown Webhook", createdAt: 1_795_200_000_000, deliveredAt: null, nextAttemptAt: null },
        ],
        next: 41,
      },
    ],
  },
);

const SecretSchema = t.String({
  pattern: "^whsec_[A-Za-z0-9+/]{43}=$",
  description: "whsec_ and base64 of 32 random bytes, shown only here: the key of the json format's HMAC-SHA256 signature (any Standard Webhooks library takes it as it is)",
  examples: [EXAMPLE_SECRET],
});

const CONDITIONS =
  "A bonus condition is judged per platform, region and role on each reading that becomes live: it holds when the role's bonus is above 0 and at " +
  "least `minBonus`. It fires `bonus.reached` once when it becomes true, not again while it stays true, and re-arms when it becomes false. " +
  "Conditions that already hold when a webhook is made, enabled or has its conditions changed count as already fired: the webhook speaks of " +
  "what changes from then on (otherwise \"any bonus, every region\" would send a message per region at once). " +
  "`status.changed` fires when a followed platform's status moves between ok, degraded, initializing and error; `event.started` and " +
  "`event.ended` when the bloodpoint event in force on followed platforms changes (one message per event, naming the platforms). " +
  `A webhook gets at most ${EVENT_ALERT_LIMIT.count} event messages in any hour: those over the limit are held back, and the next one sent says how many ` +
  "were (`heldBack` in its data).";

const MESSAGES =
  "The json format POSTs `{ type, timestamp (ISO), data }` with the Standard Webhooks headers `webhook-id` (the delivery's `messageId`, the same on " +
  "every retry, never repeated), `webhook-timestamp` (seconds) and `webhook-signature` (`v1,` and base64 HMAC-SHA256 of `id.timestamp.body` keyed with the " +
  "secret's bytes after `whsec_`). `data` is, for bonus.reached: `{ platform, region, displayName, role, bonus, survivor, killer, measuredAt " +
  "(ISO), url (the region's page) }`; status.changed: `{ platform, status, previousStatus, statusReason, url }`; event.started and " +
  "event.ended: `{ key, label, multiplier, startsAt, endsAt, platforms, url, heldBack? }` (`heldBack`: `{ count, since (ISO) }`, the event " +
  "messages held back since the previous one, present only when some were); test: `{ webhookId, message }`. The other formats carry " +
  `the same message as ${series(CARRIED, "or", true)}.`;

/** The refusal of a webhook left without a condition, with the hub's own problem as the example (`id` null on create). */
function neverFires(id: number | null): { 400: RouteProblem } {
  return {
    400: {
      description:
        "A webhook that could never fire is refused too: with no `minBonus` (null or left out) and `onStatus` and `onEvents` false, no " +
        "change can match it. The problem's title is Bad Request and its one entry in `errors` is at `body.minBonus`.",
      examples: { neverFires: { summary: "No condition: the webhook could never fire", value: neverFiresProblem(id).body() } },
    },
  };
}

function fields(ctx: HubContext) {
  return {
    url: text({
      minLength: 1,
      maxLength: 2048,
      format: "uri",
      rule: "an http or https URL of at most 2048 characters",
      description:
        "Where to POST. Targets on loopback, private, link-local, unique-local, CGNAT, multicast or unspecified addresses (an IPv4 address in any IPv6 " +
        "spelling included) are refused unless the hub runs with WEBHOOK_ALLOW_PRIVATE, and port 0 always; a literal address is checked here, by the " +
        "sender's own rule, a name on every attempt, on the address it resolves to and after every redirect. Stored encrypted; replies show it masked",
      examples: [EXAMPLE.url],
    }),
    format: Format,
    platforms: t.Optional(Platforms),
    regions: t.Optional(
      t.Nullable(
        t.Array(regionSchema(ctx.config.catalogue, "A region id of the catalogue"), {
          minItems: 1,
          maxItems: ctx.config.catalogue.regions.length,
          description: "Regions followed; null for all",
        }),
      ),
    ),
    roles: t.Optional(t.Array(Role, { minItems: 1, maxItems: ALERT_ROLES.length, description: "Roles whose bonus is watched (default both)" })),
    minBonus: t.Optional(MinBonus),
    onStatus: t.Optional(t.Boolean({ description: "Fire status.changed (default false)" })),
    onEvents: t.Optional(t.Boolean({ description: "Fire event.started and event.ended (default false)" })),
    enabled: t.Optional(t.Boolean({ description: "Default true. Enabling a webhook the hub disabled clears its failure record and resumes its pending deliveries" })),
  };
}

export function adminWebhookRoutes(ctx: HubContext, access: Access) {
  const admin = ctx.alerts.admin;
  const actor = (request: Request) => actorOf(access.userOf(request));
  const body = fields(ctx);
  return new Elysia({ name: "routes/admin/webhooks", prefix: "/api/v1/admin/webhooks" })
    .use(access.plugin)
    .get("", () => ({ webhooks: admin.list() }), {
      access: "admin",
      response: { 200: t.Object({ webhooks: t.Array(WebhookSchema) }, { examples: [{ webhooks: [EXAMPLE_WEBHOOK] }] }), ...problems(401, 403) },
      detail: { tags: [TAG], summary: "List webhooks", description: "Every webhook, with its delivery health. Secrets are never shown again, and URLs only masked." },
    })
    .post(
      "",
      ({ request, body: input, set }) => {
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return admin.create(actor(request), input);
      },
      {
        access: "admin",
        body: t.Object(body, { examples: [EXAMPLE, { url: "https://ntfy.sh/my-secret-topic", format: "ntfy", regions: ["eu-west-1"], roles: ["killer"], minBonus: 100 }] }),
        response: {
          201: t.Object({ webhook: WebhookSchema, secret: SecretSchema }, { examples: [{ webhook: EXAMPLE_WEBHOOK, secret: EXAMPLE_SECRET }] }),
          ...problems(400, 401, 403),
        },
        detail: {
          tags: [TAG],
          summary: "Create a webhook",
          description: `Answers the webhook (its url already masked) and its signing secret, which is shown only here.\n\n${CONDITIONS}\n\n${MESSAGES}`,
          "x-problems": neverFires(null),
        },
      },
    )
    .patch("/:id", ({ request, params, body: input }) => ({ webhook: admin.update(actor(request), params.id, input) }), {
      access: "admin",
      params: IdParams,
      body: t.Partial(t.Object(body), { examples: [{ minBonus: 150 }, { enabled: true }] }),
      response: { 200: t.Object({ webhook: WebhookSchema }, { examples: [{ webhook: EXAMPLE_WEBHOOK }] }), ...problems(400, 401, 403, 404) },
      detail: {
        tags: [TAG],
        summary: "Change a webhook",
        description: `Only the fields given change; without url the stored URL is kept. Pending deliveries go to the new URL and format. ${CONDITIONS}`,
        "x-problems": neverFires(EXAMPLE_WEBHOOK.id),
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
        response: { 204: t.Void({ description: "Deleted, with its pending deliveries and delivery log" }), ...problems(401, 403, 404) },
        detail: { tags: [TAG], summary: "Delete a webhook", description: "Nothing more is sent to it, pending deliveries included." },
      },
    )
    .post(
      "/:id/secret",
      ({ request, params, set }) => {
        set.headers["cache-control"] = "no-store";
        return { secret: admin.rotateSecret(actor(request), params.id) };
      },
      {
        access: "admin",
        params: IdParams,
        response: { 200: t.Object({ secret: SecretSchema }, { examples: [{ secret: EXAMPLE_SECRET }] }), ...problems(401, 403, 404) },
        detail: { tags: [TAG], summary: "Rotate a webhook's secret", description: "Every attempt from now on, retries included, is signed with the new secret, shown only here." },
      },
    )
    .post(
      "/:id/test",
      ({ request, params, set }) => {
        set.status = 202;
        return { deliveryId: admin.test(actor(request), params.id) };
      },
      {
        access: "admin",
        params: IdParams,
        response: {
          202: t.Object({ deliveryId: t.Integer({ minimum: 1, description: "Follow it in GET /webhooks/{id}/deliveries" }) }, { examples: [{ deliveryId: 43 }] }),
          ...problems(401, 403, 404, 409),
        },
        detail: {
          tags: [TAG],
          summary: "Send a test message",
          description: "Queues a `test` message behind the webhook's pending deliveries (each webhook gets its messages in order). 409 while the webhook is disabled.",
        },
      },
    )
    .get(
      "/:id/deliveries",
      ({ params, query }) =>
        admin.deliveries(
          params.id,
          queryInteger(query.limit, "limit", { minimum: DELIVERY_LIMITS.min, maximum: DELIVERY_LIMITS.max }) ?? DELIVERY_LIMITS.default,
          queryInteger(query.before, "before", { minimum: 1, maximum: MAX_ID }) ?? null,
        ),
      {
        access: "admin",
        params: IdParams,
        query: t.Object({
          limit: t.Optional(
            integerQuery({
              description: `How many deliveries a page holds: an integer from ${DELIVERY_LIMITS.min} to ${DELIVERY_LIMITS.max} (default ${DELIVERY_LIMITS.default})`,
              minimum: DELIVERY_LIMITS.min,
              maximum: DELIVERY_LIMITS.max,
              examples: [DELIVERY_LIMITS.default],
            }),
          ),
          before: t.Optional(integerQuery({ description: "Only deliveries older than this delivery id: the `next` of the previous page", minimum: 1, maximum: MAX_ID, examples: [42] })),
        }),
        response: { 200: DeliveryPageSchema, ...problems(400, 401, 403, 404) },
        detail: {
          tags: [TAG],
          summary: "A webhook's delivery log",
          description:
            "Its deliveries, newest first, a page at a time. A failed attempt is retried with exponential backoff and jitter (10 s, 30 s, 1 min, … up to " +
            "1 h apart) for up to 24 h, then marked failed; a webhook failing for a day is disabled with a reason, and the audit log says so. " +
            "Finished deliveries are kept for 31 days.",
        },
      },
    );
}
