import type { AlertRole } from "../domain/alerts.ts";
/** The vocabulary of Web Push (SPEC §23): limits, the known push services, and what a subscription holds. */

/** A bonus is old news after 15 minutes: no push service keeps a message longer, and no retry is planned past it. */
export const PUSH_TTL_SECONDS = 900;
export const MAX_RULES = 10;
export const MAX_ENDPOINT_LENGTH = 2048;
/** An uncompressed P-256 point (65 bytes) and a 16-byte secret, base64url, with room for padding. */
export const P256DH_LENGTH = { min: 80, max: 100 } as const;
export const AUTH_LENGTH = { min: 16, max: 32 } as const;
export const NEW_PER_ADDRESS_PER_HOUR = 5;

/** The browsers' own push services (RFC 8030), by exact name or, with a leading "*.", by suffix. */
export const KNOWN_PUSH_HOSTS = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "*.notify.windows.com"] as const;

export interface PushRule {
  readonly platform: string;
  /** Null: any region of the platform. */
  readonly region: string | null;
  readonly role: AlertRole;
  readonly minBonus: number;
}

export interface PushKeys {
  readonly p256dh: string;
  readonly auth: string;
}

export interface StoredSubscription {
  readonly id: number;
  readonly publicId: string;
  readonly endpoint: string;
  readonly keys: PushKeys;
  readonly lang: string;
  readonly events: boolean;
  readonly rules: readonly PushRule[];
  /** The user whose session made it while the hub required sign-in (it ends with their access), else null. */
  readonly userId: number | null;
}

/** How long a subscription may stay marked failing before it is deleted (SPEC §16.4). */
export const FAILING_DELETE_AFTER_MS = 7 * 24 * 3_600_000;

/** What a device sees in the notification (the service worker shows it as it is). */
export interface PushMessage {
  readonly title: string;
  readonly body: string;
  /** The region's page (or the platform's board, for an event). */
  readonly url: string;
  /** Per platform, region and role: a newer message replaces an older one on the device. */
  readonly tag: string;
}
