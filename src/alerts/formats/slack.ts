/** `slack`: Slack's incoming-webhook JSON, `text` for notifications and clients without blocks, and the same in a header, sections and a link. */
import { NO_MESSAGE_ID, TARGET_AS_GIVEN, type UnsignedFormat } from "./format.ts";
import { summarize } from "./summary.ts";

/** Slack reads &, < and > as markup in all its text, so those are escaped as Slack asks. */
function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Slack refuses a header block longer than this. */
const HEADER_MAX = 150;

/**
 * Text Slack shows as it is written: `plain_text` renders no mrkdwn (Slack
 * has no escape for `*`, `_`, `~` or a backtick, so agent text never goes
 * where mrkdwn acts).
 */
function plainText(text: string, max = Number.POSITIVE_INFINITY) {
  const chars = Array.from(text);
  const cut = chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
  return { type: "plain_text", text: escape(cut), emoji: false };
}

export const slack = {
  name: "slack",
  label: "Slack",
  summary: "a Slack incoming-webhook URL",
  carries: "a Slack message",
  method: "POST",
  target: TARGET_AS_GIVEN,
  // Slack's incoming webhooks take no message id.
  idempotency: NO_MESSAGE_ID,
  signed: false,
  render: ({ message }) => {
    const summary = summarize(message);
    const body = {
      // The notification and the fallback: mrkdwn off, so it shows as written.
      text: escape(`${summary.title}: ${summary.text}`),
      mrkdwn: false,
      blocks: [
        { type: "header", text: plainText(summary.title, HEADER_MAX) },
        { type: "section", text: plainText(summary.text) },
        { type: "section", fields: summary.fields.map((f) => plainText(`${f.name}\n${f.value}`)) },
        // The one mrkdwn the hub sends is its own link, with the URL as its words.
        ...(summary.url === null ? [] : [{ type: "context", elements: [{ type: "mrkdwn", text: `<${summary.url}|${escape(summary.url)}>` }] }]),
      ],
    };
    return { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  },
} as const satisfies UnsignedFormat<"slack">;
