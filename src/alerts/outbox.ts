/**
 * The outbox: deliveries waiting to be sent, and what became of them. Rows
 * are written by whoever caused them, inside their own transaction; the
 * worker then only moves them from pending to delivered or failed.
 */
import type { HubDb } from "../db/open.ts";
import type { AlertMessage, Delivery } from "./model.ts";
import type { AlertType, DeliveryStatus, WebhookFormat } from "../domain/alerts.ts";

/** The oldest pending delivery of a webhook: the only one of it that may be sent, so each webhook gets its messages in order. */
export interface Head {
  readonly id: number;
  /** The `webhook-id` of every attempt of this delivery. */
  readonly messageId: string;
  readonly webhookId: number;
  readonly attempts: number;
  readonly createdAt: number;
  readonly nextAttemptAt: number;
  readonly enabled: boolean;
}

/** What sending a head takes: its message and its webhook's sealed target, format and sealed secret. */
export interface Sendable {
  readonly payload: string;
  readonly url: string;
  readonly format: WebhookFormat;
  readonly secret: string;
}

interface HeadRow {
  id: number;
  message_id: string;
  webhook_id: number;
  attempts: number;
  created_at: number;
  next_attempt_at: number | null;
  enabled: number;
}

interface DeliveryRow {
  id: number;
  message_id: string;
  type: AlertType;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  next_attempt_at: number | null;
}

export interface DeliveryPage {
  readonly deliveries: Delivery[];
  /** The `before` of the next page, or null when this one holds the oldest delivery. */
  readonly next: number | null;
}

export interface FailedAttempt {
  readonly statusCode: number | null;
  readonly error: string;
  /** When to try again, or null to give up. */
  readonly nextAttemptAt: number | null;
}

/**
 * A delivery's `webhook-id`: `msg_` and a UUIDv7 (a millisecond time and 74
 * random bits). A row id would repeat once a backup is restored, and a
 * receiver dropping duplicates by id would then drop new messages.
 */
export function newMessageId(): string {
  return `msg_${Bun.randomUUIDv7().replaceAll("-", "")}`;
}

/** The longest error kept per delivery. */
const ERROR_LENGTH = 500;

export class Outbox {
  private readonly insert;
  private readonly headsQuery;
  private readonly sendableQuery;
  private readonly pageQuery;
  private readonly pageBeforeQuery;
  private readonly deliveredUpdate;
  private readonly webhookDelivered;
  private readonly failedUpdate;
  private readonly webhookFailing;
  private readonly failingQuery;
  private readonly expireUpdate;
  private readonly disableUpdate;
  private readonly resumeUpdate;
  private readonly pruneDelete;

  constructor(private readonly db: HubDb) {
    const { sqlite } = db;
    this.insert = sqlite.query<unknown, [number, string, string, string, number, number]>(
      "INSERT INTO webhook_deliveries (webhook_id, message_id, type, payload, status, created_at, next_attempt_at) VALUES (?, ?, ?, ?, 'pending', ?, ?)",
    );
    // One index seek per webhook for its oldest pending delivery, however many are pending behind it.
    this.headsQuery = sqlite.query<HeadRow, []>(
      "SELECT d.id, d.message_id, d.webhook_id, d.attempts, d.created_at, d.next_attempt_at, w.enabled FROM webhooks w " +
        "JOIN webhook_deliveries d ON d.id = (SELECT MIN(p.id) FROM webhook_deliveries p WHERE p.webhook_id = w.id AND p.status = 'pending')",
    );
    this.sendableQuery = sqlite.query<Sendable, [number]>(
      "SELECT d.payload, w.url, w.format, w.secret FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = ? AND d.status = 'pending'",
    );
    const columns = "id, message_id, type, status, attempts, last_status_code, last_error, created_at, delivered_at, next_attempt_at";
    this.pageQuery = sqlite.query<DeliveryRow, [number, number]>(`SELECT ${columns} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`);
    this.pageBeforeQuery = sqlite.query<DeliveryRow, [number, number, number]>(
      `SELECT ${columns} FROM webhook_deliveries WHERE webhook_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    );
    this.deliveredUpdate = sqlite.query<unknown, [number | null, number, number]>(
      "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status_code = ?, last_error = NULL, delivered_at = ?, next_attempt_at = NULL " +
        "WHERE id = ? AND status = 'pending'",
    );
    this.webhookDelivered = sqlite.query<unknown, [number, number]>("UPDATE webhooks SET last_delivery_at = ?, failing_since = NULL WHERE id = ?");
    this.failedUpdate = sqlite.query<unknown, [number | null, string, string, number | null, number]>(
      "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status_code = ?, last_error = ?, status = ?, next_attempt_at = ? WHERE id = ? AND status = 'pending'",
    );
    this.webhookFailing = sqlite.query<unknown, [number, number]>("UPDATE webhooks SET failing_since = COALESCE(failing_since, ?) WHERE id = ?");
    this.failingQuery = sqlite.query<{ id: number; failing_since: number; last_error: string | null }, [number]>(
      "SELECT w.id, w.failing_since, (SELECT d.last_error FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.last_error IS NOT NULL ORDER BY d.id DESC LIMIT 1) AS last_error " +
        "FROM webhooks w WHERE w.enabled = 1 AND w.failing_since <= ?",
    );
    this.expireUpdate = sqlite.query<unknown, [string, number]>(
      "UPDATE webhook_deliveries SET status = 'failed', last_error = ?, next_attempt_at = NULL WHERE id = ? AND status = 'pending'",
    );
    this.disableUpdate = sqlite.query<unknown, [string, number, number]>(
      "UPDATE webhooks SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1",
    );
    this.resumeUpdate = sqlite.query<unknown, [number, number]>("UPDATE webhook_deliveries SET next_attempt_at = ? WHERE status = 'pending' AND next_attempt_at > ?");
    this.pruneDelete = sqlite.query<unknown, [number]>("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < ?");
  }

  /** Adds a delivery, due at once; call inside the transaction of the change that caused it. Returns its id. */
  enqueue(webhookId: number, message: AlertMessage, now: number): number {
    return Number(this.insert.run(webhookId, newMessageId(), message.type, JSON.stringify(message), now, now).lastInsertRowid);
  }

  heads(): Head[] {
    return this.headsQuery.all().map((row) => ({
      id: row.id,
      messageId: row.message_id,
      webhookId: row.webhook_id,
      attempts: row.attempts,
      createdAt: row.created_at,
      nextAttemptAt: row.next_attempt_at ?? row.created_at,
      enabled: row.enabled === 1,
    }));
  }

  /** A head's message and target, read when it is about to be sent; null when it is no longer pending (or its webhook is gone). */
  sendable(head: Head): Sendable | null {
    return this.sendableQuery.get(head.id);
  }

  /** Marks a delivery delivered: only after a 2xx, so nothing acknowledged is ever sent again. */
  delivered(head: Head, statusCode: number | null, now: number): void {
    this.db.sqlite.transaction(() => {
      this.deliveredUpdate.run(statusCode, now, head.id);
      this.webhookDelivered.run(now, head.webhookId);
    })();
  }

  /** Records a failed attempt, to be retried or given up, and since when the webhook has been failing. */
  failed(head: Head, attempt: FailedAttempt, now: number): void {
    const error = attempt.error.length > ERROR_LENGTH ? `${attempt.error.slice(0, ERROR_LENGTH)}…` : attempt.error;
    this.db.sqlite.transaction(() => {
      this.failedUpdate.run(attempt.statusCode, error, attempt.nextAttemptAt === null ? "failed" : "pending", attempt.nextAttemptAt, head.id);
      this.webhookFailing.run(now, head.webhookId);
    })();
  }

  /** Enabled webhooks whose every attempt since `before` or earlier has failed, with their latest error. */
  failingSince(before: number): { id: number; failingSince: number; lastError: string | null }[] {
    return this.failingQuery.all(before).map((row) => ({ id: row.id, failingSince: row.failing_since, lastError: row.last_error }));
  }

  /** Gives up on a delivery without an attempt (it waited past its time while its webhook was disabled or the hub was down). */
  expire(head: Head, reason: string): void {
    this.expireUpdate.run(reason, head.id);
  }

  /** Disables a webhook that kept failing; false when it was not enabled. */
  disable(webhookId: number, reason: string, now: number): boolean {
    return this.disableUpdate.run(reason, now, webhookId).changes > 0;
  }

  /** Makes every pending delivery due now: at start-up, since a restart is as likely the fix as the fault. */
  resumeAll(now: number): void {
    this.resumeUpdate.run(now, now);
  }

  /** Removes delivered and failed deliveries written before `before`. */
  prune(before: number): number {
    return this.pruneDelete.run(before).changes;
  }

  /** A webhook's deliveries, newest first, a page at a time. */
  page(webhookId: number, limit: number, before: number | null): DeliveryPage {
    const rows = before === null ? this.pageQuery.all(webhookId, limit + 1) : this.pageBeforeQuery.all(webhookId, before, limit + 1);
    const page = rows.slice(0, limit);
    return {
      deliveries: page.map((row) => ({
        id: row.id,
        messageId: row.message_id,
        type: row.type,
        status: row.status,
        attempts: row.attempts,
        lastStatusCode: row.last_status_code,
        lastError: row.last_error,
        createdAt: row.created_at,
        deliveredAt: row.delivered_at,
        nextAttemptAt: row.next_attempt_at,
      })),
      next: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
    };
  }
}
