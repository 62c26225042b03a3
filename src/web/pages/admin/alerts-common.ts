/** What the parts of the alerts page share: the webhook's types, its vocabulary's labels and how a webhook is named. */
import type { components } from "../../api/schema";
import { t, type MessageKey } from "../../i18n/index.ts";
import { ADMIN } from "./parts.tsx";

type Schemas = components["schemas"];
export type Webhook = Schemas["Webhook"];
export type DeliveryPage = Schemas["WebhookDeliveryPage"];
export type Format = Webhook["format"];
export type Role = Webhook["roles"][number];
type DeliveryType = Schemas["WebhookDelivery"]["type"];
type DeliveryStatus = Schemas["WebhookDelivery"]["status"];

export const HOOKS = `${ADMIN}/webhooks`;
export const FORMATS: readonly Format[] = ["json", "discord", "slack", "ntfy"];
export const ROLES: readonly Role[] = ["survivor", "killer"];

export const FORMAT_LABELS: Readonly<Record<Format, { label: MessageKey; hint: MessageKey }>> = {
  json: { label: "admin.alerts.format.json", hint: "admin.alerts.format.jsonHint" },
  discord: { label: "admin.alerts.format.discord", hint: "admin.alerts.format.discordHint" },
  slack: { label: "admin.alerts.format.slack", hint: "admin.alerts.format.slackHint" },
  ntfy: { label: "admin.alerts.format.ntfy", hint: "admin.alerts.format.ntfyHint" },
};

export const TYPE_LABELS: Readonly<Record<DeliveryType, MessageKey>> = {
  "bonus.reached": "admin.alerts.type.bonusReached",
  "status.changed": "admin.alerts.type.statusChanged",
  "event.started": "admin.alerts.type.eventStarted",
  "event.ended": "admin.alerts.type.eventEnded",
  test: "admin.alerts.type.test",
};

export const STATUS_LABELS: Readonly<Record<DeliveryStatus, MessageKey>> = {
  pending: "admin.alerts.status.pending",
  delivered: "admin.alerts.status.delivered",
  failed: "admin.alerts.status.failed",
};

/** The list names a target by its host only; the hub itself shows no more than the scheme, host and last 4 characters. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

export function webhookName(hook: Webhook): string {
  return t("admin.alerts.name", { id: hook.id, host: hostOf(hook.url) });
}
