/**
 * Link-preview pictures (SPEC §19): 1200×630 PNGs of a region's bonus per
 * role, its freshness and any event, or a platform's three biggest bonuses.
 * Drawn as SVG and rasterised in-process by resvg (WebAssembly) with DejaVu
 * Sans embedded in the binary, so nothing leaves the machine and the picture
 * looks the same on every host. Each picture is rendered at most once per
 * payload revision; the revision is its ETag.
 */
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import wasmPath from "@resvg/resvg-wasm/index_bg.wasm" with { type: "file" };
import boldPath from "../../assets/fonts/DejaVuSans-Bold.ttf" with { type: "file" };
import regularPath from "../../assets/fonts/DejaVuSans.ttf" with { type: "file" };
import { PLATFORM_LABELS, type Platform } from "../domain/catalogue.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { RegionIncentive } from "../domain/incentives.ts";
import { escapeMarkup } from "./escape.ts";
import { encodePng } from "./png.ts";
import { answerText, bonusText, leadingRole, roleName, say, SITE_NAME } from "./words.ts";
import { en } from "../web/i18n/messages/en.ts";

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;

const COLOURS = { background: "#15171c", text: "#f2f3f5", muted: "#a3a9b5", killer: "#ff7a70", survivor: "#6cb8ff", none: "#7d8390", stale: "#9f9f9f" } as const;

type RenderOptions = NonNullable<ConstructorParameters<typeof Resvg>[1]>;

let ready: Promise<RenderOptions> | null = null;

/**
 * Rasterises an SVG with the embedded fonts; shared by the pictures and the
 * icons. A picture is drawn at its own size; `width` scales a drawing (the
 * icons, one source drawing for every size).
 */
export async function rasterise(svg: string, width?: number): Promise<Uint8Array<ArrayBuffer>> {
  const options = await renderer();
  const resvg = new Resvg(svg, width ? { ...options, fitTo: { mode: "width", value: width } } : options);
  try {
    const image = resvg.render();
    try {
      return encodePng(image.pixels, image.width, image.height);
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

/** Loads the WebAssembly module and the fonts, and builds the render options, once, on the first picture. */
function renderer(): Promise<RenderOptions> {
  ready ??= (async () => {
    await initWasm(await Bun.file(wasmPath).arrayBuffer());
    const fontBuffers = await Promise.all([Bun.file(regularPath).bytes(), Bun.file(boldPath).bytes()]);
    return { font: { fontBuffers, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" } };
  })();
  return ready;
}

function text(x: number, y: number, size: number, fill: string, content: string, bold = false): string {
  return `<text x="${x}" y="${y}" font-size="${size}" fill="${fill}"${bold ? ` font-weight="bold"` : ""}>${escapeMarkup(content)}</text>`;
}

/** Keeps long operator-given names inside the picture. */
function clip(content: string, max: number): string {
  const chars = [...content];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : content;
}

function utcTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function frame(platform: Platform, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${OG_WIDTH}" height="${OG_HEIGHT}" viewBox="0 0 ${OG_WIDTH} ${OG_HEIGHT}" font-family="DejaVu Sans">` +
    `<rect width="${OG_WIDTH}" height="${OG_HEIGHT}" fill="${COLOURS.background}"/>` +
    `<rect width="${OG_WIDTH}" height="12" fill="${COLOURS.killer}"/><rect width="${OG_WIDTH / 2}" height="12" fill="${COLOURS.survivor}"/>` +
    text(64, 92, 30, COLOURS.muted, `${SITE_NAME} · ${PLATFORM_LABELS[platform]}`) +
    body +
    `</svg>`
  );
}

function eventLine(event: PublicEvent | null, y: number): string {
  return event ? text(64, y, 30, COLOURS.text, clip(say("event.active", { label: event.label, multiplier: event.multiplier }), 60)) : "";
}

export function regionSvg(platform: Platform, region: RegionIncentive, event: PublicEvent | null): string {
  const rows = (["survivor", "killer"] as const).map((role, i) => {
    const y = 300 + i * 110;
    const value = region[role];
    const colour = region.stale || value <= 0 ? COLOURS.none : COLOURS[role];
    return `<rect x="64" y="${y - 70}" width="16" height="88" fill="${colour}"/>` + text(104, y, 64, colour === COLOURS.none ? COLOURS.muted : COLOURS.text, `${roleName(role)} ${bonusText(value)}`, true);
  });
  const freshness = !region.isReal ? en["card.noReading"] : region.stale ? `${en["card.stale"]} · ${say("card.updated", { time: utcTime(region.lastUpdated ?? "") })}` : say("card.updated", { time: utcTime(region.lastUpdated ?? "") });
  return frame(platform, text(64, 170, 56, COLOURS.text, clip(region.displayName, 34), true) + rows.join("") + text(64, 530, 30, region.stale ? COLOURS.stale : COLOURS.muted, freshness) + eventLine(event, 580));
}

/** The platform's three biggest fresh bonuses, or a line saying there is none. */
export function platformSvg(platform: Platform, regions: readonly RegionIncentive[], event: PublicEvent | null): string {
  const top = regions
    .filter((r) => !r.stale && leadingRole(r) !== null)
    .sort((a, b) => Math.max(b.killer, b.survivor) - Math.max(a.killer, a.survivor))
    .slice(0, 3);
  const rows = top.map((region, i) => {
    const y = 220 + i * 105;
    const role = leadingRole(region) ?? "killer";
    return `<rect x="64" y="${y - 62}" width="16" height="78" fill="${COLOURS[role]}"/>` + text(104, y, 48, COLOURS.text, clip(region.displayName, 26), true) + text(1136, y, 48, COLOURS[role], answerText(region), true).replace("<text ", `<text text-anchor="end" `);
  });
  const body = rows.length > 0 ? rows.join("") : text(64, 300, 48, COLOURS.muted, en["card.noBonus"], true);
  return frame(platform, body + eventLine(event, 580));
}

export interface OgPicture {
  readonly png: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  /** Whether this call drew it (false: the cached copy of the same revision). */
  readonly rendered: boolean;
}

/** Renders each picture once per revision and keeps the newest. */
export class OgImages {
  private readonly cache = new Map<string, { revision: number; png: Uint8Array<ArrayBuffer> }>();
  renders = 0;

  async picture(key: string, revision: number, draw: () => string): Promise<OgPicture> {
    const etag = `"${revision}"`;
    const cached = this.cache.get(key);
    if (cached && cached.revision === revision) return { png: cached.png, etag, rendered: false };
    const png = await rasterise(draw());
    this.renders++;
    this.cache.set(key, { revision, png });
    return { png, etag, rendered: true };
  }
}
