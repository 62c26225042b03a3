/** What other sites take from the hub (SPEC §19): badges, feeds, link-preview images, robots.txt and the sitemap. */
import { Elysia, t } from "elysia";
import type { HubContext } from "../context.ts";
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import type { RegionIncentive } from "../domain/incentives.ts";
import type { Access } from "../http/access.ts";
import { HttpProblem } from "../domain/problem.ts";
import { etagMatches, PlatformParams, problems, queryInteger, requirePlatform, requireRegion, integerQuery } from "../http/schemas.ts";
import { badgeContent, badgeSvg, MAX_LABEL_LENGTH } from "../share/badge.ts";
import { FEED_DEFAULT_MIN, FEED_MAX_MIN, Feeds, type FeedAnswer } from "../share/feed.ts";
import { defaultPlatform } from "../share/head.ts";
import { EMBED_CSS, EMBED_JS, embedCsp, embedHtml, embedLanguage } from "../share/embed.ts";
import { ICON_SIZES, iconPng, iconSvg, manifest, type IconSize } from "../share/icons.ts";
import { loadMessages } from "../share/languages.ts";
import { OgImages, platformSvg, regionSvg } from "../share/og.ts";
import { robotsTxt, sitemapXml } from "../share/seo.ts";

const SHARED_CACHE = "public, max-age=60";
export const BADGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const FileParams = (example: string, description: string) =>
  t.Object({ platform: PlatformParams.properties.platform, file: t.String({ description, examples: [example] }) });

/** Splits "eu-west-1.svg" into the region and the suffix, or a 404 naming what exists. */
function splitFile(file: string, suffixes: readonly string[]): { name: string; suffix: string } {
  const dot = file.lastIndexOf(".");
  const suffix = dot < 0 ? "" : file.slice(dot + 1);
  if (dot < 0 || !suffixes.includes(suffix)) throw new HttpProblem(404, `There is no "${file}" here; ask for <name>.${suffixes.join(" or <name>.")}.`);
  return { name: file.slice(0, dot), suffix };
}

export function shareRoutes(ctx: HubContext, access: Access) {
  const { config, live, settings } = ctx;
  const feeds = new Feeds(ctx.db, config.catalogue, config.origin, live, ctx.events, ctx.now);
  const cacheControl = () => (settings.get().requireAuth ? "no-store" : SHARED_CACHE);

  const regionOf = (platform: Platform, id: string): { region: RegionIncentive; revision: number } => {
    requireRegion(config.catalogue, id);
    const published = live.current(platform);
    const region = published.content.regions.find((r) => r.region === id);
    if (!region) throw new HttpProblem(404, `No agent covers ${id} on ${platform}, and it has no reading.`);
    return { region, revision: published.revision };
  };

  const og = new OgImages();
  const ogReply = async (request: Request, key: string, revision: number, draw: () => string): Promise<Response> => {
    const headers: Record<string, string> = { "cache-control": cacheControl(), etag: `"${revision}"` };
    if (etagMatches(request.headers.get("if-none-match"), headers.etag ?? "")) return new Response(null, { status: 304, headers });
    const started = performance.now();
    const picture = await og.picture(key, revision, draw);
    // Says whether this request drew the picture, so a cache in front (or a test) can see the once-per-revision rule hold.
    const timing = `${picture.rendered ? "render" : "cache"};dur=${(performance.now() - started).toFixed(1)}`;
    return new Response(picture.png, { headers: { ...headers, "content-type": "image/png", "server-timing": timing } });
  };
  const platformPicture = (request: Request, platform: Platform) => {
    const published = live.current(platform);
    return ogReply(request, platform, published.revision, () => platformSvg(platform, published.content.regions, published.content.activeEvent));
  };
  const OG_DETAIL = (summary: string, description: string) => ({
    tags: ["incentives"],
    summary,
    description: `${description} 1200×630, rendered at most once per payload revision (the ETag).`,
    "x-media-type": "image/png",
    "x-response-headers": { 200: ["ETag", "Cache-Control"], 304: ["ETag", "Cache-Control"] },
  });

  const ICON_CACHE = "public, max-age=86400";
  const embedPage = async (platform: Platform, region: string | null, query: { theme?: string; lang?: string }) => {
    if (region !== null) regionOf(platform, region);
    const lang = embedLanguage(query.lang);
    const words = await loadMessages(lang);
    const html = embedHtml({ platform, region, regions: live.current(platform).content.regions, theme: query.theme === "light" ? "light" : "dark", lang, origin: config.origin }, words);
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": embedCsp(config.embedAncestors) } });
  };
  const EmbedQuery = t.Object({
    theme: t.Optional(t.String({ enum: ["light", "dark"], description: "Colours (default dark)" })),
    lang: t.Optional(t.String({ description: "A language of the web app, such as de or pt-BR (default en)" })),
  });
  const EMBED_DETAIL = (summary: string) => ({
    tags: ["incentives"],
    summary,
    description: "A compact live page for an iframe on another site, driven by the stream. Framing allowed for EMBED_ANCESTORS (default *); links open the hub in a new tab.",
    "x-media-type": "text/html",
  });
  return new Elysia({ name: "routes/share" })
    .use(access.plugin)
    .get(
      "/icons/:file",
      async ({ params }) => {
        if (params.file === "icon.svg") return new Response(await iconSvg(), { headers: { "content-type": "image/svg+xml; charset=utf-8", "cache-control": ICON_CACHE, "content-security-policy": BADGE_CSP } });
        const size = Number(/^icon-(\d+)\.png$/.exec(params.file)?.[1]);
        if (!(ICON_SIZES as readonly number[]).includes(size)) throw new HttpProblem(404, `There is no icon "${params.file}"; the hub has icon.svg and icon-{${ICON_SIZES.join(",")}}.png.`);
        return new Response(await iconPng(size as IconSize), { headers: { "content-type": "image/png", "cache-control": ICON_CACHE } });
      },
      {
        access: "public",
        params: t.Object({ file: t.String({ description: "icon.svg, or icon-N.png for N in 32, 180, 192, 512", examples: ["icon-192.png"] }) }),
        response: { 200: t.String({ description: "The icon" }), ...problems(404) },
        detail: { tags: ["system"], summary: "Icons", description: "The favicon as SVG and its PNG renderings, drawn at build time from one source.", "x-media-type": "image/png" },
      },
    )
    .get("/embed/embed.js", () => new Response(EMBED_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" } }), {
      access: "public",
      response: { 200: t.String({ description: "The embed's script" }) },
      detail: { tags: ["system"], summary: "Embed script", description: "Follows the stream inside an embed.", "x-media-type": "text/javascript" },
    })
    .get("/embed/embed.css", () => new Response(EMBED_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=3600" } }), {
      access: "public",
      response: { 200: t.String({ description: "The embed's styles" }) },
      detail: { tags: ["system"], summary: "Embed styles", description: "Light and dark colours of an embed.", "x-media-type": "text/css" },
    })
    .get("/embed/:platform", ({ params, query }) => embedPage(requirePlatform(params.platform), null, query), {
      access: "public-read",
      params: PlatformParams,
      query: EmbedQuery,
      response: { 200: t.String({ description: "An HTML page" }), ...problems(401, 404) },
      detail: EMBED_DETAIL("Embed of a platform's board"),
    })
    .get("/embed/:platform/:region", ({ params, query }) => embedPage(requirePlatform(params.platform), params.region, query), {
      access: "public-read",
      params: t.Object({ platform: PlatformParams.properties.platform, region: t.String({ description: "A region id", examples: ["eu-central-1"] }) }),
      query: EmbedQuery,
      response: { 200: t.String({ description: "An HTML page" }), ...problems(401, 404) },
      detail: EMBED_DETAIL("Embed of a region's answer"),
    })
    .get("/manifest.webmanifest", () => new Response(manifest(), { headers: { "content-type": "application/manifest+json; charset=utf-8", "cache-control": ICON_CACHE } }), {
      access: "public",
      response: { 200: t.String({ description: "The web app manifest" }) },
      detail: { tags: ["system"], summary: "Web app manifest", description: "Name, icons, start_url / and display standalone, for installing the board.", "x-media-type": "application/manifest+json" },
    })
    .get("/og.png", ({ request }) => platformPicture(request, defaultPlatform(ctx.agents)), {
      access: "public-read",
      response: { 200: t.String({ description: "A PNG picture" }), 304: t.Void({ description: "Not modified" }), ...problems(401) },
      detail: OG_DETAIL("Link-preview picture of the board", "The picture of the platform the board opens on."),
    })
    .get(
      "/og/:platform",
      ({ params, request }) => platformPicture(request, requirePlatform(splitFile(params.platform, ["png"]).name)),
      {
        access: "public-read",
        params: t.Object({ platform: t.String({ description: "The platform id with .png, such as Windows.png", examples: ["Windows.png"] }) }),
        response: { 200: t.String({ description: "A PNG picture" }), 304: t.Void({ description: "Not modified" }), ...problems(401, 404) },
        detail: OG_DETAIL("Link-preview picture of a platform", "The platform's three biggest bonuses now."),
      },
    )
    .get(
      "/og/:platform/:file",
      ({ params, request }) => {
        const platform = requirePlatform(params.platform);
        const { region, revision } = regionOf(platform, splitFile(params.file, ["png"]).name);
        const event = live.current(platform).content.activeEvent;
        return ogReply(request, `${platform}/${region.region}`, revision, () => regionSvg(platform, region, event));
      },
      {
        access: "public-read",
        params: FileParams("eu-central-1.png", "The region id with .png"),
        response: { 200: t.String({ description: "A PNG picture" }), 304: t.Void({ description: "Not modified" }), ...problems(401, 404) },
        detail: OG_DETAIL("Link-preview picture of a region", "The region's bonus per role, its freshness and any event."),
      },
    )
    .get(
      "/badge/:platform/:file",
      ({ params, query, request }) => {
        const platform = requirePlatform(params.platform);
        const { name, suffix } = splitFile(params.file, ["svg", "json"]);
        const label = query.label ?? null;
        if (label !== null && [...label].length > MAX_LABEL_LENGTH) throw new HttpProblem(400, `The label is longer than ${MAX_LABEL_LENGTH} characters.`);
        const { region, revision } = regionOf(platform, name);
        const badge = badgeContent(region, label);
        const etag = `"${revision}-${suffix}-${Bun.hash(label ?? "").toString(36)}"`;
        const headers: Record<string, string> = { "cache-control": cacheControl(), etag };
        if (etagMatches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
        if (suffix === "json") {
          return new Response(JSON.stringify({ schemaVersion: 1, label: badge.label, message: badge.message, color: badge.color }), {
            headers: { ...headers, "content-type": "application/json; charset=utf-8" },
          });
        }
        return new Response(badgeSvg(badge), { headers: { ...headers, "content-type": "image/svg+xml; charset=utf-8", "content-security-policy": BADGE_CSP } });
      },
      {
        access: "public-read",
        params: FileParams("eu-central-1.svg", "The region id with .svg (the badge) or .json (the shields.io endpoint schema)"),
        query: t.Object({ label: t.Optional(t.String({ maxLength: MAX_LABEL_LENGTH, description: "Replaces the left text (the region's name)" })) }),
        response: { 200: t.String({ description: "An SVG badge, or with .json the shields.io endpoint JSON { schemaVersion: 1, label, message, color }" }), 304: t.Void({ description: "Not modified" }), ...problems(400, 401, 404) },
        detail: {
          tags: ["incentives"],
          summary: "Badge of a region's bonus",
          description: "A shields-style badge such as \"Killer +75 %\" in the role's colour, grey and \"stale\" when the reading is stale; with .json, the shields.io endpoint schema for the same words.",
          "x-media-type": "image/svg+xml",
          "x-response-headers": { 200: ["ETag", "Cache-Control"], 304: ["ETag", "Cache-Control"] },
        },
      },
    )
    .get(
      "/feeds/:platform",
      ({ params, query }) => {
        const { name } = splitFile(params.platform, ["atom"]);
        return atomReply(feeds.atom(requirePlatform(name), null, minOf(query.min)), cacheControl());
      },
      {
        access: "public-read",
        params: t.Object({ platform: t.String({ description: "The platform id with .atom, such as Windows.atom", examples: ["Windows.atom"] }) }),
        query: t.Object({ min: t.Optional(MinQuery) }),
        response: { 200: t.String({ description: "An Atom 1.0 feed" }), ...problems(400, 401, 404) },
        detail: FEED_DETAIL("Feed of a platform's bonus changes"),
      },
    )
    .get(
      "/feeds/:platform/:file",
      ({ params, query }) => {
        const platform = requirePlatform(params.platform);
        const { name } = splitFile(params.file, ["atom"]);
        return atomReply(feeds.atom(platform, requireRegion(config.catalogue, name), minOf(query.min)), cacheControl());
      },
      {
        access: "public-read",
        params: FileParams("eu-central-1.atom", "The region id with .atom"),
        query: t.Object({ min: t.Optional(MinQuery) }),
        response: { 200: t.String({ description: "An Atom 1.0 feed" }), ...problems(400, 401, 404) },
        detail: FEED_DETAIL("Feed of a region's bonus changes"),
      },
    )
    .get(
      "/robots.txt",
      () => new Response(robotsTxt(config.seoEnabled, config.origin), { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=3600" } }),
      {
        access: "public",
        response: { 200: t.String({ description: "robots.txt" }) },
        detail: { tags: ["system"], summary: "Rules for crawlers", description: "With SEO_ENABLED, everything but the API and the account pages, and the sitemap; without, nothing.", "x-media-type": "text/plain" },
      },
    )
    .get(
      "/sitemap.xml",
      () => {
        if (!config.seoEnabled) throw new HttpProblem(404, "This hub does not ask to be indexed (SEO_ENABLED is off).");
        const covered = PLATFORMS.map((platform) => ({ platform, regions: config.catalogue.regions.filter((r) => ctx.agents.coveredRegions(platform).has(r.id)).map((r) => r.id) }));
        return new Response(sitemapXml(config.origin, covered), { headers: { "content-type": "application/xml; charset=utf-8", "cache-control": "public, max-age=3600" } });
      },
      {
        access: "public",
        response: { 200: t.String({ description: "A sitemap" }), ...problems(404) },
        detail: { tags: ["system"], summary: "Sitemap", description: "The board, each platform and each covered region, with SEO_ENABLED; a 404 without.", "x-media-type": "application/xml" },
      },
    );
}

const MinQuery = integerQuery({ description: "The smallest bonus percent that makes an entry", minimum: 0, maximum: FEED_MAX_MIN, examples: [FEED_DEFAULT_MIN] });

function minOf(raw: string | undefined): number {
  return queryInteger(raw, "min", { minimum: 0, maximum: FEED_MAX_MIN }) ?? FEED_DEFAULT_MIN;
}

/** Server-Timing says whether the request built (brought the platform's changes up to its revision) or only filtered, as the OG pictures say whether they drew. */
async function atomReply(answer: Promise<FeedAnswer>, cacheControl: string): Promise<Response> {
  const started = performance.now();
  const { body, built } = await answer;
  const timing = `${built ? "build" : "cache"};dur=${(performance.now() - started).toFixed(1)}`;
  return new Response(body, { headers: { "content-type": "application/atom+xml; charset=utf-8", "cache-control": cacheControl, "server-timing": timing } });
}

function FEED_DETAIL(summary: string) {
  return {
    tags: ["incentives"],
    summary,
    description:
      "Atom 1.0: an entry when a role's bonus first reaches min % or changes while at or above it, and one when an event starts (from the schedule or the readings, whether or not a reading follows it); newest first, at most 50, from the stored readings. The entries are built once per payload revision and platform; each min (0–1000) only filters them. Server-Timing says build or cache.",
    "x-media-type": "application/atom+xml",
  };
}
