/**
 * Alerts as a whole (SPEC §18): turns readings, status changes and events
 * into outbox rows, and runs the worker that delivers them.
 *
 * Bonus conditions are judged on the live path, in memory, and their outbox
 * rows are written in the very transaction that stores the reading. Status
 * changes and events starting or ending are noticed when a platform's
 * payload is republished; their rows are written in a transaction of their
 * own right after, together with the state they were judged against, so a
 * change is announced once, and one that happened while the hub was down is
 * announced at the next start.
 */
import type { Config } from "../config/load.ts";
import type { HubDb } from "../db/open.ts";
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { IncentivesContent, PlatformStatus } from "../domain/incentives.ts";
import type { PreparedEffects } from "../live/ingest.ts";
import type { LiveStore } from "../live/store.ts";
import type { Logger } from "../log.ts";
import { WebhookAdmin } from "./admin.ts";
import { EVENT_ALERT_LIMIT, eventAlertDestination, EventAlertRate, type EventAlertBatch } from "./event-rate.ts";
import type { FormatSpec } from "./formats/format.ts";
import { FORMATS } from "./formats/index.ts";
import type { FormatRegistry } from "./formats/registry.ts";
import { resolveWithBun, type Resolve } from "./guard.ts";
import type { AlertMessage, EventChangedData } from "./model.ts";
import { Outbox } from "./outbox.ts";
import { AlertRules, follows } from "./rules.ts";
import { sealStoredWebhookUrls, WebhookSecrets } from "./secrets.ts";
import type { Fetcher } from "./transport.ts";
import { DEFAULT_POLICY, DeliveryWorker, type DeliveryPolicy } from "./worker.ts";
import type { BackupFailedData } from "../backup/service.ts";
import type { WebhookFormat } from "../domain/alerts.ts";

export interface AlertsOptions {
  readonly policy?: Partial<DeliveryPolicy>;
  readonly resolve?: Resolve;
  readonly fetch?: Fetcher;
  readonly random?: () => number;
  /** The formats' objects (the built-in ones unless a test gives others under their names). */
  readonly formats?: FormatRegistry<readonly FormatSpec<WebhookFormat>[]>;
}

export interface AlertsDeps {
  readonly db: HubDb;
  readonly config: Pick<Config, "catalogue" | "origin" | "webhookAllowPrivate">;
  readonly live: LiveStore;
  /** The hub's key, from which the key sealing webhook secrets is derived. */
  readonly hubKey: Uint8Array;
  readonly now: () => number;
  readonly log: Logger;
  /** Says whether an error is storage refusing writes (then it is logged there, once a minute, not here). */
  readonly storageRefusal: (error: unknown) => unknown;
}

/** What a platform's alerts were last judged against. */
interface PlatformFacts {
  readonly status: PlatformStatus;
  readonly statusReason: string | null;
  readonly event: PublicEvent | null;
}

interface StoredFacts {
  platform: string;
  status: PlatformStatus;
  active_event: string | null;
}

/** How soon status and event alerts that storage refused to write are judged again. */
const JUDGE_RETRY_MS = 100;
const iso = (ms: number): string => new Date(ms).toISOString();

/** The same event, whoever reported it and however its label or multiplier changed: key and start tell events apart. */
const eventId = (event: PublicEvent): string => `${event.key}\u0000${event.startsAt}`;
const sameEvent = (a: PublicEvent | null, b: PublicEvent | null): boolean => (a === null || b === null ? a === b : eventId(a) === eventId(b));

export class Alerts {
  readonly rules: AlertRules;
  readonly outbox: Outbox;
  readonly worker: DeliveryWorker;
  readonly admin: WebhookAdmin;
  /** Event alerts per destination (SPEC §16.3), shared by every way out that sends them (webhooks here, push subscriptions). */
  readonly eventRate = new EventAlertRate();
  private readonly facts = new Map<Platform, PlatformFacts>();
  /** Platforms whose facts are on disk: the others are written at their first judgement, so a change while the hub is down is noticed. */
  private readonly saved = new Set<Platform>();
  private readonly republished = new Map<Platform, IncentivesContent>();
  private judging = false;
  private judgeRetry: ReturnType<typeof setTimeout> | null = null;
  private readonly saveFacts;

  constructor(
    private readonly deps: AlertsDeps,
    options: AlertsOptions = {},
  ) {
    const { db, config, live, now, log } = deps;
    const secrets = new WebhookSecrets(deps.hubKey);
    // A database from before URLs were sealed has them in plain text: sealed here, before anything reads or sends them.
    const urls = sealStoredWebhookUrls(db, secrets);
    if (urls.sealed > 0) log.info("encrypted stored webhook URLs under the hub's key", { webhooks: urls.sealed });
    if (urls.unreadable > 0) log.warn("some stored webhook URLs cannot be decrypted with this key (was hub.key replaced?); set those webhooks' URLs again", { webhooks: urls.unreadable });
    this.rules = new AlertRules(db);
    this.outbox = new Outbox(db);
    const formats = options.formats ?? FORMATS;
    this.worker = new DeliveryWorker({
      db,
      outbox: this.outbox,
      secrets,
      formats,
      policy: { ...DEFAULT_POLICY, ...options.policy },
      transport: { allowPrivate: config.webhookAllowPrivate, resolve: options.resolve ?? resolveWithBun, fetch: options.fetch ?? fetch },
      now,
      random: options.random ?? Math.random,
      log,
      storageRefusal: deps.storageRefusal,
      onDisabled: () => this.rules.reload(),
    });
    this.admin = new WebhookAdmin({
      db,
      catalogue: config.catalogue,
      live,
      secrets,
      formats,
      rules: this.rules,
      outbox: this.outbox,
      allowPrivate: config.webhookAllowPrivate,
      origin: config.origin,
      now,
      delivered: () => this.worker.kick(),
      eventRate: this.eventRate,
    });
    this.saveFacts = db.sqlite.query<unknown, [string, string, string | null, number]>(
      "INSERT INTO alert_platform_state (platform, status, active_event, updated_at) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (platform) DO UPDATE SET status = excluded.status, active_event = excluded.active_event, updated_at = excluded.updated_at",
    );
    const stored = new Map(
      db.sqlite
        .query<StoredFacts, []>("SELECT platform, status, active_event FROM alert_platform_state")
        .all()
        .map((row) => [row.platform, row]),
    );
    for (const platform of PLATFORMS) {
      const row = stored.get(platform);
      if (row) this.saved.add(platform);
      // A platform never judged before starts from what it shows now: there is no change to announce yet.
      const content = live.current(platform).content;
      this.facts.set(
        platform,
        row
          ? { status: row.status, statusReason: null, event: row.active_event === null ? null : (JSON.parse(row.active_event) as PublicEvent) }
          : { status: content.status, statusReason: content.statusReason, event: content.activeEvent },
      );
    }
    // What went out in the last hour still counts after a restart.
    const recent = db.sqlite
      .query<{ webhook_id: number; created_at: number }, [number]>(
        "SELECT webhook_id, created_at FROM webhook_deliveries WHERE type IN ('event.started', 'event.ended') AND created_at > ? ORDER BY created_at",
      )
      .all(now() - EVENT_ALERT_LIMIT.windowMs);
    for (const row of recent) this.eventRate.seed(eventAlertDestination.webhook(row.webhook_id), [row.created_at]);
    live.onChange((published) => this.republish(published.platform, published.content));
  }

  /**
   * The live path's question for a reading about to become live: the bonus
   * conditions it turns, to be written with it, or null when none turns.
   */
  prepare(platform: Platform, region: string, reading: { survivor: number; killer: number; measuredAt: number }, now: number): PreparedEffects | null {
    const turns = this.rules.turns(platform, region, reading.survivor, reading.killer);
    if (turns === null) return null;
    const { catalogue, origin } = this.deps.config;
    return {
      write: () => {
        this.rules.store(platform, region, turns);
        for (const turn of turns) {
          if (!turn.holds) continue;
          this.outbox.enqueue(
            turn.rule.id,
            {
              type: "bonus.reached",
              timestamp: iso(now),
              data: {
                platform,
                region,
                displayName: catalogue.region(region)?.name ?? region,
                role: turn.role,
                bonus: turn.bonus,
                survivor: reading.survivor,
                killer: reading.killer,
                measuredAt: iso(reading.measuredAt),
                url: `${origin}/${platform}/${region}`,
              },
            },
            now,
          );
        }
      },
      committed: () => {
        this.rules.remember(platform, region, turns);
        if (turns.some((turn) => turn.holds)) this.worker.kick();
      },
    };
  }

  /** Tells every webhook that listens for status that backups keep failing (SPEC §25). */
  backupFailed(data: BackupFailedData): void {
    const now = this.deps.now();
    const rules = this.rules.all().filter((rule) => rule.onStatus);
    if (rules.length === 0) return;
    try {
      this.deps.db.sqlite.transaction(() => {
        for (const rule of rules) this.outbox.enqueue(rule.id, { type: "backup.failed", timestamp: iso(now), data }, now);
      })();
      this.worker.kick();
    } catch (error) {
      if (!this.deps.storageRefusal(error)) this.deps.log.error("the backup.failed alert could not be written", { error });
    }
  }

  /** The conditions remembered for readings whose transaction was rolled back are read back from the database. */
  rolledBack(): void {
    this.rules.reload();
  }

  /** Starts delivering, and judges every platform once, for changes made while the hub was down. */
  start(): void {
    this.worker.start();
    for (const platform of PLATFORMS) this.republish(platform, this.deps.live.current(platform).content);
  }

  async stop(): Promise<void> {
    if (this.judgeRetry) clearTimeout(this.judgeRetry);
    this.judgeRetry = null;
    await this.worker.stop();
  }

  /** Payloads are republished in bursts (a flush refreshes every platform); they are judged together once the burst is over. */
  private republish(platform: Platform, content: IncentivesContent): void {
    this.republished.set(platform, content);
    if (this.judging) return;
    this.judging = true;
    queueMicrotask(() => this.judgeRepublished());
  }

  /**
   * Judges what was republished. When storage refused the write (another
   * process had the lock for a moment, or the disk is full), nothing was
   * saved or sent:
   * the same payloads are judged again JUDGE_RETRY_MS later, so a status
   * change or an event is never lost to a refused write.
   */
  private judgeRepublished(): void {
    this.judging = false;
    this.judgeRetry = null;
    const pending = new Map(this.republished);
    try {
      this.judge();
    } catch (error) {
      if (!this.deps.storageRefusal(error)) {
        this.deps.log.error("status and event alerts could not be written", { error });
        return;
      }
      for (const [platform, content] of pending) if (!this.republished.has(platform)) this.republished.set(platform, content);
      this.judging = true;
      this.judgeRetry = setTimeout(() => this.judgeRepublished(), JUDGE_RETRY_MS);
      this.judgeRetry.unref?.();
    }
  }

  private judge(): void {
    const changed = new Map<Platform, { before: PlatformFacts; after: PlatformFacts }>();
    const unsaved: Platform[] = [];
    for (const [platform, content] of this.republished) {
      const before = this.facts.get(platform);
      if (!before) continue;
      const after: PlatformFacts = { status: content.status, statusReason: content.statusReason, event: content.activeEvent };
      if (before.status !== after.status || !sameEvent(before.event, after.event)) changed.set(platform, { before, after });
      else if (!this.saved.has(platform)) unsaved.push(platform);
    }
    this.republished.clear();
    if (changed.size === 0 && unsaved.length === 0) return;
    const now = this.deps.now();
    const rate = this.eventRate.begin(now);
    const startsHolding: number[] = [];
    const messages = this.limitEventAlerts(this.messages(changed, now), rate, startsHolding);
    const save = (platform: Platform, facts: PlatformFacts): void => {
      this.saveFacts.run(platform, facts.status, facts.event === null ? null : JSON.stringify(facts.event), now);
    };
    this.deps.db.sqlite.transaction(() => {
      for (const platform of unsaved) {
        const facts = this.facts.get(platform);
        if (facts) save(platform, facts);
      }
      for (const [platform, { after }] of changed) save(platform, after);
      for (const { webhookId, message } of messages) this.outbox.enqueue(webhookId, message, now);
    })();
    rate.commit();
    for (const webhookId of startsHolding) {
      this.deps.log.warn("event alerts to a webhook are over their hourly limit; the rest are held back and counted in the next one sent", {
        webhookId,
        limit: EVENT_ALERT_LIMIT.count,
      });
    }
    for (const platform of unsaved) this.saved.add(platform);
    for (const [platform, { after }] of changed) {
      this.facts.set(platform, after);
      this.saved.add(platform);
    }
    if (messages.length > 0) this.worker.kick();
  }

  /**
   * Event messages over a webhook's hourly limit are held back; the next one
   * sent says how many were. Webhooks that begin holding back are added to
   * `startsHolding`, to be logged once the judgement is written.
   */
  private limitEventAlerts(
    messages: { webhookId: number; message: AlertMessage }[],
    rate: EventAlertBatch,
    startsHolding: number[],
  ): { webhookId: number; message: AlertMessage }[] {
    return messages.flatMap((entry) => {
      const { message } = entry;
      if (message.type !== "event.started" && message.type !== "event.ended") return [entry];
      const verdict = rate.admit(eventAlertDestination.webhook(entry.webhookId));
      if (!verdict.send) {
        if (verdict.heldBack.count === 1) startsHolding.push(entry.webhookId);
        return [];
      }
      if (verdict.heldBack === null) return [entry];
      const heldBack = { count: verdict.heldBack.count, since: iso(verdict.heldBack.since) };
      return [{ webhookId: entry.webhookId, message: { ...message, data: { ...message.data, heldBack } } }];
    });
  }

  /**
   * One status.changed per platform and webhook; one event.started when an
   * event comes into force on the first platform a webhook follows, and one
   * event.ended when it is in force on none of them any more, naming the
   * platforms. So an event counts once per webhook, whichever agents or
   * admins reported it and on how many platforms it shows.
   */
  private messages(changed: ReadonlyMap<Platform, { before: PlatformFacts; after: PlatformFacts }>, now: number): { webhookId: number; message: AlertMessage }[] {
    const { origin } = this.deps.config;
    const timestamp = iso(now);
    const before = new Map<string, { event: PublicEvent; platforms: Platform[] }>();
    const after = new Map<string, { event: PublicEvent; platforms: Platform[] }>();
    const note = (into: typeof before, event: PublicEvent | null, platform: Platform): void => {
      if (event === null) return;
      const entry = into.get(eventId(event)) ?? { event, platforms: [] };
      entry.platforms.push(platform);
      into.set(eventId(event), entry);
    };
    // Every platform counts, changed or not: an event already in force elsewhere has started for a webhook that follows both.
    for (const platform of PLATFORMS) {
      const was = this.facts.get(platform)?.event ?? null;
      note(before, was, platform);
      const turn = changed.get(platform);
      note(after, turn ? turn.after.event : was, platform);
    }
    const out: { webhookId: number; message: AlertMessage }[] = [];
    for (const rule of this.rules.all()) {
      if (rule.onStatus) {
        for (const [platform, { before, after }] of changed) {
          if (before.status === after.status || !follows(rule, platform)) continue;
          out.push({
            webhookId: rule.id,
            message: {
              type: "status.changed",
              timestamp,
              data: { platform, status: after.status, previousStatus: before.status, statusReason: after.statusReason, url: `${origin}/${platform}` },
            },
          });
        }
      }
      if (rule.onEvents) {
        const followed = (entry: { platforms: Platform[] } | undefined): Platform[] => entry?.platforms.filter((platform) => follows(rule, platform)) ?? [];
        const eventMessage = (type: "event.started" | "event.ended", event: PublicEvent, platforms: Platform[]): void => {
          const data: EventChangedData = { ...event, platforms, url: platforms.length === 1 ? `${origin}/${platforms[0]}` : `${origin}/` };
          out.push({ webhookId: rule.id, message: { type, timestamp, data } });
        };
        for (const [id, was] of before) {
          if (followed(was).length > 0 && followed(after.get(id)).length === 0) eventMessage("event.ended", was.event, followed(was));
        }
        for (const [id, is] of after) {
          if (followed(is).length > 0 && followed(before.get(id)).length === 0) eventMessage("event.started", is.event, followed(is));
        }
      }
    }
    return out;
  }
}
