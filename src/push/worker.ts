/**
 * Push delivery: expands the batches that readings and events wrote into
 * one delivery per subscription, then sends each through the address guard
 * with web-push's encryption (RFC 8291) and VAPID (RFC 8292), off every
 * request path. 201/202 is delivered; 404/410 removes the subscription;
 * 429, 5xx and network failures are retried with backoff (or the service's
 * Retry-After), never past the message's TTL; 400/401/403/413 mark the
 * subscription failing and are logged once (the service's answer redacted by
 * the transport); a subscription still failing 7 days later is deleted, and
 * one delivered to again is no longer failing (SPEC §16.4).
 */
import type WebPush from "web-push";
import { eventAlertDestination, type EventAlertRate } from "../alerts/event-rate.ts";
import type { Resolve } from "../alerts/guard.ts";
import { deliver, type Fetcher, type Outcome } from "../alerts/transport.ts";
import type { Catalogue } from "../domain/catalogue.ts";
import type { HubDb } from "../db/open.ts";
import type { Logger } from "../log.ts";
import { loadMessages } from "../share/languages.ts";
import { en, type Messages } from "../web/i18n/messages/en.ts";
import { bonusMessage, eventMessage, topicOf } from "./messages.ts";
import type { PushMessage, StoredSubscription } from "./model.ts";
import { FAILING_DELETE_AFTER_MS, PUSH_TTL_SECONDS } from "./model.ts";
import type { PushSubscriptions } from "./subscriptions.ts";
import type { PushStats } from "./stats.ts";
import { judgeReading, type BatchData, type Fired } from "./batches.ts";
import type { VapidKeys } from "./vapid.ts";

const SECOND = 1000;
const HOUR = 3_600_000;

export interface PushPolicy {
  readonly timeoutMs: number;
  /** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
  readonly backoffMs: readonly number[];
  readonly maxParallel: number;
  /** Finished deliveries are kept this long, for the console's counts of the last 24 h. */
  readonly keepMs: number;
}

export const DEFAULT_PUSH_POLICY: PushPolicy = {
  timeoutMs: 10 * SECOND,
  backoffMs: [5 * SECOND, 30 * SECOND, 2 * 60 * SECOND, 5 * 60 * SECOND],
  maxParallel: 16,
  keepMs: 25 * HOUR,
};

/** A VAPID JWT is made once per push service and reused until this close to its expiry (12 h, SPEC §23). */
const JWT_LIFETIME_S = 12 * 3600;
const JWT_RENEW_BEFORE_S = 3600;
const MAX_SLEEP_MS = 60 * SECOND;
/** Work done per turn of the event loop, so the requests the hub serves meanwhile (a reading's post) wait for little of it. */
const EXPAND_CHUNK = 250;
const STARTS_PER_PUMP = 8;
const SWEEP_SPACING_MS = SECOND;

export interface PushWorkerDeps {
  readonly db: HubDb;
  readonly subscriptions: PushSubscriptions;
  /** The current key pair (it changes only with `hub push rotate-key`). */
  readonly keys: () => VapidKeys;
  readonly subject: string;
  readonly catalogue: Catalogue;
  readonly origin: string;
  readonly policy: PushPolicy;
  readonly allowPrivate: boolean;
  readonly resolve: Resolve;
  readonly fetch: Fetcher;
  readonly now: () => number;
  readonly random: () => number;
  readonly log: Logger;
  readonly stats: PushStats;
  readonly storageRefusal: (error: unknown) => unknown;
  /** Event alerts per destination (SPEC §16.3), shared with the webhooks: at most six event pushes an hour to one subscription. */
  readonly eventRate: EventAlertRate;
  /** When the forecast expects a bonus to end (see bonusUntil), or null. */
  readonly until: (platform: string, region: string, role: "survivor" | "killer", bonus: number) => number | null;
}

let webPushLoaded: Promise<typeof WebPush> | null = null;

/** npm web-push, loaded with the first push to send: a hub whose viewers never subscribe does not carry it in memory. */
function webPushLibrary(): Promise<typeof WebPush> {
  webPushLoaded ??= import("web-push").then((module) => module.default);
  return webPushLoaded;
}

interface DueRow {
  id: number;
  subscription_id: number;
  message: string;
  topic: string;
  attempts: number;
  expires_at: number;
}

type Result =
  | { readonly id: number; readonly kind: "delivered"; readonly subscriptionId: number; readonly statusCode: number }
  | { readonly id: number; readonly kind: "gone"; readonly subscriptionId: number; readonly statusCode: number }
  | { readonly id: number; readonly kind: "retry"; readonly at: number; readonly attempts: number; readonly statusCode: number | null }
  | { readonly id: number; readonly kind: "expired"; readonly statusCode: number | null }
  | { readonly id: number; readonly kind: "failed"; readonly subscriptionId: number; readonly statusCode: number | null; readonly error: string };

function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * SECOND;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export class PushWorker {
  private running = false;
  private queued = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly results: Result[] = [];
  private stopper = new AbortController();
  private readonly jwts = new Map<string, { header: string; renewAt: number }>();
  private lastSweep = Number.NEGATIVE_INFINITY;
  /** The batch being expanded: who it reaches and the messages made for it so far. */
  private expanding: { batchId: number; fired: readonly Fired[]; messages: Map<string, { json: string; topic: string }> } | null = null;
  /** The catalogue of each language pushes were written in so far, loaded when the first push in it is made. */
  private readonly words = new Map<string, Messages>([["en", en]]);
  private loadingWords: Promise<void> | null = null;
  private readonly queries;

  constructor(private readonly deps: PushWorkerDeps) {
    const { sqlite } = deps.db;
    this.queries = {
      batch: sqlite.query<{ id: number; kind: string; platform: string; data: string; created_at: number }, []>(
        "SELECT id, kind, platform, data, created_at FROM push_batches ORDER BY id LIMIT 1",
      ),
      updateBatch: sqlite.query<unknown, [string, number]>("UPDATE push_batches SET data = ? WHERE id = ?"),
      deleteBatch: sqlite.query<unknown, [number]>("DELETE FROM push_batches WHERE id = ?"),
      insertDelivery: sqlite.query<unknown, [number, string, string, number, number, number]>(
        "INSERT INTO push_deliveries (subscription_id, message, topic, created_at, expires_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      due: sqlite.query<DueRow, [number, number]>(
        "SELECT id, subscription_id, message, topic, attempts, expires_at FROM push_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?",
      ),
      nextDue: sqlite.query<{ at: number | null }, []>("SELECT MIN(next_attempt_at) AS at FROM push_deliveries WHERE status = 'pending'"),
      finish: sqlite.query<unknown, [string, number | null, number, number]>("UPDATE push_deliveries SET status = ?, status_code = ?, finished_at = ? WHERE id = ?"),
      retry: sqlite.query<unknown, [number, number, number | null, number]>("UPDATE push_deliveries SET attempts = ?, next_attempt_at = ?, status_code = ? WHERE id = ?"),
      expireLate: sqlite.query<unknown, [number, number]>("UPDATE push_deliveries SET status = 'expired', finished_at = ? WHERE status = 'pending' AND expires_at <= ?"),
      prune: sqlite.query<unknown, [number]>("DELETE FROM push_deliveries WHERE status <> 'pending' AND finished_at < ?"),
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopper = new AbortController();
    this.kick();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopper.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    this.flushResults();
  }

  /** Looks at the outbox soon; never blocks the caller. */
  kick(): void {
    if (!this.running || this.queued) return;
    this.queued = true;
    // setImmediate: after the I/O already waiting (a reading's request), not a timer's millisecond later.
    setImmediate(() => this.pump());
  }

  /** Forgets the JWTs made with the old key. */
  forgetJwts(): void {
    this.jwts.clear();
  }

  /** Resolves once nothing is in flight and nothing due is left (tests). */
  async idle(): Promise<void> {
    while (this.queued || this.inFlight.size > 0 || this.results.length > 0) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
      else await Bun.sleep(1);
    }
  }

  private pump(): void {
    this.queued = false;
    if (!this.running) return;
    const now = this.deps.now();
    let wake = now + MAX_SLEEP_MS;
    try {
      this.flushResults();
      const expanding = this.expandOne(now);
      // Both look at many rows: once a second is soon enough, and a burst of 10,000 sends pumps thousands of times.
      if (now - this.lastSweep >= SWEEP_SPACING_MS || now < this.lastSweep) {
        this.lastSweep = now;
        const expired = this.queries.expireLate.run(now, now).changes;
        for (let i = 0; i < expired; i++) this.deps.stats.count("expired");
        this.queries.prune.run(now - this.deps.policy.keepMs);
        const dropped = this.deps.subscriptions.deleteFailingSince(now - FAILING_DELETE_AFTER_MS);
        if (dropped > 0) this.deps.log.info("push subscriptions refused by their push service for 7 days were deleted", { deleted: dropped });
      }
      const room = Math.min(this.deps.policy.maxParallel - this.inFlight.size, STARTS_PER_PUMP);
      let started = 0;
      if (room > 0) {
        for (const row of this.queries.due.all(now, room + this.inFlight.size)) {
          if (this.inFlight.size >= this.deps.policy.maxParallel || started >= room) break;
          if (this.inFlight.has(row.id)) continue;
          // Past its TTL (the hub was down, or the clock jumped): never sent late.
          if (row.expires_at <= now) {
            this.results.push({ id: row.id, kind: "expired", statusCode: null });
            this.kick();
            continue;
          }
          this.begin(row);
          started++;
        }
      }
      if (expanding || (room > 0 && started === room)) this.kick();
      const next = this.queries.nextDue.get()?.at ?? null;
      if (next !== null && next > now) wake = Math.min(wake, next);
    } catch (error) {
      if (!this.deps.storageRefusal(error)) this.deps.log.error("the push outbox could not be read", { error });
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), Math.max(0, wake - now));
    this.timer.unref?.();
  }

  /** Turns (part of) the oldest batch into deliveries, in one transaction; false when there is none. */
  private expandOne(now: number): boolean {
    const batch = this.queries.batch.get();
    if (batch === null) return false;
    const data = JSON.parse(batch.data) as BatchData;
    const expiresAt = batch.created_at + PUSH_TTL_SECONDS * SECOND;
    const until = new Map<string, number | null>();
    const untilOf = (role: "survivor" | "killer", bonus: number): number | null => {
      if (data.kind !== "bonus") return null;
      if (!until.has(role)) until.set(role, this.deps.until(batch.platform, data.region, role, bonus));
      return until.get(role) ?? null;
    };
    const { subscriptions } = this.deps;
    // Judged once per batch while it is expanded, not once per chunk (a restart judges it again, from where it stopped).
    if (this.expanding?.batchId !== batch.id) {
      const fired =
        data.kind === "bonus"
          ? judgeReading(subscriptions, batch.platform, data.region, data.before, data)
          : subscriptions
              .eventSubscribers(batch.platform)
              .sort((a, b) => a - b)
              .map((subscriptionId) => ({ subscriptionId, role: null }));
      this.expanding = { batchId: batch.id, fired, messages: new Map() };
    }
    const { fired, messages } = this.expanding;
    const pending = fired.filter((f) => f.subscriptionId > data.doneUpTo);
    const chunk = pending.slice(0, EXPAND_CHUNK);
    const last = chunk.at(-1)?.subscriptionId ?? data.doneUpTo;
    if (!this.wordsReady(chunk.map((f) => this.deps.subscriptions.get(f.subscriptionId)?.lang ?? "en"))) return false;
    // An event push over its subscription's hourly limit is held back; the next one sent says how many were. Kept only once written.
    const rate = data.kind === "event" ? this.deps.eventRate.begin(now) : null;
    this.deps.db.sqlite.transaction(() => {
      for (const fired of chunk) {
        const subscription = this.deps.subscriptions.get(fired.subscriptionId);
        if (!subscription) continue;
        if (rate !== null) {
          const verdict = rate.admit(eventAlertDestination.push(subscription.id));
          if (!verdict.send) continue;
          if (verdict.heldBack !== null) {
            const message = this.messageFor(subscription, batch.platform, data, fired.role, untilOf, verdict.heldBack.count);
            this.queries.insertDelivery.run(subscription.id, JSON.stringify(message.message), message.topic, batch.created_at, expiresAt, now);
            continue;
          }
        }
        // The same words for every subscription of one language and role: made and serialised once.
        const key = `${subscription.lang}\u0000${fired.role ?? ""}`;
        let made = messages.get(key);
        if (!made) {
          const message = this.messageFor(subscription, batch.platform, data, fired.role, untilOf);
          made = { json: JSON.stringify(message.message), topic: message.topic };
          messages.set(key, made);
        }
        this.queries.insertDelivery.run(subscription.id, made.json, made.topic, batch.created_at, expiresAt, now);
      }
      if (pending.length <= EXPAND_CHUNK) {
        this.queries.deleteBatch.run(batch.id);
        this.expanding = null;
      }
      else this.queries.updateBatch.run(JSON.stringify({ ...data, doneUpTo: last }), batch.id);
    })();
    rate?.commit();
    return true;
  }

  /** True when the catalogue of every language in `langs` is at hand; otherwise loads the missing ones and looks at the outbox again once they are. */
  private wordsReady(langs: readonly string[]): boolean {
    const missing = [...new Set(langs)].filter((lang) => !this.words.has(lang));
    if (missing.length === 0) return true;
    this.loadingWords ??= Promise.all(
      missing.map(async (lang) => {
        try {
          this.words.set(lang, await loadMessages(lang));
        } catch (error) {
          this.deps.log.error("a language's words could not be loaded; its pushes are written in English", { lang, error });
          this.words.set(lang, en);
        }
      }),
    ).then(() => {
      this.loadingWords = null;
      this.kick();
    });
    return false;
  }

  private messageFor(
    subscription: StoredSubscription,
    platform: string,
    data: BatchData,
    role: "survivor" | "killer" | null,
    untilOf: (role: "survivor" | "killer", bonus: number) => number | null,
    heldBack: number | null = null,
  ): { message: PushMessage; topic: string } {
    const words = this.words.get(subscription.lang) ?? en;
    if (data.kind === "event") {
      const message = eventMessage(subscription.lang, words, this.deps.origin, platform, data.event, heldBack);
      return { message, topic: message.tag };
    }
    const chosen = role ?? "killer";
    const bonus = chosen === "survivor" ? data.survivor : data.killer;
    const message = bonusMessage(subscription.lang, words, this.deps.catalogue, this.deps.origin, { platform, region: data.region, role: chosen, bonus, until: untilOf(chosen, bonus) });
    return { message, topic: topicOf(platform, data.region, chosen) };
  }

  private vapidHeader(webpush: typeof WebPush, endpoint: string): string {
    const audience = new URL(endpoint).origin;
    const nowSeconds = Math.floor(Date.now() / SECOND);
    const cached = this.jwts.get(audience);
    if (cached && cached.renewAt > nowSeconds) return cached.header;
    const keys = this.deps.keys();
    const { subject } = this.deps;
    const header = webpush.getVapidHeaders(audience, subject, keys.publicKey, keys.privateKey, "aes128gcm", nowSeconds + JWT_LIFETIME_S).Authorization;
    this.jwts.set(audience, { header, renewAt: nowSeconds + JWT_LIFETIME_S - JWT_RENEW_BEFORE_S });
    return header;
  }

  private begin(row: DueRow): void {
    const attempt = this.attempt(row)
      .catch((error: unknown) => {
        this.deps.log.error("a push could not be attempted", { deliveryId: row.id, error });
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.kick();
      });
    this.inFlight.set(row.id, attempt);
  }

  private async attempt(row: DueRow): Promise<void> {
    const subscription = this.deps.subscriptions.get(row.subscription_id);
    if (!subscription) return;
    const now = this.deps.now();
    const ttl = Math.max(0, Math.floor((row.expires_at - now) / SECOND));
    const webpush = await webPushLibrary();
    const details = webpush.generateRequestDetails({ endpoint: subscription.endpoint, keys: subscription.keys }, row.message, {
      TTL: ttl,
      urgency: "high",
      topic: row.topic,
      contentEncoding: "aes128gcm",
      headers: { Authorization: this.vapidHeader(webpush, subscription.endpoint) },
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) if (name.toLowerCase() !== "content-length") headers[name] = String(value);
    const started = performance.now();
    let retryAfter: string | null = null;
    const fetcher: Fetcher = async (url, init) => {
      const response = await this.deps.fetch(url, init);
      retryAfter = response.headers.get("retry-after");
      return response;
    };
    const outcome: Outcome = await deliver(
      subscription.endpoint,
      { method: "POST", headers, body: new Blob([new Uint8Array(details.body)]) },
      { allowPrivate: this.deps.allowPrivate, resolve: this.deps.resolve, fetch: fetcher, timeoutMs: this.deps.policy.timeoutMs, maxRedirects: 0, bodyCapBytes: 512, keepAlive: true },
      this.stopper.signal,
    );
    this.deps.stats.observeSend((performance.now() - started) / SECOND);
    if (!outcome.delivered && this.stopper.signal.aborted) return;
    this.results.push(this.judge(row, subscription, outcome, retryAfter));
    this.kick();
  }

  private judge(row: DueRow, subscription: StoredSubscription, outcome: Outcome, retryAfter: string | null): Result {
    const status = outcome.statusCode;
    if (outcome.delivered && (status === 201 || status === 202 || status === 200)) return { id: row.id, kind: "delivered", subscriptionId: subscription.id, statusCode: status ?? 201 };
    if (status === 404 || status === 410) return { id: row.id, kind: "gone", subscriptionId: subscription.id, statusCode: status };
    if (status !== null && (status === 400 || status === 401 || status === 403 || status === 413 || (status >= 300 && status < 500 && status !== 429))) {
      return { id: row.id, kind: "failed", subscriptionId: subscription.id, statusCode: status, error: outcome.error ?? `HTTP ${status}` };
    }
    const now = this.deps.now();
    const attempts = row.attempts + 1;
    const { backoffMs } = this.deps.policy;
    const base = backoffMs[Math.min(attempts, backoffMs.length) - 1] ?? 0;
    const backoff = Math.round(base * (1 + 0.2 * (2 * this.deps.random() - 1)));
    const told = status === 429 || (status !== null && status >= 500) ? retryAfterMs(retryAfter, now) : null;
    const at = now + Math.max(backoff, told ?? 0);
    if (at >= row.expires_at) return { id: row.id, kind: "expired", statusCode: status };
    return { id: row.id, kind: "retry", at, attempts, statusCode: status };
  }

  /** Stores what the attempts came to, many in one transaction. */
  private flushResults(): void {
    if (this.results.length === 0) return;
    const results = this.results.splice(0);
    const now = this.deps.now();
    const { stats, subscriptions, log } = this.deps;
    const failedFirst: { subscriptionId: number; error: string; statusCode: number | null }[] = [];
    try {
      this.deps.db.sqlite.transaction(() => {
        for (const result of results) {
          switch (result.kind) {
            case "delivered":
              this.queries.finish.run("delivered", result.statusCode, now, result.id);
              subscriptions.working(result.subscriptionId);
              break;
            case "gone":
              this.queries.finish.run("gone", result.statusCode, now, result.id);
              subscriptions.delete(result.subscriptionId);
              break;
            case "expired":
              this.queries.finish.run("expired", result.statusCode, now, result.id);
              break;
            case "retry":
              this.queries.retry.run(result.attempts, result.at, result.statusCode, result.id);
              break;
            case "failed":
              this.queries.finish.run("failed", result.statusCode, now, result.id);
              if (subscriptions.failing(result.subscriptionId, result.error, now)) failedFirst.push(result);
              break;
          }
        }
      })();
    } catch (error) {
      this.results.unshift(...results);
      if (!this.deps.storageRefusal(error)) log.error("push outcomes could not be stored", { error });
      return;
    }
    for (const result of results) stats.count(result.kind);
    for (const failed of failedFirst) {
      log.warn("a push service refused a subscription's message; it is marked failing until the device subscribes again", {
        subscriptionId: failed.subscriptionId,
        statusCode: failed.statusCode,
        answer: failed.error,
      });
    }
  }
}
