/** `discord`: Discord's execute-webhook JSON, one embed, that can ping nobody. */
import { NO_MESSAGE_ID, TARGET_AS_GIVEN, type UnsignedFormat } from "./format.ts";
import { summarize } from "./summary.ts";

/**
 * An `@` followed by a zero-width space: `@everyone`, `@here` and `<@id>`
 * then read as text, not as a mention (allowed_mentions already keeps them
 * from pinging; this keeps them from looking like one).
 */
function unmention(text: string): string {
  return text.replace(/@/g, "@\u200b");
}

/**
 * Text as Discord shows it in an embed's description and field values, where
 * it reads Markdown: every Markdown character is backslash-escaped, so an
 * agent's or admin's `[free bonus](https://evil.example)` stays text rather
 * than a masked link, and `**`, `#`, `>` or a code fence change nothing.
 */
function plain(text: string): string {
  return unmention(text.replace(/[\\*_~`|[\]()<>#]/g, "\\$&"));
}

/** Discord refuses a whole message whose embed title passes this many characters. */
const TITLE_MAX = 256;

/**
 * A title as Discord shows it (no Markdown or links, only mentions), cut to
 * Discord's limit: breaking mentions lengthens it, and an agent's label of
 * 120 `@` would otherwise get every delivery refused until the webhook is
 * disabled.
 */
function title(text: string): string {
  const chars = Array.from(unmention(text));
  return chars.length <= TITLE_MAX ? chars.join("") : `${chars.slice(0, TITLE_MAX - 1).join("")}…`;
}

export const discord = {
  name: "discord",
  label: "Discord",
  summary: "a Discord channel webhook URL (one embed)",
  carries: "a Discord embed",
  method: "POST",
  target: TARGET_AS_GIVEN,
  // Discord's execute-webhook takes no message id.
  idempotency: NO_MESSAGE_ID,
  signed: false,
  render: ({ message }) => {
    const summary = summarize(message);
    const embed = {
      title: title(summary.title),
      description: plain(summary.text),
      ...(summary.url === null ? {} : { url: summary.url }),
      color: summary.color,
      fields: summary.fields.map((f) => ({ name: unmention(f.name), value: plain(f.value), inline: true })),
      timestamp: summary.timestamp,
    };
    // Mentions are never parsed, so no message can ping anyone.
    return { headers: { "content-type": "application/json" }, body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }) };
  },
} as const satisfies UnsignedFormat<"discord">;
