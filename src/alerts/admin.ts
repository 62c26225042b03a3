/** Admin: webhooks (SPEC §18): checked, stored with their secret sealed, audited, and handed to the live path at once. */
import { eq } from "drizzle-orm";
import { audit, type Actor } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { webhooks } from "../db/schema.ts";
import { PLATFORMS, type Catalogue } from "../domain/catalogue.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { LiveStore } from "../live/store.ts";
import { eventAlertDestination, type EventAlertRate } from "./event-rate.ts";
import type { FormatSpec } from "./formats/format.ts";
import type { FormatRegistry } from "./formats/registry.ts";
import { targetProblem } from "./guard.ts";
import type { AlertMessage, Webhook } from "./model.ts";
import type { DeliveryPage, Outbox } from "./outbox.ts";
import { bonusHolds, type AlertRules } from "./rules.ts";
import { maskUrl, newWebhookSecret, UNREADABLE_URL, type WebhookSecrets } from "./secrets.ts";
import { ALERT_ROLES, type AlertRole, type WebhookFormat } from "../domain/alerts.ts";

export interface WebhookInput {
  readonly url?: string;
  readonly format?: WebhookFormat;
  readonly platforms?: string[] | null;
  readonly regions?: string[] | null;
  readonly roles?: AlertRole[];
  readonly minBonus?: number | null;
  readonly onStatus?: boolean;
  readonly onEvents?: boolean;
  readonly enabled?: boolean;
}

type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The refusal of a webhook with no condition (no minBonus, onStatus and
 * onEvents false): it could never fire, and its admin would wait for alerts
 * that never come. `id` is the webhook being changed, null for a new one.
 * The OpenAPI description shows this very problem as its example.
 */
export function neverFiresProblem(id: number | null): HttpProblem {
  const which = id === null ? "This webhook" : `Webhook ${id}`;
  const message = "no condition is set, so it could never fire: give minBonus, or set onStatus or onEvents to true";
  return new HttpProblem(400, `${which} has no condition: ${message}.`, { errors: [{ location: "body.minBonus", message }] });
}

/** Fields whose change can make a bonus condition hold or not. */
const CONDITION_FIELDS = ["platforms", "regions", "roles", "minBonus", "enabled"] as const;

function parseList(json: string | null): string[] | null {
  return json === null ? null : (JSON.parse(json) as string[]);
}

/** A webhook as replies show it: its URL masked. */
function toWebhook(row: WebhookRow, secrets: WebhookSecrets): Webhook {
  const url = secrets.openUrl(row.id, row.url);
  return {
    id: row.id,
    url: url === null ? UNREADABLE_URL : maskUrl(url),
    format: row.format,
    enabled: row.enabled,
    platforms: parseList(row.platforms),
    regions: parseList(row.regions),
    roles: JSON.parse(row.roles) as AlertRole[],
    minBonus: row.minBonus,
    onStatus: row.onStatus,
    onEvents: row.onEvents,
    createdAt: row.createdAt,
    lastDeliveryAt: row.lastDeliveryAt,
    failingSince: row.failingSince,
    disabledReason: row.disabledReason,
  };
}

/** Lists in the order of their vocabulary, each entry once. */
function ordered(values: readonly string[], order: readonly string[]): string[] {
  return order.filter((value) => values.includes(value));
}

/**
 * What an audit row says of a change. The URL is reduced to its host: for
 * Discord, Slack and ntfy the URL itself is the credential, and a json URL
 * may carry a token.
 */
function auditDetail(input: WebhookInput): Record<string, unknown> {
  const { url, ...rest } = input;
  return url === undefined ? { ...rest } : { ...rest, host: new URL(url).host };
}

export interface WebhookAdminDeps {
  readonly db: HubDb;
  readonly catalogue: Catalogue;
  readonly live: LiveStore;
  readonly secrets: WebhookSecrets;
  readonly formats: FormatRegistry<readonly FormatSpec<WebhookFormat>[]>;
  readonly rules: AlertRules;
  readonly outbox: Outbox;
  readonly allowPrivate: boolean;
  readonly origin: string;
  readonly now: () => number;
  /** Told after a delivery was written. */
  readonly delivered: () => void;
  /** Event alerts per destination: a deleted webhook's budget goes with it. */
  readonly eventRate: EventAlertRate;
}

export class WebhookAdmin {
  constructor(private readonly deps: WebhookAdminDeps) {}

  private webhook(row: WebhookRow): Webhook {
    return toWebhook(row, this.deps.secrets);
  }

  private row(id: number): WebhookRow {
    const row = this.deps.db.orm.select().from(webhooks).where(eq(webhooks.id, id)).get();
    if (!row) throw new HttpProblem(404, `There is no webhook ${id}.`);
    return row;
  }

  /** Refuses a new URL the private-address guard or its format's rule refuses. */
  private checkUrl(url: string, format: WebhookFormat): void {
    const problem = targetProblem(url, this.deps.allowPrivate) ?? this.deps.formats.targetProblem(format, url);
    if (problem !== null) throw new HttpProblem(400, `Invalid url: ${problem}.`, { errors: [{ location: "body.url", message: problem }] });
  }

  /** Refuses a new format whose rule refuses the stored URL (one that cannot be read is set again before anything is sent to it). */
  private checkFormat(format: WebhookFormat, storedUrl: string | null): void {
    const problem = storedUrl === null ? null : this.deps.formats.targetProblem(format, storedUrl);
    if (problem !== null) {
      const message = `${format} does not take the stored url (it ${problem}); send a url it takes along with the format`;
      throw new HttpProblem(400, `Invalid format: ${message}.`, { errors: [{ location: "body.format", message }] });
    }
  }

  /** The stored columns of a webhook's conditions, from the current ones and a change; a webhook left with no condition is refused. */
  private columns(base: Webhook | null, input: WebhookInput) {
    const platforms = input.platforms === undefined ? (base?.platforms ?? null) : input.platforms;
    const regions = input.regions === undefined ? (base?.regions ?? null) : input.regions;
    const roles = input.roles ?? base?.roles ?? [...ALERT_ROLES];
    const minBonus = input.minBonus === undefined ? (base?.minBonus ?? null) : input.minBonus;
    const onStatus = input.onStatus ?? base?.onStatus ?? false;
    const onEvents = input.onEvents ?? base?.onEvents ?? false;
    if (minBonus === null && !onStatus && !onEvents) throw neverFiresProblem(base?.id ?? null);
    return {
      platforms: platforms === null ? null : JSON.stringify(ordered(platforms, PLATFORMS)),
      regions: regions === null ? null : JSON.stringify(ordered(regions, this.deps.catalogue.regions.map((r) => r.id))),
      roles: JSON.stringify(ordered(roles, ALERT_ROLES)),
      minBonus,
      onStatus,
      onEvents,
      enabled: input.enabled ?? base?.enabled ?? true,
    };
  }

  /**
   * Marks the bonus conditions that already hold on the live values as
   * fired. A webhook speaks of what changes after it is made or its
   * conditions are changed: otherwise saving "any bonus, all regions" would
   * send one message per region that has a bonus at that moment, which the
   * admin can already see on the board.
   */
  private seed(webhook: Webhook): void {
    const { live, catalogue, rules } = this.deps;
    const holding: { platform: string; region: string; role: AlertRole }[] = [];
    if (webhook.enabled && webhook.minBonus !== null) {
      for (const platform of PLATFORMS) {
        if (webhook.platforms !== null && !webhook.platforms.includes(platform)) continue;
        for (const { id: region } of catalogue.regions) {
          if (webhook.regions !== null && !webhook.regions.includes(region)) continue;
          const value = live.live(platform, region);
          if (!value) continue;
          for (const role of webhook.roles) if (bonusHolds(value[role], webhook.minBonus)) holding.push({ platform, region, role });
        }
      }
    }
    rules.reseed(webhook.id, holding);
  }

  list(): Webhook[] {
    return this.deps.db.orm
      .select()
      .from(webhooks)
      .orderBy(webhooks.id)
      .all()
      .map((row) => this.webhook(row));
  }

  create(actor: Actor, input: WebhookInput & { url: string; format: WebhookFormat }): { webhook: Webhook; secret: string } {
    this.checkUrl(input.url, input.format);
    const { db, secrets, now } = this.deps;
    const secret = newWebhookSecret();
    const created = db.sqlite.transaction(() => {
      const at = now();
      const row = db.orm
        .insert(webhooks)
        .values({ url: "", format: input.format, ...this.columns(null, input), secret: "", createdAt: at, updatedAt: at })
        .returning()
        .get();
      // The id is bound into the sealed URL and secret, so they are sealed once the id is known.
      const sealed = { url: secrets.sealUrl(row.id, input.url), secret: secrets.seal(row.id, secret) };
      db.orm.update(webhooks).set(sealed).where(eq(webhooks.id, row.id)).run();
      const webhook = this.webhook({ ...row, ...sealed });
      this.seed(webhook);
      audit(db.orm, actor, "webhook.create", `webhook:${row.id}`, auditDetail(input), at);
      return webhook;
    })();
    this.deps.rules.reload();
    return { webhook: created, secret };
  }

  update(actor: Actor, id: number, input: WebhookInput): Webhook {
    const stored = this.row(id);
    const before = this.webhook(stored);
    const { db, secrets, now } = this.deps;
    const format = input.format ?? before.format;
    if (input.url !== undefined) this.checkUrl(input.url, format);
    else if (input.format !== undefined) this.checkFormat(format, secrets.openUrl(id, stored.url));
    const columns = this.columns(before, input);
    const enabling = columns.enabled && !before.enabled;
    // A new target, or an admin switching the webhook back on, starts with a clean record.
    const freshStart = enabling || (input.url !== undefined && input.url !== secrets.openUrl(id, stored.url));
    const updated = db.sqlite.transaction(() => {
      const at = now();
      const row = db.orm
        .update(webhooks)
        .set({
          ...columns,
          ...(input.url === undefined ? {} : { url: secrets.sealUrl(id, input.url) }),
          ...(input.format === undefined ? {} : { format: input.format }),
          ...(freshStart ? { failingSince: null } : {}),
          ...(enabling ? { disabledReason: null } : {}),
          updatedAt: at,
        })
        .where(eq(webhooks.id, id))
        .returning()
        .get();
      if (!row) throw new HttpProblem(404, `There is no webhook ${id}.`);
      const webhook = this.webhook(row);
      if (CONDITION_FIELDS.some((field) => input[field] !== undefined)) this.seed(webhook);
      audit(db.orm, actor, "webhook.update", `webhook:${id}`, auditDetail(input), at);
      return webhook;
    })();
    this.deps.rules.reload();
    if (enabling) this.deps.delivered();
    return updated;
  }

  /** Its pending deliveries and conditions go with it. */
  remove(actor: Actor, id: number): void {
    this.row(id);
    const { db, now } = this.deps;
    db.sqlite.transaction(() => {
      db.orm.delete(webhooks).where(eq(webhooks.id, id)).run();
      audit(db.orm, actor, "webhook.delete", `webhook:${id}`, null, now());
    })();
    this.deps.rules.reload();
    this.deps.eventRate.forget(eventAlertDestination.webhook(id));
  }

  /** A new secret; the old one stops signing at once, retries of pending deliveries included. */
  rotateSecret(actor: Actor, id: number): string {
    this.row(id);
    const { db, secrets, now } = this.deps;
    const secret = newWebhookSecret();
    db.sqlite.transaction(() => {
      db.orm.update(webhooks).set({ secret: secrets.seal(id, secret), updatedAt: now() }).where(eq(webhooks.id, id)).run();
      audit(db.orm, actor, "webhook.rotateSecret", `webhook:${id}`, null, now());
    })();
    return secret;
  }

  /** Queues a `test` message behind the webhook's other deliveries. */
  test(actor: Actor, id: number): number {
    const webhook = this.webhook(this.row(id));
    if (!webhook.enabled) throw new HttpProblem(409, `Webhook ${id} is disabled; enable it (PATCH enabled: true) before sending a test.`);
    const { db, outbox, now, origin } = this.deps;
    const deliveryId = db.sqlite.transaction(() => {
      const at = now();
      const message: AlertMessage = {
        type: "test",
        timestamp: new Date(at).toISOString(),
        data: { webhookId: id, message: `A test message from the hub at ${origin}. If you can read this, the webhook works.` },
      };
      const queued = outbox.enqueue(id, message, at);
      audit(db.orm, actor, "webhook.test", `webhook:${id}`, { deliveryId: queued }, at);
      return queued;
    })();
    this.deps.delivered();
    return deliveryId;
  }

  deliveries(id: number, limit: number, before: number | null): DeliveryPage {
    this.row(id);
    return this.deps.outbox.page(id, limit, before);
  }
}
