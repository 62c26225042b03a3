/**
 * GET …/incentives, the hub's hottest request: the published payload's bytes
 * with headers built once per payload. The same reply serves the Elysia route
 * and a Bun-native fast route that skips the framework for the plain public
 * case (no sign-in required, no cross-origin request); anything else goes
 * through the full app.
 */
import type { BunRequest, Server } from "bun";
import type { Accounts } from "../auth/accounts.ts";
import type { Config } from "../config/load.ts";
import { isPlatform, type Platform } from "../domain/catalogue.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { RuntimeSettings } from "../settings.ts";
import { clientIp } from "./client-ip.ts";
import { acceptedEncoding, compress, MIN_COMPRESS_BYTES, type Encoding } from "./compress.ts";
import { etagMatches, JSON_TYPE, readCacheControl } from "./schemas.ts";
import { SECURITY_HEADERS } from "./security.ts";

export const INCENTIVES_ROUTE = "/api/v1/platforms/:platform/incentives";

type Variant = "identity" | Encoding;

/** A platform's payload as the live store last published it (src/live/store.ts): one object per revision. */
interface PublishedPayload {
  readonly json: string;
  readonly etag: string;
}

/** What the replies read of the hub: each platform's published payload, and whether reads need a sign-in. */
interface IncentivesSource {
  readonly live: { current(platform: Platform): PublishedPayload };
  readonly settings: RuntimeSettings;
}

/** What the fast route reads of the hub besides the replies. */
interface FastRouteDeps {
  readonly config: Config;
  readonly settings: RuntimeSettings;
  readonly accounts: Accounts;
  readonly metrics: Metrics;
  readonly log: Logger;
}

/** What one published payload is answered with: its body in each encoding and the headers for each (body, cache mode). */
class PreparedReply {
  private readonly bodies = new Map<Variant, Uint8Array<ArrayBuffer>>();
  private readonly headers = new Map<string, Headers>();
  readonly compressible: boolean;

  constructor(private readonly published: PublishedPayload) {
    const identity = new TextEncoder().encode(published.json);
    this.bodies.set("identity", identity);
    this.compressible = identity.byteLength > MIN_COMPRESS_BYTES;
  }

  /** Compressed on first demand and kept with the payload: once per revision, never per request. */
  body(variant: Variant): Uint8Array<ArrayBuffer> {
    let bytes = this.bodies.get(variant);
    if (!bytes) {
      bytes = compress(this.body("identity"), variant === "identity" ? "gzip" : variant);
      this.bodies.set(variant, bytes);
    }
    return bytes;
  }

  headersFor(variant: Variant, requireAuth: boolean): Headers {
    const key = `${variant}:${requireAuth}`;
    let headers = this.headers.get(key);
    if (!headers) {
      headers = new Headers({ ...SECURITY_HEADERS, "content-type": JSON_TYPE, etag: this.published.etag, vary: "Accept-Encoding", "cache-control": readCacheControl(requireAuth, 15) });
      if (variant !== "identity") headers.set("content-encoding", variant);
      this.headers.set(key, headers);
    }
    return headers;
  }
}

export class IncentivesReplies {
  /** Each published payload gets its bodies and headers built once (copying a Headers is cheap). */
  private readonly prepared = new WeakMap<PublishedPayload, PreparedReply>();

  constructor(private readonly ctx: IncentivesSource) {}

  reply(platform: Platform, request: Request): Response {
    const published = this.ctx.live.current(platform);
    let prepared = this.prepared.get(published);
    if (!prepared) {
      prepared = new PreparedReply(published);
      this.prepared.set(published, prepared);
    }
    const requireAuth = this.ctx.settings.get().requireAuth;
    if (etagMatches(request.headers.get("if-none-match"), published.etag)) return new Response(null, { status: 304, headers: prepared.headersFor("identity", requireAuth) });
    const variant: Variant = (prepared.compressible ? acceptedEncoding(request.headers.get("accept-encoding")) : null) ?? "identity";
    return new Response(prepared.body(variant), { headers: prepared.headersFor(variant, requireAuth) });
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
  ctx: FastRouteDeps,
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
