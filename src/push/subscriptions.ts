/**
 * The push subscriptions: stored with their rules and the hash of their
 * manage token, and indexed in memory by platform so that judging a reading
 * touches only the rules of its platform.
 */
import { randomToken, secretsEqual, sha256Hex } from "../domain/tokens.ts";
import type { HubDb } from "../db/open.ts";
import type { PushKeys, PushRule, StoredSubscription } from "./model.ts";

interface Row {
  id: number;
  public_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  token_hash: string;
  lang: string;
  events: number;
  rules: string;
  user_id: number | null;
}

export interface SubscriptionInput {
  readonly endpoint: string;
  readonly keys: PushKeys;
  readonly lang: string;
  readonly events: boolean;
  readonly rules: readonly PushRule[];
}

/** A rule of one subscription, as the index holds it. */
export interface IndexedRule extends PushRule {
  readonly subscriptionId: number;
}

const toSubscription = (row: Row): StoredSubscription => ({
  id: row.id,
  publicId: row.public_id,
  endpoint: row.endpoint,
  keys: { p256dh: row.p256dh, auth: row.auth },
  lang: row.lang,
  events: row.events === 1,
  rules: JSON.parse(row.rules) as PushRule[],
  userId: row.user_id,
});

/** The endpoint is looked up by its hash: the same device subscribing again replaces its rules. */
const endpointHash = (endpoint: string): string => sha256Hex(`push-endpoint\u0000${endpoint}`);

/** Deletes a user's push subscriptions in a database no hub serves (`hub user reset-password` on a stopped hub's file). */
export function deleteSubscriptionsOf(db: HubDb, userId: number): void {
  db.sqlite.query("DELETE FROM push_subscriptions WHERE user_id = ?").run(userId);
}

export class PushSubscriptions {
  private readonly byId = new Map<number, StoredSubscription>();
  private readonly byPlatform = new Map<string, IndexedRule[]>();
  private readonly all;
  private readonly insert;
  private readonly update;
  private readonly remove;
  private readonly byEndpoint;
  private readonly byPublicId;
  private readonly markFailing;
  private readonly markWorking;
  private readonly failingBefore;

  /** `deleted`: told of each subscription deleted, so what is kept about it elsewhere (its event-alert budget) goes too. */
  constructor(
    private readonly db: HubDb,
    private readonly deleted: (id: number) => void = () => undefined,
  ) {
    const columns = "id, public_id, endpoint, p256dh, auth, token_hash, lang, events, rules, user_id";
    this.all = db.sqlite.query<Row, []>(`SELECT ${columns} FROM push_subscriptions ORDER BY id`);
    this.insert = db.sqlite.query<{ id: number }, [string, string, string, string, string, string, string, number, string, number, number, number | null]>(
      "INSERT INTO push_subscriptions (public_id, endpoint, endpoint_hash, p256dh, auth, token_hash, lang, events, rules, created_at, updated_at, user_id) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
    );
    this.update = db.sqlite.query<unknown, [string, string, string, string, string, number, string, number, number]>(
      "UPDATE push_subscriptions SET endpoint = ?, endpoint_hash = ?, p256dh = ?, auth = ?, lang = ?, events = ?, rules = ?, updated_at = ?, failing_since = NULL, failure = NULL WHERE id = ?",
    );
    this.remove = db.sqlite.query<unknown, [number]>("DELETE FROM push_subscriptions WHERE id = ?");
    this.byEndpoint = db.sqlite.query<Row, [string]>(`SELECT ${columns} FROM push_subscriptions WHERE endpoint_hash = ?`);
    this.byPublicId = db.sqlite.query<Row, [string]>(`SELECT ${columns} FROM push_subscriptions WHERE public_id = ?`);
    this.markFailing = db.sqlite.query<{ id: number }, [number, string, number]>(
      "UPDATE push_subscriptions SET failing_since = ?, failure = ? WHERE id = ? AND failing_since IS NULL RETURNING id",
    );
    this.markWorking = db.sqlite.query<unknown, [number]>("UPDATE push_subscriptions SET failing_since = NULL, failure = NULL WHERE id = ? AND failing_since IS NOT NULL");
    this.failingBefore = db.sqlite.query<{ id: number }, [number]>("SELECT id FROM push_subscriptions WHERE failing_since IS NOT NULL AND failing_since <= ?");
    this.reload();
  }

  reload(): void {
    this.byId.clear();
    for (const row of this.all.all()) this.byId.set(row.id, toSubscription(row));
    this.reindex();
  }

  private reindex(): void {
    this.byPlatform.clear();
    for (const subscription of this.byId.values()) this.index(subscription);
  }

  private index(subscription: StoredSubscription): void {
    for (const rule of subscription.rules) {
      let list = this.byPlatform.get(rule.platform);
      if (!list) this.byPlatform.set(rule.platform, (list = []));
      list.push({ ...rule, subscriptionId: subscription.id });
    }
  }

  get count(): number {
    return this.byId.size;
  }

  get(id: number): StoredSubscription | undefined {
    return this.byId.get(id);
  }

  rulesOn(platform: string): readonly IndexedRule[] {
    return this.byPlatform.get(platform) ?? [];
  }

  /** Subscriptions that asked for events and follow the platform. */
  eventSubscribers(platform: string): number[] {
    const ids = new Set<number>();
    for (const rule of this.rulesOn(platform)) if (this.byId.get(rule.subscriptionId)?.events) ids.add(rule.subscriptionId);
    return [...ids];
  }

  /** The subscription of an endpoint, if any. */
  findByEndpoint(endpoint: string): StoredSubscription | null {
    const row = this.byEndpoint.get(endpointHash(endpoint));
    return row === null ? null : toSubscription(row);
  }

  /** The subscription an id and manage token open, or null: a wrong token and an unknown id look the same. */
  open(publicId: string, token: string | null): StoredSubscription | null {
    const row = this.byPublicId.get(publicId);
    const presented = sha256Hex(token ?? "");
    // Hashed either way, so a missing row and a wrong token take the same time.
    const stored = row?.token_hash ?? sha256Hex(randomToken(16));
    if (row === null || token === null || !secretsEqual(presented, stored)) return null;
    return toSubscription(row);
  }

  /** A new subscription, with the manage token shown only now; `userId` the user it belongs to (SPEC §16.4), or null. */
  create(input: SubscriptionInput, now: number, userId: number | null = null): { subscription: StoredSubscription; manageToken: string } {
    const manageToken = randomToken(32);
    const publicId = randomToken(12);
    const row = this.insert.get(
      publicId,
      input.endpoint,
      endpointHash(input.endpoint),
      input.keys.p256dh,
      input.keys.auth,
      sha256Hex(manageToken),
      input.lang,
      input.events ? 1 : 0,
      JSON.stringify(input.rules),
      now,
      now,
      userId,
    );
    if (row === null) throw new Error("the push subscription was not stored");
    const subscription: StoredSubscription = { id: row.id, publicId, ...input, userId };
    this.byId.set(row.id, subscription);
    this.index(subscription);
    return { subscription, manageToken };
  }

  replace(existing: StoredSubscription, input: SubscriptionInput, now: number): StoredSubscription {
    this.update.run(input.endpoint, endpointHash(input.endpoint), input.keys.p256dh, input.keys.auth, input.lang, input.events ? 1 : 0, JSON.stringify(input.rules), now, existing.id);
    const subscription: StoredSubscription = { id: existing.id, publicId: existing.publicId, ...input, userId: existing.userId };
    this.byId.set(existing.id, subscription);
    this.reindex();
    return subscription;
  }

  delete(id: number): void {
    this.remove.run(id);
    if (this.byId.delete(id)) this.reindex();
    this.deleted(id);
  }

  /** Marks a subscription failing; true the first time (so its failure is logged once). */
  failing(id: number, failure: string, now: number): boolean {
    return this.markFailing.get(now, failure, id) !== null;
  }

  /** A message delivered: the subscription works again, so the days it spent failing no longer count. */
  working(id: number): void {
    this.markWorking.run(id);
  }

  /** Deletes the subscriptions failing since `before` or earlier; how many. */
  deleteFailingSince(before: number): number {
    const ids = this.failingBefore.all(before).map((row) => row.id);
    for (const id of ids) this.delete(id);
    return ids.length;
  }

  /** Deletes the subscriptions of a user whose access ended (disabled, deleted, password reset); how many. */
  deleteOwnedBy(userId: number): number {
    const ids = [...this.byId.values()].filter((subscription) => subscription.userId === userId).map((subscription) => subscription.id);
    for (const id of ids) this.delete(id);
    return ids.length;
  }

  /** Drops every subscription (a new key pair makes them all useless). */
  deleteAll(): number {
    const removed = this.db.sqlite.query("DELETE FROM push_subscriptions").run().changes;
    for (const id of this.byId.keys()) this.deleted(id);
    this.byId.clear();
    this.reindex();
    return removed;
  }
}
