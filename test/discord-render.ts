/**
 * A small rendering of an interaction response the way Discord's client
 * shows it (dark theme): the app's name with its APP tag, the command used,
 * the embed with its colour bar, title link, description, fields three to a
 * row, and the buttons. It reads the same subset of Markdown Discord does
 * for embeds (**bold**, backslash escapes, <t:…> timestamps), so text that
 * was escaped shows as the reader sees it and markup that slipped through
 * would show as markup.
 */
import type { APIEmbed } from "discord-api-types/v10";

export interface RenderedAnswer {
  readonly command: string;
  readonly data: { content?: string; flags?: number; embeds?: APIEmbed[]; components?: { components: { label: string }[] }[] };
}

const escapeHtml = (text: string): string => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

function relative(ms: number, now: number): string {
  const minutes = Math.round((ms - now) / 60_000);
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  if (Math.abs(minutes) < 60) return format.format(minutes, "minute");
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 48) return format.format(hours, "hour");
  return format.format(Math.round(hours / 24), "day");
}

/** Discord's embed Markdown, the part the hub's answers use, turned into HTML. */
export function markdown(text: string, now: number): string {
  let out = "";
  let bold = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (char === "\\" && i + 1 < text.length && /[\\*_~`|[\]()<>#-]/.test(text[i + 1] ?? "")) {
      out += escapeHtml(text[++i] ?? "");
      continue;
    }
    if (text.startsWith("**", i)) {
      out += bold ? "</strong>" : "<strong>";
      bold = !bold;
      i++;
      continue;
    }
    const stamp = /^<t:(\d+):([RFft])>/.exec(text.slice(i));
    if (stamp) {
      const ms = Number(stamp[1]) * 1000;
      const shown = stamp[2] === "R" ? relative(ms, now) : new Intl.DateTimeFormat("en", stamp[2] === "t" ? { timeStyle: "short" } : { dateStyle: "long", timeStyle: "short" }).format(ms);
      out += `<span class="stamp">${escapeHtml(shown)}</span>`;
      i += stamp[0].length - 1;
      continue;
    }
    out += char === "\n" ? "<br>" : escapeHtml(char);
  }
  return bold ? `${out}</strong>` : out;
}

const STYLE = `
  body { margin: 0; background: #313338; font: 16px/1.375 "gg sans", "Noto Sans", "Helvetica Neue", Helvetica, Arial, sans-serif; color: #dbdee1; }
  .message { display: flex; gap: 16px; padding: 16px 48px 16px 16px; width: 620px; }
  .avatar { width: 40px; height: 40px; border-radius: 50%; background: #5865f2; flex: none; display: grid; place-items: center; color: white; font-weight: 700; }
  .used { font-size: 14px; color: #b5bac1; margin-bottom: 4px; }
  .used b { color: #c9cdfb; font-weight: 500; }
  .name { color: #f2f3f5; font-weight: 500; }
  .tag { background: #5865f2; color: white; font-size: 10px; font-weight: 600; border-radius: 3px; padding: 1px 4px; margin-left: 4px; vertical-align: 2px; }
  .when { color: #949ba4; font-size: 12px; margin-left: 6px; }
  .content { margin-top: 2px; }
  .ephemeral { color: #949ba4; font-size: 12px; margin-top: 4px; }
  .embed { margin-top: 6px; background: #2b2d31; border-left: 4px solid; border-radius: 4px; padding: 8px 16px 16px 12px; max-width: 520px; }
  .title { margin-top: 8px; font-weight: 600; color: #00a8fc; }
  .description { margin-top: 8px; font-size: 14px; }
  .fields { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; margin-top: 8px; }
  .field { font-size: 14px; grid-column: 1 / -1; }
  .field.inline { grid-column: auto; }
  .field-name { font-weight: 600; color: #f2f3f5; margin-bottom: 2px; }
  .footer { margin-top: 8px; font-size: 12px; color: #b5bac1; }
  .stamp { background: #3f4147; border-radius: 3px; padding: 0 2px; }
  .buttons { margin-top: 8px; display: flex; gap: 8px; }
  .button { background: #4e5058; color: white; font-size: 14px; font-weight: 500; border-radius: 3px; padding: 2px 16px; height: 32px; display: grid; place-items: center; }
`;

/** The whole page for one answer; the message is `.message`. */
export function renderAnswer(answer: RenderedAnswer, now: number): string {
  const { data } = answer;
  const embeds = (data.embeds ?? [])
    .map((embed) => {
      const color = `#${(embed.color ?? 0x1e1f22).toString(16).padStart(6, "0")}`;
      const fields = (embed.fields ?? [])
        .map((f) => `<div class="field${f.inline ? " inline" : ""}"><div class="field-name">${markdown(f.name, now)}</div><div>${markdown(f.value, now)}</div></div>`)
        .join("");
      return [
        `<div class="embed" style="border-color:${color}">`,
        embed.title ? `<div class="title">${markdown(embed.title, now)}</div>` : "",
        embed.description ? `<div class="description">${markdown(embed.description, now)}</div>` : "",
        fields ? `<div class="fields">${fields}</div>` : "",
        embed.timestamp ? `<div class="footer">${escapeHtml(new Intl.DateTimeFormat("en", { dateStyle: "short", timeStyle: "short" }).format(Date.parse(embed.timestamp)))}</div>` : "",
        "</div>",
      ].join("");
    })
    .join("");
  const buttons = (data.components ?? []).flatMap((row) => row.components).map((b) => `<div class="button">${escapeHtml(b.label)}</div>`).join("");
  return [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(answer.command)}</title><style>${STYLE}</style></head><body>`,
    `<div class="message"><div class="avatar">IH</div><div>`,
    `<div class="used">used <b>${escapeHtml(answer.command)}</b></div>`,
    `<div><span class="name">Incentives Hub</span><span class="tag">APP</span><span class="when">Today at ${escapeHtml(new Intl.DateTimeFormat("en", { timeStyle: "short" }).format(now))}</span></div>`,
    data.content ? `<div class="content">${markdown(data.content, now)}</div>` : "",
    data.flags === 64 ? `<div class="ephemeral">Only you can see this</div>` : "",
    embeds,
    buttons ? `<div class="buttons">${buttons}</div>` : "",
    "</div></div></body></html>",
  ].join("");
}
