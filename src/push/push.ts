/**
 * Web Push as a whole (SPEC §23): the key pair, the subscriptions, judging
 * readings and events into the push outbox, and the worker that delivers.
 * Alerts decide that a rule became true (alerts/rules.ts); this only formats
 * and delivers.
 */
import { EVENT_ALERT_LIMIT, eventAlertDestination, type EventAlertRate } from "../alerts/event-rate.ts";
import { resolveWithBun, type Resolve } from "../alerts/guard.ts";
import type { Fetcher } from "../alerts/transport.ts";
import type { Config } from "../config/load.ts";
import type { HubDb } from "../db/open.ts";
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { PreparedEffects } from "../live/ingest.ts";
import type { LiveStore } from "../live/store.ts";
import type { Logger } from "../log.ts";
import type { ForecastContent } from "../domain/forecast.ts";
import { firesAny, PushBatches } from "./batches.ts";
import { bonusUntil, topicOf } from "./messages.ts";
import { endpointAddressProblem, endpointProblem } from "./endpoint.ts";
import { NEW_PER_ADDRESS_PER_HOUR } from "./model.ts";
import { PushStats } from "./stats.ts";
import { PushSubscriptions, type SubscriptionInput } from "./subscriptions.ts";
import { loadVapidKeys, pushOffReason, rotateVapidKeys, UnreadableVapidKey, vapidSubject, type VapidKeys } from "./vapid.ts";
import { DEFAULT_PUSH_POLICY, PushWorker, type PushPolicy } from "./worker.ts";

const HOUR = 3_600_000;
const MAX_REMEMBERED_ADDRESSES = 100_000;

export interface PushOptions {
  readonly policy?: Partial<PushPolicy>;
  readonly resolve?: Resolve;
  readonly fetch?: Fetcher;
  readonly random?: () => number;
}

export interface PushDeps {
  readonly db: HubDb;
  readonly config: Pick<Config, "catalogue" | "origin" | "webhookAllowPrivate" | "pushEnabled" | "pushServiceHosts" | "maxPushSubscriptions" | "vapidPrivateKey" | "contactEmail">;
  readonly live: LiveStore;
  readonly hubKey: Uint8Array;
  readonly now: () => number;
  readonly log: Logger;
  readonly storageRefusal: (error: unknown) => unknown;
  /** Event alerts per destination (SPEC §16.3): the alerts' own, so webhooks and push subscriptions are limited by one judge, each destination on its own budget. */
  readonly eventRate: EventAlertRate;
  /** The forecast of a region, for "until about …" (SPEC §23); absent, messages say nothing of it. */
  readonly forecast?: (platform: string, region: string) => Pick<ForecastContent, "confidence" | "points">;
}

/** Why a subscription was refused: the status and the sentence for the problem detail. */
export class PushRefusal extends Error {
  override readonly name = "PushRefusal";
  constructor(
    readonly status: 400 | 429 | 503,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/** How long a push service's addresses are reused: a burst sends thousands of messages to one host. */
const RESOLVE_TTL_MS = 30_000;

/** A resolver that keeps each answer for RESOLVE_TTL_MS; the guard still checks every address it gives. */
function remembered(resolve: Resolve): Resolve {
  const answers = new Map<string, { at: number; addresses: Promise<readonly string[]> }>();
  return (hostname) => {
    const now = performance.now();
    const known = answers.get(hostname);
    if (known && now - known.at < RESOLVE_TTL_MS) return known.addresses;
    const addresses = resolve(hostname);
    answers.set(hostname, { at: now, addresses });
    addresses.catch(() => answers.delete(hostname));
    if (answers.size > 1000) answers.clear();
    return addresses;
  };
}

const eventId = (event: PublicEvent | null): string | null => (event === null ? null : `${event.key}\u0000${event.startsAt}`);

export class Push {
  readonly subscriptions: PushSubscriptions;
  readonly stats = new PushStats();
  /** Why push is off, or null when it is on. */
  readonly offReason: string | null;
  private current: VapidKeys | null;
  private readonly worker: PushWorker | null;
  private readonly batches: PushBatches;
  private readonly resolve: Resolve;
  private readonly newByAddress = new Map<string, number[]>();
  private readonly events = new Map<Platform, string | null>();

  constructor(
    private readonly deps: PushDeps,
    options: PushOptions = {},
  ) {
    const { db, config, live, log } = deps;
    this.subscriptions = new PushSubscriptions(db, (id) => deps.eventRate.forget(eventAlertDestination.push(id)));
    this.batches = new PushBatches(db);
    this.resolve = remembered(options.resolve ?? resolveWithBun);
    const subject = vapidSubject(config.contactEmail, config.origin);
    let offReason = pushOffReason(config.pushEnabled, subject);
    let keys: VapidKeys | null = null;
    if (offReason === null) {
      try {
        keys = loadVapidKeys(db, deps.hubKey, config.vapidPrivateKey, deps.now());
      } catch (error) {
        if (!(error instanceof UnreadableVapidKey)) throw error;
        offReason = `Web Push is off: ${error.message}.`;
      }
    }
    this.offReason = offReason;
    this.current = keys;
    this.worker =
      keys === null || subject === null
        ? null
        : new PushWorker({
            db,
            subscriptions: this.subscriptions,
            keys: () => this.current ?? keys,
            subject,
            catalogue: config.catalogue,
            origin: config.origin,
            policy: { ...DEFAULT_PUSH_POLICY, ...options.policy },
            allowPrivate: config.webhookAllowPrivate,
            resolve: this.resolve,
            fetch: options.fetch ?? fetch,
            now: deps.now,
            random: options.random ?? Math.random,
            log,
            stats: this.stats,
            storageRefusal: deps.storageRefusal,
            eventRate: deps.eventRate,
            until: (platform, region, role, bonus) => {
              if (!deps.forecast) return null;
              try {
                return bonusUntil(deps.forecast(platform, region), role, bonus, deps.now());
              } catch (error) {
                log.error("the forecast for a push message could not be made; it is sent without an end time", { error });
                return null;
              }
            },
          });
    this.seedEventRate();
    for (const platform of PLATFORMS) this.events.set(platform, eventId(live.current(platform).content.activeEvent));
    live.onChange((published) => this.noticeEvent(published.platform, published.content.activeEvent));
  }

  /** The event pushes of the last hour, as the outbox holds them, still count after a restart (an event push's topic is its platform's event topic). */
  private seedEventRate(): void {
    const topics = PLATFORMS.map((platform) => topicOf(platform, "", "event"));
    const recent = this.deps.db.sqlite
      .query<{ subscription_id: number; created_at: number }, [number, ...string[]]>(
        `SELECT subscription_id, created_at FROM push_deliveries WHERE created_at > ? AND topic IN (${topics.map(() => "?").join(", ")}) ORDER BY created_at`,
      )
      .all(this.deps.now() - EVENT_ALERT_LIMIT.windowMs, ...topics);
    for (const row of recent) this.deps.eventRate.seed(eventAlertDestination.push(row.subscription_id), [row.created_at]);
  }

  get enabled(): boolean {
    return this.worker !== null;
  }

  get keys(): VapidKeys | null {
    return this.current;
  }

  /** `hub push rotate-key` on a serving hub: a new pair, every subscription dropped. */
  rotateKey(): { dropped: number } {
    if (this.deps.config.vapidPrivateKey !== null) throw new PushRefusal(400, "The push key is given by VAPID_PRIVATE_KEY; change that setting instead.");
    const { keys, dropped } = rotateVapidKeys(this.deps.db, this.deps.hubKey, this.deps.now());
    this.subscriptions.reload();
    if (this.current !== null) this.current = keys;
    this.worker?.forgetJwts();
    return { dropped };
  }

  start(): void {
    if (this.offReason !== null && this.deps.config.pushEnabled) this.deps.log.warn(this.offReason);
    this.worker?.start();
  }

  async stop(): Promise<void> {
    await this.worker?.stop();
  }

  /** Resolves when nothing is left to send now (tests). */
  async idle(): Promise<void> {
    await this.worker?.idle();
  }

  /** The live path's question: the batch a reading about to become live writes with it, or null. */
  prepare(platform: Platform, region: string, reading: { survivor: number; killer: number }, now: number): PreparedEffects | null {
    if (this.worker === null || this.subscriptions.rulesOn(platform).length === 0) return null;
    const shown = this.deps.live.live(platform, region);
    const before = { survivor: shown?.survivor ?? 0, killer: shown?.killer ?? 0 };
    if (before.survivor === reading.survivor && before.killer === reading.killer) return null;
    if (!firesAny(this.subscriptions, platform, region, before, reading)) return null;
    const worker = this.worker;
    return {
      write: () => this.batches.write(platform, { kind: "bonus", region, survivor: reading.survivor, killer: reading.killer, before, measuredAt: now, doneUpTo: 0 }, now),
      committed: () => worker.kick(),
    };
  }

  /** An event coming into force on a platform reaches the subscriptions that asked for events and follow it. */
  private noticeEvent(platform: Platform, event: PublicEvent | null): void {
    const id = eventId(event);
    if (this.events.get(platform) === id) return;
    this.events.set(platform, id);
    if (event === null || this.worker === null) return;
    if (this.subscriptions.eventSubscribers(platform).length === 0) return;
    try {
      this.batches.write(platform, { kind: "event", event, doneUpTo: 0 }, this.deps.now());
      this.worker.kick();
    } catch (error) {
      if (!this.deps.storageRefusal(error)) this.deps.log.error("an event's pushes could not be written", { error });
    }
  }

  /** Checks a subscription's endpoint: the text, then the address guard on what its name resolves to. */
  async checkEndpoint(endpoint: string): Promise<void> {
    const problem = endpointProblem(endpoint, this.deps.config.pushServiceHosts);
    if (problem !== null) throw new PushRefusal(400, `The subscription's endpoint ${problem}.`);
    const refused = await endpointAddressProblem(endpoint, this.deps.config.webhookAllowPrivate, this.resolve);
    if (refused !== null) throw new PushRefusal(400, `The subscription's endpoint ${refused}.`);
  }

  /**
   * Stores a subscription: a new one (201) within the per-address and total
   * limits, or the same endpoint's rules replaced (200). Either way a fresh
   * manage token is handed out. `userId`: the user it belongs to while the
   * hub requires sign-in (SPEC §16.4), else null.
   */
  async subscribe(input: SubscriptionInput, address: string, userId: number | null = null): Promise<{ created: boolean; id: string; manageToken: string }> {
    await this.checkEndpoint(input.endpoint);
    const now = this.deps.now();
    const existing = this.subscriptions.findByEndpoint(input.endpoint);
    if (existing !== null) {
      this.subscriptions.delete(existing.id);
      const { subscription, manageToken } = this.subscriptions.create(input, now, userId);
      return { created: false, id: subscription.publicId, manageToken };
    }
    const recent = (this.newByAddress.get(address) ?? []).filter((at) => at > now - HOUR);
    if (recent.length >= NEW_PER_ADDRESS_PER_HOUR) {
      const retryAfter = Math.max(1, Math.ceil(((recent[0] ?? now) + HOUR - now) / 1000));
      throw new PushRefusal(429, `At most ${NEW_PER_ADDRESS_PER_HOUR} new push subscriptions an hour come from one address; try again later.`, retryAfter);
    }
    if (this.subscriptions.count >= this.deps.config.maxPushSubscriptions) {
      throw new PushRefusal(503, "This hub keeps as many push subscriptions as it is set to (MAX_PUSH_SUBSCRIPTIONS); try again later.");
    }
    const { subscription, manageToken } = this.subscriptions.create(input, now, userId);
    recent.push(now);
    // Addresses seen more than an hour ago are forgotten once many are remembered, so a flood cannot grow this without end.
    if (this.newByAddress.size >= MAX_REMEMBERED_ADDRESSES) {
      for (const [seen, times] of this.newByAddress) if ((times.at(-1) ?? 0) <= now - HOUR) this.newByAddress.delete(seen);
    }
    this.newByAddress.set(address, recent);
    return { created: true, id: subscription.publicId, manageToken };
  }

  metricsText(): string {
    return this.stats.render(this.subscriptions.count);
  }
}
