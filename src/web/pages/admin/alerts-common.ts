/** What the parts of the alerts page share: the webhook's types, its vocabulary's labels and how a webhook is named. */
import type { components } from "../../api/schema";
import type { WebhookFormat } from "../../api/vocabulary.ts";
import { t, type MessageKey } from "../../i18n/index.ts";
import { ADMIN } from "./parts.tsx";

type Schemas = components["schemas"];
export type Webhook = Schemas["Webhook"];
export type DeliveryPage = Schemas["WebhookDeliveryPage"];
type DeliveryType = Schemas["WebhookDelivery"]["type"];
type DeliveryStatus = Schemas["WebhookDelivery"]["status"];

export const HOOKS = `${ADMIN}/webhooks`;

/** A format's name and hint, from the catalogues' `admin.alerts.format.<format>` and `…Hint` messages: a format without them does not compile. */
export function formatLabel(format: WebhookFormat): string {
  return t(`admin.alerts.format.${format}`);
}

export function formatHint(format: WebhookFormat): string {
  return t(`admin.alerts.format.${format}Hint`);
}

export const TYPE_LABELS: Readonly<Record<DeliveryType, MessageKey>> = {
  "bonus.reached": "admin.alerts.type.bonusReached",
  "status.changed": "admin.alerts.type.statusChanged",
  "event.started": "admin.alerts.type.eventStarted",
  "event.ended": "admin.alerts.type.eventEnded",
  "backup.failed": "admin.alerts.type.backupFailed",
  test: "admin.alerts.type.test",
};

export const STATUS_LABELS: Readonly<Record<DeliveryStatus, MessageKey>> = {
  pending: "admin.alerts.status.pending",
  delivered: "admin.alerts.status.delivered",
  failed: "admin.alerts.status.failed",
};

/** Discord's webhook hosts, its canary and test builds included. */
const DISCORD_HOSTS = new Set(["discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com"]);

/**
 * The format a URL's host asks for: a Discord or Slack webhook, or an ntfy
 * topic (ntfy.sh, or a server whose name starts with ntfy., with the topic
 * as the one path segment). Null when the host says nothing.
 */
export function formatOfUrl(text: string): WebhookFormat | null {
  const url = URL.parse(text.trim());
  if (url === null || (url.protocol !== "https:" && url.protocol !== "http:")) return null;
  const host = url.hostname.toLowerCase();
  if (DISCORD_HOSTS.has(host) && url.pathname.startsWith("/api/webhooks/")) return "discord";
  if (host === "hooks.slack.com") return "slack";
  const segments = url.pathname.split("/").filter((part) => part !== "");
  if ((host === "ntfy.sh" || host.startsWith("ntfy.")) && segments.length === 1) return "ntfy";
  return null;
}

/** The list names a target by its host only; the hub itself shows no more than the scheme, host and last 4 characters. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

export function webhookName(hook: Webhook): string {
  return t("admin.alerts.name", { id: hook.id, host: hostOf(hook.url) });
}
