/**
 * The field hub's public addresses (SPEC §22), so that shared links,
 * bookmarks and search results made for it keep working here: its board and
 * region paths redirect for good to this app's, `/register` to the contribute
 * page, `/favicon.svg` to the hub's icon (`/og.png` is a share route).
 */
import type { BunRequest } from "bun";
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


/** `notFound` answers a path the field never had: the app's 404 page for a browser, the problem detail otherwise. */
export function fieldAddressRoutes(headers: Readonly<Record<string, string>>, notFound: (request: Request) => Response | Promise<Response>): Record<string, Handler> {
  const redirect = (request: BunRequest<string>, to: string): Response => {
    const { search } = new URL(request.url, "http://hub.invalid");
    return new Response(null, { status: 301, headers: { ...headers, location: `${to}${search}`, "cache-control": "public, max-age=86400" } });
  };
  const daily = { ...headers, "cache-control": "public, max-age=86400" };
  return {
    "/platforms/:platform": {
      GET: (request) => {
        const platform = platformOf(request.params.platform ?? "");
        return platform ? redirect(request, boardPath(platform)) : notFound(request);
      },
    },
    "/platforms/:platform/regions/:region": {
      GET: (request) => {
        const platform = platformOf(request.params.platform ?? "");
        const region = (request.params.region ?? "").toLowerCase();
        return platform && REGION_ID_PATTERN.test(region) ? redirect(request, boardPath(platform, region)) : notFound(request);
      },
    },
    "/register": { GET: (request) => redirect(request, "/contribute") },
    // The hub's icon lives under /icons/ with its sizes (SPEC §19); /og.png is the share picture of the default platform.
    "/favicon.svg": { GET: (request) => redirect(request, "/icons/icon.svg") },
  };
}
