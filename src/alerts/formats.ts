/**
 * What a webhook's receiver gets for a message, per format: `json` as
 * Standard Webhooks prescribes (signed), Discord's execute-webhook JSON,
 * Slack's incoming-webhook JSON, and ntfy's plain-text publish with its
 * headers. Pure: the outbox keeps the message, and it is rendered afresh for
 * each attempt, so only the signature's timestamp differs between retries.
 */
import { createHmac } from "node:crypto";
import { PLATFORM_LABELS, isPlatform } from "../domain/catalogue.ts";
import type { AlertMessage, WebhookFormat } from "./model.ts";
import { secretKeyBytes } from "./secrets.ts";

export interface Rendered {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Signing {
  /** The delivery's message id: the same on every attempt, so receivers can drop a duplicate, and never repeated by another delivery. */
  readonly id: string;
  readonly timestampSeconds: number;
  readonly secret: string;
}

/** The Standard Webhooks signature: HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's bytes. */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", secretKeyBytes(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

const COLORS = { killer: 0xd13b3b, survivor: 0x3b82d1, ok: 0x2f9e44, warn: 0xe8a317, event: 0x9b59b6, test: 0x868e96 } as const;

interface Field {
  readonly name: string;
  readonly value: string;
}

/** One message in words, from which every chat format is made. */
interface Summary {
  readonly title: string;
  readonly text: string;
  readonly url: string | null;
  readonly color: number;
  readonly fields: readonly Field[];
  readonly timestamp: string;
  /** ntfy's priority (1 min … 5 max): a bonus is what people asked to be woken for. */
  readonly priority: 2 | 3 | 4;
  /** ntfy tags; the first ones that name an emoji are shown as one. */
  readonly tags: readonly string[];
}

const platformLabel = (platform: string): string => (isPlatform(platform) ? PLATFORM_LABELS[platform] : platform);
const percent = (value: number): string => `+${value} %`;

function summarize(message: AlertMessage): Summary {
  switch (message.type) {
    case "bonus.reached": {
      const d = message.data;
      return {
        title: `${percent(d.bonus)} ${d.role} bonus: ${d.displayName}`,
        text: `${d.role === "killer" ? "Killers" : "Survivors"} get ${percent(d.bonus)} bloodpoints in ${d.displayName} on ${platformLabel(d.platform)}.`,
        url: d.url,
        color: COLORS[d.role],
        fields: [
          { name: "Platform", value: platformLabel(d.platform) },
          { name: "Region", value: `${d.displayName} (${d.region})` },
          { name: "Survivor", value: percent(d.survivor) },
          { name: "Killer", value: percent(d.killer) },
        ],
        timestamp: d.measuredAt,
        priority: 4,
        tags: ["moneybag", d.role],
      };
    }
    case "status.changed": {
      const d = message.data;
      return {
        title: `${platformLabel(d.platform)}: ${d.status} (was ${d.previousStatus})`,
        text: d.statusReason === null ? `The ${platformLabel(d.platform)} board is ${d.status}.` : `The ${platformLabel(d.platform)} board is ${d.status}: ${d.statusReason}.`,
        url: d.url,
        color: d.status === "ok" ? COLORS.ok : COLORS.warn,
        fields: [
          { name: "Platform", value: platformLabel(d.platform) },
          { name: "Status", value: d.status },
          { name: "Before", value: d.previousStatus },
        ],
        timestamp: message.timestamp,
        priority: 3,
        tags: [d.status === "ok" ? "white_check_mark" : "warning", "status"],
      };
    }
    case "event.started":
    case "event.ended": {
      const d = message.data;
      const started = message.type === "event.started";
      return {
        title: `${started ? "Event started" : "Event ended"}: ${d.label} ×${d.multiplier}`,
        text: started ? `${d.label} (×${d.multiplier} bloodpoints) runs until ${d.endsAt}.` : `${d.label} (×${d.multiplier} bloodpoints) has ended.`,
        url: d.url,
        color: COLORS.event,
        fields: [
          { name: "Platforms", value: d.platforms.map(platformLabel).join(", ") },
          { name: "Multiplier", value: `×${d.multiplier}` },
          { name: "Starts", value: d.startsAt },
          { name: "Ends", value: d.endsAt },
        ],
        timestamp: message.timestamp,
        priority: 3,
        tags: [started ? "tada" : "hourglass", "event"],
      };
    }
    case "test":
      return {
        title: "Test delivery",
        text: message.data.message,
        url: null,
        color: COLORS.test,
        fields: [{ name: "Webhook", value: String(message.data.webhookId) }],
        timestamp: message.timestamp,
        priority: 2,
        tags: ["test_tube", "test"],
      };
  }
}

/**
 * An `@` followed by a zero-width space: `@everyone`, `@here` and `<@id>`
 * then read as text, not as a mention (allowed_mentions already keeps them
 * from pinging; this keeps them from looking like one).
 */
function discordUnmention(text: string): string {
  return text.replace(/@/g, "@\u200b");
}

/**
 * Text as Discord shows it in an embed's description and field values, where
 * it reads Markdown: every Markdown character is backslash-escaped, so an
 * agent's or admin's `[free bonus](https://evil.example)` stays text rather
 * than a masked link, and `**`, `#`, `>` or a code fence change nothing.
 */
function discordText(text: string): string {
  return discordUnmention(text.replace(/[\\*_~`|[\]()<>#]/g, "\\$&"));
}

/** Discord refuses a whole message whose embed title passes this many characters. */
const DISCORD_TITLE_MAX = 256;

/**
 * A title as Discord shows it (no Markdown or links, only mentions), cut to
 * Discord's limit: breaking mentions lengthens it, and an agent's label of
 * 120 `@` would otherwise get every delivery refused until the webhook is
 * disabled.
 */
function discordTitle(title: string): string {
  const chars = Array.from(discordUnmention(title));
  return chars.length <= DISCORD_TITLE_MAX ? chars.join("") : `${chars.slice(0, DISCORD_TITLE_MAX - 1).join("")}…`;
}

/** Discord's execute-webhook body: one embed; mentions are never parsed, so no message can ping anyone. */
function discord(summary: Summary): Rendered {
  const embed = {
    title: discordTitle(summary.title),
    description: discordText(summary.text),
    ...(summary.url === null ? {} : { url: summary.url }),
    color: summary.color,
    fields: summary.fields.map((f) => ({ name: discordUnmention(f.name), value: discordText(f.value), inline: true })),
    timestamp: summary.timestamp,
  };
  return { headers: { "content-type": "application/json" }, body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }) };
}

/** Slack reads &, < and > as markup in its text, so those are escaped as Slack asks. */
function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Slack's incoming-webhook body: `text` for notifications and clients without blocks, and the same in blocks. */
function slack(summary: Summary): Rendered {
  const title = summary.url === null ? `*${slackEscape(summary.title)}*` : `*<${summary.url}|${slackEscape(summary.title)}>*`;
  const body = {
    text: slackEscape(`${summary.title}: ${summary.text}`),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: `${title}\n${slackEscape(summary.text)}` } },
      { type: "section", fields: summary.fields.map((f) => ({ type: "mrkdwn", text: `*${slackEscape(f.name)}*\n${slackEscape(f.value)}` })) },
    ],
  };
  return { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** HTTP header values are bytes; ntfy decodes RFC 2047 encoded-words, so text beyond ASCII goes as one. */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

/** ntfy's publish: the message as the plain-text body (no Markdown header, so ntfy renders none), the rest in its documented headers. */
function ntfy(summary: Summary): Rendered {
  const headers: Record<string, string> = {
    "content-type": "text/plain; charset=utf-8",
    Title: headerText(summary.title),
    Priority: String(summary.priority),
    Tags: headerText(summary.tags.join(",")),
  };
  if (summary.url !== null) headers.Click = summary.url;
  return { headers, body: summary.text };
}

export type ChatFormat = Exclude<WebhookFormat, "json">;

/** The `json` format: the stored message byte for byte, signed for this attempt. */
export function renderSigned(payload: string, signing: Signing): Rendered {
  return {
    headers: {
      "content-type": "application/json",
      "webhook-id": signing.id,
      "webhook-timestamp": String(signing.timestampSeconds),
      "webhook-signature": standardSignature(signing.secret, signing.id, signing.timestampSeconds, payload),
    },
    body: payload,
  };
}

/** The chat formats: made from the message, unsigned (their receivers know no signatures; the URL itself is the credential). */
export function renderChat(format: ChatFormat, message: AlertMessage): Rendered {
  const summary = summarize(message);
  switch (format) {
    case "discord":
      return discord(summary);
    case "slack":
      return slack(summary);
    case "ntfy":
      return ntfy(summary);
  }
}
