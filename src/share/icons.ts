/**
 * The hub's icons (SPEC §19): one source drawing, assets/icons/icon.svg,
 * served as the SVG favicon and rasterised to the PNG sizes browsers and home
 * screens ask for. scripts/build.ts renders the PNGs at build time and embeds
 * them in the binary (Bun.embeddedFiles); from source they are rendered from
 * the same drawing on first use.
 */
import { basename } from "node:path";
import iconPath from "../../assets/icons/icon.svg" with { type: "file" };
import { rasterise } from "./og.ts";
import { PLATFORM_LABELS, PLATFORMS } from "../domain/catalogue.ts";
import { SITE_NAME } from "./words.ts";

/** Pixel sizes of the PNG icons: tab, Android home screen and splash, and Apple's touch icon (180). */
export const ICON_SIZES = [32, 180, 192, 512] as const;
export type IconSize = (typeof ICON_SIZES)[number];

/** Theme colours per colour scheme, the board's own page backgrounds. */
export const THEME_COLOURS = { dark: "#111318", light: "#f5f6f8" } as const;

export const iconFileName = (size: IconSize): string => `icon-${size}.png`;

export async function iconSvg(): Promise<string> {
  return await Bun.file(iconPath).text();
}

export async function renderIcon(size: IconSize): Promise<Uint8Array<ArrayBuffer>> {
  return await rasterise(await iconSvg(), size);
}

const rendered = new Map<IconSize, Promise<Uint8Array<ArrayBuffer>>>();

/** The PNG of one size: the copy embedded at build time, else rendered now, once. */
export function iconPng(size: IconSize): Promise<Uint8Array<ArrayBuffer>> {
  let png = rendered.get(size);
  if (!png) {
    // Bun names embedded files <name>-<hash>.<ext>; the build keeps the name, so it is matched by its start.
    const embedded = Bun.embeddedFiles.find((file) => "name" in file && typeof file.name === "string" && /^icon-(\d+)(-[a-z0-9]+)?\.png$/.exec(basename(file.name))?.[1] === String(size));
    png = embedded ? embedded.bytes() : renderIcon(size);
    rendered.set(size, png);
  }
  return png;
}

export function manifest(): string {
  return JSON.stringify({
    id: "/",
    name: SITE_NAME,
    short_name: SITE_NAME,
    start_url: "/",
    scope: "/",
    display: "standalone",
    background_color: THEME_COLOURS.dark,
    theme_color: THEME_COLOURS.dark,
    icons: [
      { src: "/icons/icon.svg", sizes: "any", type: "image/svg+xml" },
      ...([192, 512] as const).map((size) => ({ src: `/icons/${iconFileName(size)}`, sizes: `${size}x${size}`, type: "image/png" })),
    ],
    // Installed, the app offers each platform's board from its icon (SPEC §23).
    shortcuts: PLATFORMS.map((platform) => ({ name: PLATFORM_LABELS[platform], url: `/${platform}`, icons: [{ src: "/icons/icon-192.png", sizes: "192x192", type: "image/png" }] })),
    // The preview images the hub renders of each board's current bonuses (SPEC §19), as the install dialog's pictures.
    screenshots: PLATFORMS.map((platform) => ({ src: `/og/${platform}.png`, sizes: "1200x630", type: "image/png", form_factor: "wide", label: PLATFORM_LABELS[platform] })),
  });
}
