/**
 * The vocabularies of alerts (SPEC §18): declared once here, below the
 * stored columns that hold them, and everything else (the code, the API's
 * schemas, the web app's generated lists) derives from them.
 */

export const ALERT_ROLES = ["survivor", "killer"] as const;
export type AlertRole = (typeof ALERT_ROLES)[number];

/** The kinds of message a webhook is sent (SPEC §18). */
export const ALERT_TYPES = ["bonus.reached", "status.changed", "event.started", "event.ended", "backup.failed", "test"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** pending (waiting or retrying), delivered (a 2xx came back) or failed (given up). */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The webhook formats the hub sends, in the order the API lists them. Each
 * name's format is a module in src/alerts/formats/, registered in its
 * index.ts, where the compiler refuses a name without its format.
 */
export const WEBHOOK_FORMATS = ["json", "discord", "slack", "ntfy"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
