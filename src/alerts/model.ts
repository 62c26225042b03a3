/** The vocabulary of alerts (SPEC §18): webhooks, the messages they carry and their deliveries. */
import type { PublicEvent } from "../domain/events.ts";
import type { PlatformStatus } from "../domain/incentives.ts";
import type { WebhookFormat } from "./formats/index.ts";

export const ALERT_ROLES = ["survivor", "killer"] as const;
export type AlertRole = (typeof ALERT_ROLES)[number];

/** The kinds of message a webhook is sent (SPEC §18). */
export const ALERT_TYPES = ["bonus.reached", "status.changed", "event.started", "event.ended", "backup.failed", "test"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** pending (waiting or retrying), delivered (a 2xx came back) or failed (given up). */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Bonus percents a condition may ask for. */
export const MIN_BONUS_RANGE = { minimum: 0, maximum: 1000 } as const;

export interface BonusReachedData {
  readonly platform: string;
  readonly region: string;
  readonly displayName: string;
  readonly role: AlertRole;
  /** The bonus of `role` in percent. */
  readonly bonus: number;
  readonly survivor: number;
  readonly killer: number;
  /** ISO time of the reading. */
  readonly measuredAt: string;
  /** The region's page in the web app. */
  readonly url: string;
}

export interface StatusChangedData {
  readonly platform: string;
  readonly status: PlatformStatus;
  readonly previousStatus: PlatformStatus;
  readonly statusReason: string | null;
  /** The platform's board in the web app. */
  readonly url: string;
}

export interface EventChangedData extends PublicEvent {
  /** The platforms (of those the webhook follows) where the event started or ended. */
  readonly platforms: readonly string[];
  readonly url: string;
  /**
   * Event alerts held back since this destination's previous one, over the
   * limit of six an hour (SPEC §16.3); present only when some were.
   */
  readonly heldBack?: { readonly count: number; readonly since: string };
}

/** Two backup runs failed in a row (SPEC §25); sent to the webhooks that listen for status. */
export interface BackupFailedData {
  /** Where backups go: a path or an s3:// address, never a credential. */
  readonly target: string;
  readonly error: string;
  /** Failed runs in a row. */
  readonly failures: number;
  /** ISO time of the last backup that succeeded, or null. */
  readonly lastSuccessAt: string | null;
}

export interface TestData {
  readonly webhookId: number;
  readonly message: string;
}

/** A message as the `json` format sends it, and as the outbox keeps it for every format. */
export type AlertMessage =
  | { readonly type: "bonus.reached"; readonly timestamp: string; readonly data: BonusReachedData }
  | { readonly type: "status.changed"; readonly timestamp: string; readonly data: StatusChangedData }
  | { readonly type: "event.started" | "event.ended"; readonly timestamp: string; readonly data: EventChangedData }
  | { readonly type: "backup.failed"; readonly timestamp: string; readonly data: BackupFailedData }
  | { readonly type: "test"; readonly timestamp: string; readonly data: TestData };

export interface Webhook {
  readonly id: number;
  readonly url: string;
  readonly format: WebhookFormat;
  readonly enabled: boolean;
  readonly platforms: string[] | null;
  readonly regions: string[] | null;
  readonly roles: AlertRole[];
  readonly minBonus: number | null;
  readonly onStatus: boolean;
  readonly onEvents: boolean;
  readonly createdAt: number;
  readonly lastDeliveryAt: number | null;
  readonly failingSince: number | null;
  readonly disabledReason: string | null;
}

export interface Delivery {
  readonly id: number;
  /** The `webhook-id` header of the json format. */
  readonly messageId: string;
  readonly type: AlertType;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
  readonly nextAttemptAt: number | null;
}
