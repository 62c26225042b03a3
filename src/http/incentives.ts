/**
 * GET …/incentives, the hub's hottest request: the published payload's bytes
 * with headers built once per payload. The same reply serves the Elysia route
 * and a Bun-native fast route that skips the framework for the plain public
 * case (no sign-in required, no cross-origin request); anything else goes
 * through the full app.
 */
import type { HubContext } from "../context.ts";
import { isPlatform, type Platform } from "../domain/catalogue.ts";
import type { Published } from "../live/store.ts";
import type { BunRequest, Server } from "bun";
import { clientIp } from "./client-ip.ts";
import { etagMatches, JSON_TYPE, readCacheControl } from "./schemas.ts";
import { SECURITY_HEADERS } from "./security.ts";

export const INCENTIVES_ROUTE = "/api/v1/platforms/:platform/incentives";

export class IncentivesReplies {
  /** Each published payload gets its response headers built once, for both cache modes (copying a Headers is cheap). */
  private readonly prepared = new WeakMap<Published, { open: Headers; gated: Headers }>();

  constructor(private readonly ctx: HubContext) {}

  private headersFor(published: Published, requireAuth: boolean): Headers {
    let pair = this.prepared.get(published);
    if (!pair) {
      const base = { ...SECURITY_HEADERS, "content-type": JSON_TYPE, etag: published.etag };
      pair = { open: new Headers({ ...base, "cache-control": readCacheControl(false, 15) }), gated: new Headers({ ...base, "cache-control": readCacheControl(true, 15) }) };
      this.prepared.set(published, pair);
    }
    return requireAuth ? pair.gated : pair.open;
  }

  reply(platform: Platform, request: Request): Response {
    const published = this.ctx.live.current(platform);
    const headers = this.headersFor(published, this.ctx.settings.get().requireAuth);
    if (etagMatches(request.headers.get("if-none-match"), published.etag)) return new Response(null, { status: 304, headers });
    return new Response(published.json, { headers });
  }
}

/** Copies made by forElysia, each with the request Bun received. */
const received = new WeakMap<Request, Request>();

/**
 * Elysia finds a request's path by searching for a slash from character 11
 * of the URL, which lands inside the path when the host is shorter than four
 * characters (http://x/ab/api/… would be routed as /api/…), and Bun gives a
 * request whose Host is not a valid name a URL that is only the path. Such a
 * request reaches the app as a copy at its real path under a placeholder
 * host; any other is passed on as it is, at the cost of two searches.
 */
export function forElysia(request: Request): Request {
  const url = request.url;
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1 || start >= 11) return request;
  const copy = new Request(`http://hub.invalid${url.slice(start)}`, request);
  received.set(copy, request);
  return copy;
}

/**
 * The request as Bun received it. A copy made by forElysia has no socket of
 * its own, so its client address must be asked of the original, or every
 * such read would count as one anonymous viewer beside the real one.
 */
export function receivedRequest(request: Request): Request {
  return received.get(request) ?? request;
}

type BunRouteHandler = (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response>;

/**
 * The Bun-native route: answers the plain public case itself (presence and
 * request metrics included) and hands everything else to the full app.
 */
export function incentivesFastRoute(
  ctx: HubContext,
  replies: IncentivesReplies,
  fallback: (request: Request) => Response | Promise<Response>,
): { GET: BunRouteHandler } {
  const { config, settings, accounts, metrics } = ctx;
  const plain = (request: Request): boolean =>
    !settings.get().requireAuth && (config.corsOrigins.kind === "none" || !request.headers.has("origin")) && !ctx.log.enabled("debug");
  return {
    GET(request, server) {
      const platform = request.params.platform ?? "";
      if (!isPlatform(platform) || !plain(request)) return fallback(forElysia(request));
      if (accounts.presence.wants()) accounts.presence.seen(clientIp(request, config.trustedProxies, server));
      const response = replies.reply(platform, request);
      metrics.count("GET", INCENTIVES_ROUTE, response.status);
      if (config.origin.startsWith("https:")) response.headers.set("strict-transport-security", "max-age=31536000; includeSubDomains");
      return response;
    },
  };
}
