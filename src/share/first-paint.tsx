/**
 * The board's first paint (SPEC §17.1, "fast on a busy machine"): the hub
 * renders the board's markup into the page it serves, with the same
 * components the app renders, so a viewer sees every region's bonus as soon
 * as the HTML arrives instead of after the app's code has loaded and run.
 * The app's first render then takes this markup over in place (Preact reuses
 * the elements it finds). What only the viewer's browser knows is left for
 * the app: their own region (time zone, latency, choice), their remembered
 * platform and language, and times of day (their time zone). Controls are
 * rendered disabled, since nothing answers them until the app has started.
 * With the site gate on (requireAuth), nothing is rendered: the data is not
 * public then.
 */
import { renderToString } from "preact-render-to-string";
import type { Config } from "../config/load.ts";
import type { Platform } from "../domain/catalogue.ts";
import type { AgentDirectory } from "../live/agents.ts";
import type { LiveStore } from "../live/store.ts";
import type { RuntimeSettings } from "../settings.ts";
import { OPTIONS } from "../config/options.ts";
import type { IncentivesPayload, SiteMeta } from "../web/api/client.ts";
import { Frame } from "../web/app.tsx";
import { boardSearch, boardShape, boardView, parseBoardQuery, type BoardQuery } from "../web/board-model.ts";
import { now } from "../web/clock.ts";
import { applyLanguage, initialLanguage, LANGUAGES, type Messages } from "../web/i18n/index.ts";
import { BoardView } from "../web/pages/board.tsx";
import { RegionSignals } from "../web/region-signals.ts";
import { location, parseRoute } from "../web/router.ts";
import type { FirstPaint, FirstPaintFor } from "../http/web.ts";
import { defaultPlatform } from "./head.ts";
import { publicSettings, siteMeta } from "./meta.ts";

/** A first paint is rendered again at most this often for one page and language, however often the payload changes. */
export const FIRST_PAINT_MIN_AGE_MS = 1000;
/** Relative times ("3 minutes ago") are rendered again at least this often, as the app's own clock ticks. */
export const FIRST_PAINT_MAX_AGE_MS = 10_000;
/** Most rendered variants kept at once (page × language × query). */
const MAX_KEPT = 128;

export interface FirstPaintDeps {
  readonly config: Config;
  readonly live: LiveStore;
  readonly agents: AgentDirectory;
  readonly settings: RuntimeSettings;
  readonly now?: () => number;
}

/** The languages an Accept-Language header asks for, most wanted first. */
export function acceptedLanguages(header: string | null): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag !== "" && entry.tag !== "*" && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}

/** Markup rendered before any script runs must not carry style attributes (the CSP allows none); the app sets them. */
function withoutStyleAttributes(html: string): string {
  return html.replace(/ style="[^"]*"/g, "");
}

/** Nothing answers a control until the app has started, so it is shown disabled until then. */
function controlsDisabled(html: string): string {
  return html.replace(/<(button|select)\b/g, "<$1 disabled");
}

function render(platform: Platform, meta: SiteMeta, payload: IncentivesPayload, query: BoardQuery, search: string, at: number): string {
  // Times of day are the viewer's (their time zone), which the hub does not know: the app writes them.
  const regions = payload.regions.map((region) => ({ ...region, since: null }));
  const entries = new RegionSignals();
  entries.update(regions);
  const board = boardShape({ ...payload, regions }, query, meta.pageSize, null);
  location.value = { pathname: `/${platform}`, search };
  now.value = at;
  const markup = renderToString(
    <Frame meta={meta} session={null}>
      <BoardView
        platform={platform}
        meta={meta}
        board={board}
        entries={entries}
        everyCard={false}
        connection="connecting"
        query={query}
        filtersOpen={false}
        toggleFilters={() => undefined}
        filters={null}
        alerts={null}
        viewerPending
      />
    </Frame>,
  );
  return controlsDisabled(withoutStyleAttributes(markup));
}

/**
 * The query as the first paint is keyed and rendered (SPEC §16.3): the
 * search trimmed, its spaces collapsed and lower-cased (the board matches
 * names without regard to case), the page clamped to the pages there are; so
 * every spelling of one question shares one render.
 */
function normalisedQuery(query: BoardQuery, payload: IncentivesPayload, pageSize: number): BoardQuery {
  const q = query.q.trim().replace(/\s+/g, " ").toLowerCase();
  const { pages } = boardView(payload.regions, { ...query, q }, pageSize);
  return { ...query, q, page: Math.min(query.page, pages) };
}

/**
 * Renders board pages' first paints, each kept and rendered again only when
 * its payload changed and FIRST_PAINT_MIN_AGE_MS has passed, or after
 * FIRST_PAINT_MAX_AGE_MS. Catalogues of every language are loaded once, on
 * first use.
 */
export function firstPaints(deps: FirstPaintDeps): FirstPaintFor {
  const clock = deps.now ?? Date.now;
  const published = publicSettings(OPTIONS);
  const kept = new Map<string, { revision: number; at: number; paint: FirstPaint }>();
  let catalogues: Promise<Map<string, Messages>> | null = null;
  const loadCatalogues = async () => new Map(await Promise.all(LANGUAGES.map(async (l) => [l.code, await l.load()] as const)));
  return async (path, search, acceptLanguage) => {
    if (deps.settings.get().requireAuth) return null;
    // The app's own routing: a board page is "/" (the platform it opens on) or "/{platform}".
    const route = parseRoute(path);
    if (route.page !== "board") return null;
    const platform = route.platform ?? defaultPlatform(deps.agents);
    catalogues ??= loadCatalogues();
    const messages = await catalogues;
    const lang = initialLanguage(null, acceptedLanguages(acceptLanguage));
    const meta = siteMeta(deps, published) as SiteMeta;
    // A hub with no agent yet shows its first steps instead of a board, and those depend on who is looking: the app's to render.
    if (meta.platforms.length === 0) return null;
    const current = deps.live.current(platform);
    const payload = JSON.parse(current.json) as IncentivesPayload;
    const query = normalisedQuery(parseBoardQuery(search), payload, meta.pageSize);
    const canonical = boardSearch(query);
    // Keyed by what is rendered, not by how it was asked for: "/", "/Windows/" and "//Windows" are two pages, not three.
    const slot = `${route.platform === null ? "/" : `/${platform}`}\n${platform}\n${lang}\n${canonical}`;
    const at = clock();
    const previous = kept.get(slot);
    if (previous) {
      const age = at - previous.at;
      if (age < FIRST_PAINT_MIN_AGE_MS || (previous.revision === current.revision && age < FIRST_PAINT_MAX_AGE_MS)) return previous.paint;
    }
    const catalogue = messages.get(lang);
    if (!catalogue) return null;
    applyLanguage(lang, catalogue);
    const html = render(platform, meta, payload, query, canonical, at);
    const paint: FirstPaint = { lang, html, slot, key: `${slot}\n${current.revision}\n${at}` };
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(slot, { revision: current.revision, at, paint });
    return paint;
  };
}
