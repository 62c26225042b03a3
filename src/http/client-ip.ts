/**
 * The client's address for throttling and presence, looked up only when a
 * route needs it: from the server that holds the request's socket (Elysia's
 * `server`), or from an address recorded for the request (in-process tests).
 * X-Forwarded-For is believed only across the proxies TRUSTED_PROXIES trusts.
 */
import { resolveClientIp, type TrustedProxies } from "../domain/net.ts";

/** A fixed address, or the server that can tell a request's peer. */
export type SocketSource = string | { requestIP(request: Request): { address: string } | null };

const sockets = new WeakMap<Request, SocketSource>();

/** Requests handled in-process (tests) have no socket; they count as this address. */
export const NO_SOCKET_ADDRESS = "0.0.0.0";

export function rememberSocketAddress(request: Request, source: SocketSource): void {
  sockets.set(request, source);
}

export function clientIp(request: Request, trust: TrustedProxies, server: SocketSource | null): string {
  const source = server ?? sockets.get(request);
  const socket = typeof source === "string" ? source : (source?.requestIP(request)?.address ?? NO_SOCKET_ADDRESS);
  return trust.kind === "none" ? socket : resolveClientIp(socket, request.headers.get("x-forwarded-for"), trust);
}
