/**
 * The client's address for throttling, presence, per-client limits and the
 * logs, looked up only when a route needs it: from the server that holds the
 * request's socket (Elysia's `server`), or from an address recorded for the
 * request (in-process tests). X-Forwarded-For is believed only across the
 * proxies TRUSTED_PROXIES trusts.
 */
import { resolveClientIp, type TrustedProxies } from "../domain/net.ts";

/** A fixed address, or the server that can tell a request's peer. */
export type SocketSource = string | { requestIP(request: Request): { address: string } | null };

const sockets = new WeakMap<Request, SocketSource>();

/** Requests handled in-process (tests) have no socket; they count as this address. */
export const NO_SOCKET_ADDRESS = "0.0.0.0";
/** A peer on the hub's Unix socket has no address; it is a process on this machine, so it counts as this one. */
export const UNIX_SOCKET_PEER = "127.0.0.1";

export function rememberSocketAddress(request: Request, source: SocketSource): void {
  sockets.set(request, source);
}

export function clientIp(request: Request, trust: TrustedProxies, server: SocketSource | null): string {
  const source = sockets.get(request) ?? server;
  const socket = typeof source === "string" ? source : (source?.requestIP(request)?.address ?? NO_SOCKET_ADDRESS);
  return trust.kind === "none" ? socket : resolveClientIp(socket, request.headers.get("x-forwarded-for"), trust);
}

/** How many of something (open streams, requests in progress) each client holds right now. */
export class ClientCounts {
  private readonly held = new Map<string, number>();

  count(client: string): number {
    return this.held.get(client) ?? 0;
  }

  add(client: string): void {
    this.held.set(client, this.count(client) + 1);
  }

  /** An emptied client is forgotten, so the map only ever holds clients with something open. */
  remove(client: string): void {
    const count = this.count(client);
    if (count <= 1) this.held.delete(client);
    else this.held.set(client, count - 1);
  }

  /** Clients holding anything. */
  get clients(): number {
    return this.held.size;
  }
}

const releases = new WeakMap<Request, () => void>();

/**
 * Gives back what a request holds (its in-flight slot) once its answer is
 * ready. Every answer leaves through the response finisher, which calls
 * `answered`; a request is released at most once.
 */
export function releaseWhenAnswered(request: Request, release: () => void): void {
  releases.set(request, release);
}

export function answered(request: Request): void {
  const release = releases.get(request);
  if (!release) return;
  releases.delete(request);
  release();
}
