/** `slack`: Slack's incoming-webhook JSON, `text` for notifications and clients without blocks, and the same in section blocks. */
import { NO_MESSAGE_ID, TARGET_AS_GIVEN, type UnsignedFormat } from "./format.ts";
import { summarize } from "./summary.ts";

/** Slack reads &, < and > as markup in its text, so those are escaped as Slack asks. */
function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
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
    const title = summary.url === null ? `*${escape(summary.title)}*` : `*<${summary.url}|${escape(summary.title)}>*`;
    const body = {
      text: escape(`${summary.title}: ${summary.text}`),
      blocks: [
        { type: "section", text: { type: "mrkdwn", text: `${title}\n${escape(summary.text)}` } },
        { type: "section", fields: summary.fields.map((f) => ({ type: "mrkdwn", text: `*${escape(f.name)}*\n${escape(f.value)}` })) },
      ],
    };
    return { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  },
} as const satisfies UnsignedFormat<"slack">;
