/**
 * The field hub's public addresses (SPEC §22), so that shared links,
 * bookmarks and search results made for it keep working here: its board and
 * region paths redirect for good to this app's, `/register` to the contribute
 * page, and `/favicon.svg` and `/og.png` answer.
 */
import type { BunRequest } from "bun";
import { deflateSync } from "node:zlib";
import { PLATFORMS, REGION_ID_PATTERN, type Platform } from "../domain/catalogue.ts";

type Handler = { GET: (request: BunRequest<string>) => Response | Promise<Response> };

/** This app's path for a board, or for one region of it (the web app's router reads these). */
export function boardPath(platform: Platform, region?: string): string {
  return region === undefined ? `/${platform}` : `/${platform}/${region}`;
}

/** The field writes platforms as `Windows`, `EGS`, `GRDK`; links typed by people may use any case. */
function platformOf(text: string): Platform | null {
  return PLATFORMS.find((p) => p.toLowerCase() === text.toLowerCase()) ?? null;
}

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#111318"/><path d="M32 8c9 13 18 22 18 33a18 18 0 0 1-36 0c0-11 9-20 18-33z" fill="#c8102e"/><circle cx="32" cy="41" r="7" fill="#eef0f4"/></svg>`;

/**
 * A placeholder share image until the sharing work (SPEC §19) draws real
 * ones: 1200 × 630, the board's background colour, made once on first use.
 */
function placeholderPng(): Uint8Array<ArrayBuffer> {
  const width = 1200;
  const height = 630;
  const row = new Uint8Array(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([0x11, 0x13, 0x18], 1 + x * 3);
  const raw = new Uint8Array(row.length * height);
  for (let y = 0; y < height; y++) raw.set(row, y * row.length);
  const chunk = (type: string, data: Uint8Array): Uint8Array => {
    const body = new Uint8Array(4 + data.length);
    body.set(new TextEncoder().encode(type));
    body.set(data, 4);
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(body, 4);
    view.setUint32(8 + data.length, Bun.hash.crc32(body));
    return out;
  };
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8);
  const parts = [new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 9 })), chunk("IEND", new Uint8Array())];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    png.set(part, at);
    at += part.length;
  }
  return png;
}

let ogImage: Uint8Array<ArrayBuffer> | null = null;

export function fieldAddressRoutes(headers: Readonly<Record<string, string>>, notFound: () => Response): Record<string, Handler> {
  const redirect = (request: BunRequest<string>, to: string): Response => {
    const { search } = new URL(request.url, "http://hub.invalid");
    return new Response(null, { status: 301, headers: { ...headers, location: `${to}${search}`, "cache-control": "public, max-age=86400" } });
  };
  const daily = { ...headers, "cache-control": "public, max-age=86400" };
  return {
    "/platforms/:platform": {
      GET: (request) => {
        const platform = platformOf(request.params.platform ?? "");
        return platform ? redirect(request, boardPath(platform)) : notFound();
      },
    },
    "/platforms/:platform/regions/:region": {
      GET: (request) => {
        const platform = platformOf(request.params.platform ?? "");
        const region = (request.params.region ?? "").toLowerCase();
        return platform && REGION_ID_PATTERN.test(region) ? redirect(request, boardPath(platform, region)) : notFound();
      },
    },
    "/register": { GET: (request) => redirect(request, "/contribute") },
    "/favicon.svg": { GET: () => new Response(ICON, { headers: { ...daily, "content-type": "image/svg+xml" } }) },
    "/og.png": {
      GET: () => {
        ogImage ??= placeholderPng();
        return new Response(ogImage, { headers: { ...daily, "content-type": "image/png" } });
      },
    },
  };
}
