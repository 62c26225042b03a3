/** `ntfy`: a plain-text publish to the topic URL, the rest in ntfy's documented headers. */
import { NO_MESSAGE_ID, TARGET_AS_GIVEN, type UnsignedFormat } from "./format.ts";
import { summarize } from "./summary.ts";

/** HTTP header values are bytes; ntfy decodes RFC 2047 encoded-words, so text beyond ASCII goes as one. */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, "utf8").toString("base64")}?=`;
}

export const ntfy = {
  name: "ntfy",
  label: "ntfy",
  summary: "an ntfy topic URL (Title, Priority, Tags headers)",
  carries: "an ntfy notification (Title, Priority, Tags and Click headers)",
  method: "POST",
  // The topic URL is published to as it is.
  target: TARGET_AS_GIVEN,
  idempotency: NO_MESSAGE_ID,
  signed: false,
  // No Markdown header, so ntfy renders none, and a line break in the text cannot add a header.
  render: ({ message }) => {
    const summary = summarize(message);
    const headers: Record<string, string> = {
      "content-type": "text/plain; charset=utf-8",
      Title: headerText(summary.title),
      Priority: String(summary.priority),
      Tags: headerText(summary.tags.join(",")),
    };
    if (summary.url !== null) headers.Click = summary.url;
    return { headers, body: summary.text };
  },
} as const satisfies UnsignedFormat<"ntfy">;
