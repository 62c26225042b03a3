/**
 * Serves the app with Bun.serve: every request the Bun-native routes (the hot
 * path, the web app's files) do not answer goes through one handler that
 * first puts it at its real path, so routing and logs never depend on the
 * Host header; caps the requests each client may have in progress; shuts it
 * down gracefully.
 */
import { chmodSync, lstatSync, rmSync } from "node:fs";
import type { BunRequest, Server } from "bun";
import type { HubApp } from "./app.ts";
import type { HubContext } from "./context.ts";
import { unixSocketPath } from "./domain/net.ts";
import { ClientCounts, clientIp, NO_SOCKET_ADDRESS, rememberSocketAddress, releaseWhenAnswered, UNIX_SOCKET_PEER, type SocketSource } from "./http/client-ip.ts";
import { clientKey, viewerKey } from "./auth/presence.ts";
import { CapacityRefusal, RefusalLog } from "./http/errors.ts";
import { forElysia, receivedRequest } from "./http/incentives.ts";
import { HttpProblem } from "./domain/problem.ts";
import { securityHeaders } from "./http/security.ts";

/** How long in-flight requests get to finish once shutdown begins. */
export const SHUTDOWN_GRACE_MS = 5000;

export type NativeRoutes = Record<string, { GET: (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response> }>;

/** Requests in progress per client, up to a cap. */
class InFlight {
  private readonly counts = new ClientCounts();
  /** Clients at the cap; while there are none, the hot path need not ask who is calling. */
  private full = 0;

  constructor(readonly limit: number) {}

  get anyFull(): boolean {
    return this.full > 0;
  }

  isFull(client: string): boolean {
    return this.counts.count(client) >= this.limit;
  }

  /** Takes a slot for the client, unless it already holds them all. */
  take(client: string): boolean {
    const held = this.counts.count(client);
    if (held >= this.limit) return false;
    this.counts.add(client);
    if (held + 1 === this.limit) this.full++;
    return true;
  }

  give(client: string): void {
    if (this.counts.count(client) === this.limit) this.full--;
    this.counts.remove(client);
  }
}

/**
 * Admission of a listening hub's requests. Every request the app handles
 * holds a slot from its arrival until its answer is ready (a stream's answer
 * is ready once it opens, so streams have only their own cap); beyond
 * MAX_REQUESTS_PER_CLIENT a client gets 503, so that one client cannot tie up
 * the hub with slow bodies or expensive requests while others wait. In-process
 * calls (app.handle, tests) have no socket and are not capped.
 */
class Admission {
  private readonly inFlight: InFlight;
  private readonly refusals: RefusalLog;

  constructor(private readonly ctx: HubContext) {
    this.inFlight = new InFlight(ctx.config.maxRequestsPerClient);
    this.refusals = new RefusalLog(ctx.log, ctx.now);
  }

  /**
   * Bun makes a request's URL from its Host header; a Host that makes no URL
   * (`abcd%`, `[::1`, a port over 65535) leaves one that no code can read, so
   * such a request is answered here, before anything looks: a 400 problem
   * with the security headers, logged as every request is. (An empty or
   * short Host gives a relative URL, which forElysia puts right.)
   */
  unroutable(request: Request, server: SocketSource | null): Response | null {
    const { url } = request;
    if (url.startsWith("/") || URL.canParse(url)) return null;
    const response = new HttpProblem(400, "The Host header does not name a host (and port) that makes a valid URL.").toResponse();
    for (const [name, value] of securityHeaders(this.ctx.config.origin.startsWith("https:"))) response.headers.set(name, value);
    const { log } = this.ctx;
    if (log.enabled("debug")) {
      const start = url.indexOf("/", url.indexOf("//") + 2);
      const path = start < 0 ? "/" : url.slice(start).split("?")[0];
      log.debug("request", { method: request.method, path, status: 400, ms: 0, ip: viewerKey(this.addressOf(request, server)) });
    }
    this.ctx.metrics.count(request.method, "unmatched", 400);
    return response;
  }

  /** For each request the app handles: takes a slot until the answer is ready, or answers the refusal. */
  admit(request: Request, server: SocketSource | null): Response | undefined {
    const ip = this.addressOf(request, server);
    const client = clientKey(ip);
    if (!this.inFlight.take(client)) return this.refuse(request, ip);
    releaseWhenAnswered(request, () => this.inFlight.give(client));
    return undefined;
  }

  /**
   * The Bun-native routes answer synchronously, so they never hold a slot
   * while another request could look; they are refused only while their
   * client is at the cap, and looking up the client costs nothing until some
   * client is.
   */
  guard(routes: NativeRoutes): NativeRoutes {
    return Object.fromEntries(
      Object.entries(routes).map(([path, route]) => [
        path,
        {
          GET: (request: BunRequest<string>, server: Server<unknown>) => {
            const unroutable = this.unroutable(request, server);
            if (unroutable) return unroutable;
            if (this.inFlight.anyFull) {
              const ip = this.addressOf(request, server);
              if (this.inFlight.isFull(clientKey(ip))) return this.refuse(request, ip);
            }
            return route.GET(request, server);
          },
        },
      ]),
    );
  }

  private addressOf(request: Request, server: SocketSource | null): string {
    return clientIp(receivedRequest(request), this.ctx.config.trustedProxies, server);
  }

  private refuse(request: Request, ip: string): Response {
    const { limit } = this.inFlight;
    const refusal = new CapacityRefusal(
      503,
      `This address already has ${limit} requests in progress, the most one client may; wait for them to finish and try again.`,
      ip,
      `MAX_REQUESTS_PER_CLIENT (${limit}) requests in progress from this client`,
      // Closing sheds one of the many connections such a client holds.
      { headers: { "retry-after": "5", connection: "close" } },
    );
    this.refusals.note(refusal, { method: request.method, path: new URL(request.url, "http://hub.invalid").pathname });
    this.ctx.metrics.count(request.method, "unmatched", refusal.status);
    const response = refusal.toResponse();
    for (const [name, value] of securityHeaders(this.ctx.config.origin.startsWith("https:"))) response.headers.set(name, value);
    return response;
  }
}

/**
 * The mode of the hub's Unix socket: its user and group may connect, nobody
 * else. 0660 rather than 0600 so that a reverse proxy running as another user
 * can be let in by giving it the hub's group, without opening the socket to
 * every local user (which is what listening on 127.0.0.1 does).
 */
const UNIX_SOCKET_MODE = 0o660;

/** Seconds a connection may stay silent; above the streams' ping interval, so an idle stream stays open. */
const IDLE_TIMEOUT_S = 60;

/** Where Bun.serve listens: an address and port, or a Unix socket (a leftover socket at that path is replaced). */
function listenOn(host: string, port: number): { hostname: string; port: number; reusePort: false; idleTimeout: number } | { unix: string } {
  const path = unixSocketPath(host);
  if (path === null) return { hostname: host, port, reusePort: false, idleTimeout: IDLE_TIMEOUT_S };
  let leftover = false;
  try {
    leftover = lstatSync(path).isSocket();
  } catch {
    // Nothing there yet.
  }
  if (leftover) rmSync(path);
  return { unix: path };
}

/** Native routes that record, for each request, that its peer is on the Unix socket. */
function fromUnixSocket(routes: NativeRoutes): NativeRoutes {
  return Object.fromEntries(
    Object.entries(routes).map(([path, route]) => [
      path,
      {
        GET: (request: BunRequest<string>, server: Server<unknown>) => {
          rememberSocketAddress(request, UNIX_SOCKET_PEER);
          return route.GET(request, server);
        },
      },
    ]),
  );
}

export function listen(ctx: HubContext, app: HubApp, routes: NativeRoutes): Server<unknown> {
  const admission = new Admission(ctx);
  const address = listenOn(ctx.config.host, ctx.config.port);
  const unix = "unix" in address;
  // The last of the app's request hooks, so that a request refused by an earlier one never takes a slot.
  app.onRequest(({ request, server }) => admission.admit(request, server));
  // Not Elysia's listen: it would also register each app route with Bun, whose handler then finds the
  // request's path from the URL by itself, wrongly for a short Host.
  const handle = app.fetch;
  const atRealPath = (request: Request, server: Server<unknown>): Request => {
    const real = forElysia(request);
    if (unix) {
      rememberSocketAddress(request, UNIX_SOCKET_PEER);
      rememberSocketAddress(real, UNIX_SOCKET_PEER);
      // Bun takes idleTimeout only for TCP listeners, so a socket's requests get it one by one.
      server.timeout(request, IDLE_TIMEOUT_S);
    } else if (real !== request) {
      // A copy has no socket of its own: without this every request with a short Host would count as one
      // anonymous client, outside the caps of the address that really sent it.
      rememberSocketAddress(real, server.requestIP(request)?.address ?? NO_SOCKET_ADDRESS);
    }
    return real;
  };
  // The socket is made with the umask's mode; set so that it never exists with more than UNIX_SOCKET_MODE.
  const umask = unix ? process.umask(0o777 & ~UNIX_SOCKET_MODE) : null;
  let server: Server<unknown>;
  try {
    server = Bun.serve({
      ...address,
      development: false,
      // Bun's own refusal of a larger body is an empty 413 without the hub's headers, so Bun gets no limit of
      // its own: the app refuses a declared length over MAX_BODY_BYTES before reading a byte, and stops reading
      // any other body at that limit, answering with a problem detail. Bun discards what still arrives; nothing
      // is gathered.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      routes: unix ? fromUnixSocket(admission.guard(routes)) : admission.guard(routes),
      fetch: (request, server) => admission.unroutable(request, server) ?? handle(atRealPath(request, server)),
      // What no handler caught: one JSON line in the log and a problem detail, instead of Bun's stack trace and page.
      error: (error) => {
        ctx.log.error("request failed outside the app", { error: error.message });
        const response = new HttpProblem(500, "The hub could not complete this request; the error has been logged.").toResponse();
        for (const [name, value] of securityHeaders(ctx.config.origin.startsWith("https:"))) response.headers.set(name, value);
        return response;
      },
    });
  } finally {
    if (umask !== null) process.umask(umask);
  }
  if ("unix" in address) chmodSync(address.unix, UNIX_SOCKET_MODE);
  app.server = server;
  return server;
}

/** Stops accepting, lets in-flight requests finish (at most the grace period), then closes what remains. */
export async function drain(server: Server<unknown>): Promise<void> {
  const graceful = server.stop(false);
  const timedOut = Symbol("timeout");
  const outcome = await Promise.race([graceful.then(() => null), Bun.sleep(SHUTDOWN_GRACE_MS).then(() => timedOut)]);
  if (outcome === timedOut) await server.stop(true);
}
