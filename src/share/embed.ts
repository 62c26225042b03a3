/**
 * Embeds (SPEC §19): a compact live view for other sites' iframes, the
 * board's rows of a platform or one region's answer line. The page is
 * rendered by the hub with the current values, so it reads right before any
 * script runs; a small script then follows the stream and rewrites the values.
 * Words come from the web app's catalogues in the language asked for.
 */
import { PLATFORM_LABELS, type Platform } from "../domain/catalogue.ts";
import type { RegionIncentive } from "../domain/incentives.ts";
import type { Messages } from "../web/i18n/messages/en.ts";
import { LANGUAGE_CODES } from "./languages.ts";
import { escapeMarkup } from "./escape.ts";
import { bonusText, leadingRole } from "./words.ts";

export type EmbedTheme = "light" | "dark";

export interface EmbedPage {
  readonly platform: Platform;
  readonly region: string | null;
  readonly regions: readonly RegionIncentive[];
  readonly theme: EmbedTheme;
  readonly lang: string;
  readonly origin: string;
}

/** frame-ancestors from EMBED_ANCESTORS; everything else as strict as the app's pages. */
export function embedCsp(ancestors: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors}`,
  ].join("; ");
}

export function embedLanguage(requested: string | undefined): string {
  return requested !== undefined && LANGUAGE_CODES.includes(requested) ? requested : "en";
}

/** The page, in the words of `page.lang`'s catalogue (`words`). */
export function embedHtml(page: EmbedPage, words: Messages): string {
  const answer = (region: RegionIncentive): { text: string; role: string } => {
    if (!region.isReal) return { text: words["card.noReading"], role: "none" };
    if (region.stale) return { text: words["card.stale"], role: "stale" };
    const role = leadingRole(region);
    if (role === null) return { text: words["card.noBonus"], role: "none" };
    return { text: `${words[role === "killer" ? "role.killer" : "role.survivor"]} ${bonusText(region[role])}`, role };
  };
  const shown = page.region === null ? page.regions : page.regions.filter((r) => r.region === page.region);
  const rows = shown
    .map((region) => {
      const { text, role } = answer(region);
      const href = `${page.origin}/${page.platform}/${region.region}`;
      return (
        `<li data-region="${escapeMarkup(region.region)}"><a href="${escapeMarkup(href)}" target="_blank" rel="noopener">${escapeMarkup(region.displayName)}</a>` +
        `<span class="answer" data-role="${role}">${escapeMarkup(text)}</span></li>`
      );
    })
    .join("");
  const board = `${page.origin}/${page.platform}${page.region === null ? "" : `/${page.region}`}`;
  const data = [
    ["stream", `/api/v1/platforms/${page.platform}/incentives/stream`],
    ["killer", words["role.killer"]],
    ["survivor", words["role.survivor"]],
    ["none", words["card.noBonus"]],
    ["stale", words["card.stale"]],
    ["noreading", words["card.noReading"]],
  ]
    .map(([name, value]) => `data-${name}="${escapeMarkup(value ?? "")}"`)
    .join(" ");
  return (
    `<!doctype html><html lang="${escapeMarkup(page.lang)}" data-theme="${page.theme}"><head><meta charset="utf-8" />` +
    `<meta name="viewport" content="width=device-width, initial-scale=1" /><meta name="robots" content="noindex" />` +
    `<title>${escapeMarkup(`${PLATFORM_LABELS[page.platform]} · ${words["app.title"]}`)}</title>` +
    `<link rel="stylesheet" href="/embed/embed.css" /><script type="module" src="/embed/embed.js"></script></head>` +
    `<body><main ${data}><ul class="rows">${rows}</ul>` +
    `<a class="more" href="${escapeMarkup(board)}" target="_blank" rel="noopener">${escapeMarkup(words["app.title"])} · ${escapeMarkup(PLATFORM_LABELS[page.platform])}</a></main></body></html>`
  );
}

export const EMBED_CSS = `:root{color-scheme:dark;--bg:#111318;--text:#eef0f3;--muted:#a3a9b5;--killer:#ff7a70;--survivor:#6cb8ff;--line:#2a2e37}
[data-theme=light]{color-scheme:light;--bg:#f5f6f8;--text:#15171c;--muted:#4f5663;--killer:#b0271d;--survivor:#0a5aa8;--line:#d5d9e0}
body{margin:0;background:var(--bg);color:var(--text);font:14px/1.4 system-ui,sans-serif}
main{padding:8px 12px}ul{list-style:none;margin:0;padding:0}
li{display:flex;justify-content:space-between;gap:12px;padding:4px 0;border-bottom:1px solid var(--line)}
a{color:inherit}.answer{font-weight:700;white-space:nowrap}
.answer[data-role=killer]{color:var(--killer)}.answer[data-role=survivor]{color:var(--survivor)}
.answer[data-role=none],.answer[data-role=stale]{color:var(--muted)}
.more{display:block;margin-top:6px;color:var(--muted);font-size:12px}
`;

/** Follows the platform's stream and rewrites each shown row's answer; the words come from the page's data attributes. */
export const EMBED_JS = `const main = document.querySelector("main[data-stream]");
if (main) {
  const words = main.dataset;
  const answer = (r) => {
    if (!r.isReal) return ["none", words.noreading];
    if (r.stale) return ["stale", words.stale];
    if (r.killer <= 0 && r.survivor <= 0) return ["none", words.none];
    const role = r.killer >= r.survivor ? "killer" : "survivor";
    return [role, words[role] + " +" + Math.round(r[role]) + " %"];
  };
  const source = new EventSource(main.dataset.stream);
  source.onmessage = (message) => {
    const payload = JSON.parse(message.data);
    for (const r of payload.regions) {
      const row = main.querySelector('li[data-region="' + CSS.escape(r.region) + '"] .answer');
      if (!row) continue;
      const [role, text] = answer(r);
      row.dataset.role = role;
      row.textContent = text;
    }
  };
}
`;
