/**
 * The <head> a crawler reads (SPEC §19): each board page's own title and
 * description with the live value, Open Graph and Twitter tags pointing at the
 * hub's rendered picture, and the search-engine choice (canonical link and
 * JSON-LD, or noindex). Built per page and payload revision, so a link pasted
 * into a chat shows what the board shows now.
 */
import type { Config } from "../config/load.ts";
import { isPlatform, PLATFORM_LABELS, PLATFORMS, type Platform } from "../domain/catalogue.ts";
import type { AgentDirectory } from "../live/agents.ts";
import type { LiveStore } from "../live/store.ts";
import type { RuntimeSettings } from "../settings.ts";
import { escapeMarkup, jsonForScript } from "./escape.ts";
import { iconFileName, THEME_COLOURS } from "./icons.ts";
import { OG_HEIGHT, OG_WIDTH } from "./og.ts";
import { answerText, platformSentence, regionSentence, SITE_NAME } from "./words.ts";

export interface PageHead {
  /** Equal keys mean equal heads: the page, the payload revision and the read gate. */
  readonly key: string;
  readonly head: string;
}

interface Preview {
  readonly title: string;
  readonly description: string | null;
  readonly image: string | null;
}

export interface HeadDeps {
  readonly config: Config;
  readonly live: LiveStore;
  readonly agents: AgentDirectory;
  readonly settings: RuntimeSettings;
}

/** The platform the board opens on: the first one an agent covers. */
export function defaultPlatform(agents: AgentDirectory): Platform {
  return PLATFORMS.find((p) => agents.coveredRegions(p).size > 0) ?? PLATFORMS[0];
}

function meta(attribute: "name" | "property", name: string, content: string): string {
  return `<meta ${attribute}="${name}" content="${escapeMarkup(content)}" />`;
}

/**
 * The live payload the board and region pages start from, asked for by the
 * HTML itself (SPEC §17.1), so it is on its way while the app's code loads.
 * The app's own fetch (same URL, CORS mode, same-origin credentials) takes
 * this response instead of asking again; "/" preloads the platform the app
 * opens on for a viewer who has not picked one.
 */
function payloadPreload(platform: Platform): string {
  return `<link rel="preload" href="/api/v1/platforms/${platform}/incentives" as="fetch" crossorigin="anonymous" />`;
}

/** The app's pages that have a name of their own, each with its own head; the board's pages are the catalogue's. */
const NAMED_PAGES: ReadonlySet<string> = new Set(["/contribute", "/contribute/agents", "/setup", "/login", "/account", "/admin"]);

export function pageHeads(deps: HeadDeps): (path: string) => PageHead {
  const { config, live, agents, settings } = deps;
  const origin = config.origin;

  const preview = (platform: Platform, region: string | null): Preview | null => {
    const content = live.current(platform).content;
    if (region === null) {
      const top = [...content.regions].filter((r) => !r.stale && Math.max(r.killer, r.survivor) > 0).sort((a, b) => Math.max(b.killer, b.survivor) - Math.max(a.killer, a.survivor))[0];
      const lead = top ? ` ${top.displayName}: ${answerText(top)}.` : "";
      return { title: `${PLATFORM_LABELS[platform]} · ${SITE_NAME}`, description: `${platformSentence(platform)}.${lead}`, image: `${origin}/og/${platform}.png` };
    }
    const found = content.regions.find((r) => r.region === region);
    if (!found) return null;
    const sentence = regionSentence(platform, found);
    return { title: sentence, description: `${sentence} · ${SITE_NAME}`, image: `${origin}/og/${platform}/${region}.png` };
  };

  return (path) => {
    const parts = path.split("/").filter((part) => part !== "");
    const [first = "", second, ...rest] = parts;
    const gated = settings.get().requireAuth;
    const board = parts.length === 0 || (isPlatform(first) && rest.length === 0 && (second === undefined || config.catalogue.region(second) !== undefined));
    const named = `/${parts.join("/")}`;
    // A made-up path (a region not in the catalogue, an admin section, anything else) shares one head, so walking them builds nothing new (SPEC §16.3).
    const page = board || NAMED_PAGES.has(named) ? named : null;
    const platform = isPlatform(first) ? first : defaultPlatform(agents);
    const revision = board ? live.current(platform).revision : 0;
    // The platform is in a board's key as well: "/" follows the first covered platform, which an agent added elsewhere can change.
    const key = board ? `${page}\n${platform}\n${revision}\n${gated}` : `${page ?? "*"}\n${gated}`;
    const shown: Preview =
      (board && !gated ? preview(platform, isPlatform(first) ? (second ?? null) : null) : null) ?? { title: SITE_NAME, description: null, image: null };
    const url = `${origin}${page ?? "/"}`;
    const tags = [
      `<title>${escapeMarkup(shown.title)}</title>`,
      ...(board ? [payloadPreload(platform)] : []),
      `<link rel="icon" href="/icons/icon.svg" type="image/svg+xml" />`,
      `<link rel="icon" href="/icons/${iconFileName(32)}" sizes="32x32" type="image/png" />`,
      `<link rel="apple-touch-icon" href="/icons/${iconFileName(180)}" />`,
      `<link rel="manifest" href="/manifest.webmanifest" />`,
      `<meta name="theme-color" media="(prefers-color-scheme: dark)" content="${THEME_COLOURS.dark}" />`,
      `<meta name="theme-color" media="(prefers-color-scheme: light)" content="${THEME_COLOURS.light}" />`, meta("property", "og:site_name", SITE_NAME), meta("property", "og:title", shown.title), meta("property", "og:type", "website")];
    tags.push(meta("property", "og:url", url));
    if (shown.description !== null) tags.push(meta("name", "description", shown.description), meta("property", "og:description", shown.description));
    if (shown.image !== null) {
      tags.push(meta("property", "og:image", shown.image), meta("property", "og:image:width", String(OG_WIDTH)), meta("property", "og:image:height", String(OG_HEIGHT)));
      tags.push(meta("property", "og:image:alt", shown.title), meta("name", "twitter:card", "summary_large_image"));
    } else {
      tags.push(meta("name", "twitter:card", "summary"));
    }
    if (config.seoEnabled && board) {
      tags.push(`<link rel="canonical" href="${escapeMarkup(url)}" />`);
      if (path === "/") tags.push(`<script type="application/ld+json">${jsonForScript({ "@context": "https://schema.org", "@type": "WebSite", name: SITE_NAME, url: `${origin}/` })}</script>`);
    } else {
      tags.push(meta("name", "robots", "noindex"));
    }
    return { key, head: tags.join("") };
  };
}
