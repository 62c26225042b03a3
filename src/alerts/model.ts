/** The vocabulary of alerts (SPEC §18): webhooks, the messages they carry and their deliveries. */
import type { BackupFailedData } from "../backup/service.ts";
import type { AlertRole, AlertType, DeliveryStatus, WebhookFormat } from "../domain/alerts.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { PlatformStatus } from "../domain/incentives.ts";

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
