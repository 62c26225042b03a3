/**
 * The delivery worker: sends what the outbox holds, off every request path.
 * One attempt at a time per webhook, always its oldest pending delivery, so
 * a receiver sees its messages in order; different webhooks in parallel.
 * Failed attempts are retried with exponential backoff and jitter for up to
 * a day; a webhook that has failed for a day is disabled, and the audit log
 * says so.
 */
import { audit, SYSTEM_ACTOR } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import type { Logger } from "../log.ts";
import type { FormatSpec } from "./formats/format.ts";
import type { FormatRegistry, Prepared } from "./formats/registry.ts";
import type { Head, Outbox, Sendable } from "./outbox.ts";
import type { WebhookSecrets } from "./secrets.ts";
import { deliver, type Outcome, type TransportOptions } from "./transport.ts";
import type { WebhookFormat } from "../domain/alerts.ts";

const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface DeliveryPolicy {
  /** Per attempt, redirects and reading the reply included. */
  readonly timeoutMs: number;
  /** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
  readonly backoffMs: readonly number[];
  /** Each wait is stretched or shrunk at random by up to this fraction, so receivers that failed together do not get their retries together. */
  readonly jitter: number;
  /** A delivery not delivered this long after it was written is given up. */
  readonly giveUpAfterMs: number;
  /** A webhook whose every attempt has failed for this long is disabled. */
  readonly disableAfterMs: number;
  readonly maxRedirects: number;
  readonly bodyCapBytes: number;
  /** Attempts in flight at once, over all webhooks. */
  readonly maxParallel: number;
  /** Delivered and failed deliveries are kept this long for the delivery log. */
  readonly keepMs: number;
}

export const DEFAULT_POLICY: DeliveryPolicy = {
  timeoutMs: 10 * SECOND,
  backoffMs: [10 * SECOND, 30 * SECOND, 60 * SECOND, 2 * 60 * SECOND, 5 * 60 * SECOND, 10 * 60 * SECOND, 30 * 60 * SECOND, HOUR],
  jitter: 0.2,
  giveUpAfterMs: DAY,
  disableAfterMs: DAY,
  maxRedirects: 3,
  bodyCapBytes: 4096,
  maxParallel: 16,
  keepMs: 31 * DAY,
};

/** The worker wakes at least this often, whatever the outbox says, so a clock that jumped never leaves it asleep for long. */
const MAX_SLEEP_MS = 60 * SECOND;
const PRUNE_INTERVAL_MS = HOUR;
const PUMP_SPACING_MS = 10;

/**
 * How a delivery attempt ended, for /metrics: delivered (2xx), retry (it
 * failed and is tried again later), given_up (it failed with no attempt left
 * in its day), expired (its day ran out before it could be sent).
 */
export const WEBHOOK_DELIVERY_RESULTS = ["delivered", "retry", "given_up", "expired"] as const;
export type WebhookDeliveryResult = (typeof WEBHOOK_DELIVERY_RESULTS)[number];

export interface WorkerDeps {
  readonly db: HubDb;
  readonly outbox: Outbox;
  readonly secrets: WebhookSecrets;
  readonly formats: FormatRegistry<readonly FormatSpec<WebhookFormat>[]>;
  readonly policy: DeliveryPolicy;
  readonly transport: Omit<TransportOptions, "timeoutMs" | "maxRedirects" | "bodyCapBytes">;
  readonly now: () => number;
  readonly random: () => number;
  readonly log: Logger;
  /** Says whether an error is storage refusing writes (then it is logged there, once a minute, not here). */
  readonly storageRefusal: (error: unknown) => unknown;
  /** Told after the worker disabled a webhook. */
  readonly onDisabled: () => void;
}

export class DeliveryWorker {
  private readonly busy = new Set<number>();
  /** Webhooks whose last attempt could not be recorded, and until when they wait: otherwise it would be retried at once, again and again. */
  private readonly held = new Map<number, number>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopper = new AbortController();
  private running = false;
  private pumpQueued = false;
  private lastPump = Number.NEGATIVE_INFINITY;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pruner: ReturnType<typeof setInterval> | null = null;
  private readonly transport: TransportOptions;
  /** Attempts since start by result, every result present from the start so a rate over them is defined. */
  readonly results = new Map<WebhookDeliveryResult, number>(WEBHOOK_DELIVERY_RESULTS.map((result) => [result, 0]));

  constructor(private readonly deps: WorkerDeps) {
    const { policy } = deps;
    this.transport = { ...deps.transport, timeoutMs: policy.timeoutMs, maxRedirects: policy.maxRedirects, bodyCapBytes: policy.bodyCapBytes };
  }

  /** Resumes every pending delivery at once, then keeps sending. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopper = new AbortController();
    this.deps.outbox.resumeAll(this.deps.now());
    this.prune();
    this.pruner = setInterval(() => this.prune(), PRUNE_INTERVAL_MS);
    this.pruner.unref?.();
    this.kick();
  }

  /** Aborts attempts in flight (they stay pending, their attempt not counted) and waits for them to settle. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.pruner) clearInterval(this.pruner);
    this.timer = null;
    this.pruner = null;
    this.stopper.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Looks at the outbox soon: after new deliveries were written, an attempt
   * ended, or the clock moved. Never blocks the caller, and looks at most
   * once per PUMP_SPACING_MS however often it is asked, so a burst of
   * readings costs the live path nothing more than a flag.
   */
  kick(): void {
    if (!this.running || this.pumpQueued) return;
    this.pumpQueued = true;
    setTimeout(() => this.pump(), Math.max(0, this.lastPump + PUMP_SPACING_MS - performance.now()));
  }

  /** Resolves once nothing is in flight and nothing due is left to start. */
  async idle(): Promise<void> {
    while (this.pumpQueued || this.inFlight.size > 0) {
      if (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      else await Bun.sleep(1);
    }
  }

  private prune(): void {
    try {
      const removed = this.deps.outbox.prune(this.deps.now() - this.deps.policy.keepMs);
      if (removed > 0) this.deps.log.debug("old webhook deliveries removed", { removed });
    } catch (error) {
      if (!this.deps.storageRefusal(error)) this.deps.log.error("old webhook deliveries could not be removed", { error });
    }
  }

  private pump(): void {
    this.pumpQueued = false;
    if (!this.running) return;
    this.lastPump = performance.now();
    const { outbox, policy } = this.deps;
    const now = this.deps.now();
    let wake = now + MAX_SLEEP_MS;
    let again = false;
    try {
      this.disableLongFailing(now);
      for (const head of outbox.heads()) {
        if (!head.enabled || this.busy.has(head.webhookId)) continue;
        const heldUntil = this.held.get(head.webhookId) ?? 0;
        if (heldUntil > now) {
          wake = Math.min(wake, heldUntil);
          continue;
        }
        this.held.delete(head.webhookId);
        if (now >= head.createdAt + policy.giveUpAfterMs) {
          outbox.expire(head, `not delivered within ${Math.round(policy.giveUpAfterMs / HOUR)} h of being written`);
          this.count("expired");
          again = true;
        } else if (head.nextAttemptAt > now) {
          wake = Math.min(wake, head.nextAttemptAt);
        } else if (this.busy.size < policy.maxParallel) {
          this.begin(head);
        }
      }
    } catch (error) {
      if (!this.deps.storageRefusal(error)) this.deps.log.error("the webhook outbox could not be read", { error });
    }
    if (again) this.kick();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), Math.max(0, wake - now));
    this.timer.unref?.();
  }

  private begin(head: Head): void {
    this.busy.add(head.webhookId);
    const attempt = this.attempt(head).finally(() => {
      this.busy.delete(head.webhookId);
      this.inFlight.delete(attempt);
      this.kick();
    });
    this.inFlight.add(attempt);
  }

  /** The target and what to send it, or why neither can be had. */
  private prepare(head: Head, sendable: Sendable): Prepared | string {
    const { secrets } = this.deps;
    const url = secrets.openUrl(head.webhookId, sendable.url);
    if (url === null) return "the target URL cannot be read with this hub's key (was hub.key replaced?); set the webhook's URL again";
    return this.deps.formats.prepare(sendable.format, url, sendable.payload, {
      messageId: head.messageId,
      timestampSeconds: Math.floor(this.deps.now() / SECOND),
      secret: () => secrets.open(head.webhookId, sendable.secret),
    });
  }

  /** Never rejects: whatever goes wrong is logged, and the delivery stays pending, held back for the first backoff step. */
  private async attempt(head: Head): Promise<void> {
    const stop = this.stopper.signal;
    try {
      const sendable = this.deps.outbox.sendable(head);
      if (sendable === null) return;
      const prepared = this.prepare(head, sendable);
      const outcome: Outcome =
        typeof prepared === "string" ? { delivered: false, statusCode: null, error: prepared } : await deliver(prepared.url, prepared.request, this.transport, stop);
      // An attempt cut short by shutdown is not the receiver's failure: it stays pending and is sent again at the next start.
      if (!outcome.delivered && stop.aborted) return;
      if (outcome.delivered) {
        this.deps.outbox.delivered(head, outcome.statusCode, this.deps.now());
        this.count("delivered");
      } else this.recordFailure(head, outcome);
    } catch (error) {
      this.held.set(head.webhookId, this.deps.now() + this.backoff(1));
      if (!this.deps.storageRefusal(error)) this.deps.log.error("a webhook delivery could not be attempted or its outcome stored", { webhookId: head.webhookId, deliveryId: head.id, error });
    }
  }

  private count(result: WebhookDeliveryResult): void {
    this.results.set(result, (this.results.get(result) ?? 0) + 1);
  }

  /** The wait after the n-th failed attempt (1-based), with jitter. */
  private backoff(attempts: number): number {
    const { backoffMs, jitter } = this.deps.policy;
    const base = backoffMs[Math.min(attempts, backoffMs.length) - 1] ?? 0;
    return Math.round(base * (1 + jitter * (2 * this.deps.random() - 1)));
  }

  private recordFailure(head: Head, outcome: Outcome): void {
    const { outbox, policy, log } = this.deps;
    const now = this.deps.now();
    const attempts = head.attempts + 1;
    const retryAt = now + this.backoff(attempts);
    // No attempt is planned past the delivery's last day: it is given up now rather than expired unsent later.
    const giveUp = retryAt >= head.createdAt + policy.giveUpAfterMs;
    const error = outcome.error ?? "not delivered";
    outbox.failed(head, { statusCode: outcome.statusCode, error, nextAttemptAt: giveUp ? null : retryAt }, now);
    this.count(giveUp ? "given_up" : "retry");
    const fields = { webhookId: head.webhookId, deliveryId: head.id, attempts, error };
    if (giveUp) log.warn("a webhook delivery was given up", fields);
    else log.info("a webhook delivery failed; it will be retried", { ...fields, retryInSeconds: Math.round((retryAt - now) / SECOND) });
  }

  /** Disables the webhooks that have failed for a day, each with its reason and an audit row. */
  private disableLongFailing(now: number): void {
    const { db, outbox, policy, log } = this.deps;
    const failing = outbox.failingSince(now - policy.disableAfterMs);
    for (const webhook of failing) {
      const reason = `Disabled after failing since ${new Date(webhook.failingSince).toISOString()}: ${webhook.lastError ?? "every attempt failed"}`;
      const disabled = db.sqlite.transaction(() => {
        if (!outbox.disable(webhook.id, reason, now)) return false;
        audit(db.orm, SYSTEM_ACTOR, "webhook.disable", `webhook:${webhook.id}`, { reason }, now);
        return true;
      })();
      if (disabled) log.warn("a webhook kept failing for a day and was disabled", { webhookId: webhook.id, failingSince: webhook.failingSince });
    }
    if (failing.length > 0) this.deps.onDisabled();
  }
}
