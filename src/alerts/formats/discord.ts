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
 * Text as Discord shows it, in every part of an embed (titles read Markdown
 * too): every Markdown character is backslash-escaped, and a list marker at
 * the start of a line, so an agent's or admin's
 * `[free bonus](https://evil.example)` stays text rather than a masked link,
 * and `**`, `#`, `>`, `- ` or a code fence change nothing.
 */
export function plain(text: string): string {
  return unmention(text.replace(/[\\*_~`|[\]()<>#]/g, "\\$&").replace(/^(\s*)([-+])(?=\s)/gm, "$1\\$2"));
}

/** Discord refuses a whole message whose embed title passes this many characters. */
const TITLE_MAX = 256;

/**
 * A title as plain text, cut to Discord's limit: escaping lengthens it, and
 * an agent's label of 120 `@` or `*` would otherwise get every delivery
 * refused until the webhook is disabled. The cut never leaves half an escape.
 */
function title(text: string): string {
  const chars = Array.from(plain(text));
  if (chars.length <= TITLE_MAX) return chars.join("");
  const kept = chars.slice(0, TITLE_MAX - 1);
  let backslashes = 0;
  while (kept[kept.length - 1 - backslashes] === "\\") backslashes++;
  if (backslashes % 2 === 1) kept.pop();
  return `${kept.join("")}…`;
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
      fields: summary.fields.map((f) => ({ name: plain(f.name), value: plain(f.value), inline: true })),
      timestamp: summary.timestamp,
    };
    // Mentions are never parsed, so no message can ping anyone.
    return { headers: { "content-type": "application/json" }, body: JSON.stringify({ embeds: [embed], allowed_mentions: { parse: [] } }) };
  },
} as const satisfies UnsignedFormat<"discord">;
