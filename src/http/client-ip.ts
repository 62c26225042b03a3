/**
 * The client's address for throttling and presence. The server records each
 * request's socket peer here; X-Forwarded-For is believed only across the
 * proxies TRUSTED_PROXIES trusts.
 */
import { resolveClientIp, type TrustedProxies } from "../domain/net.ts";

const socketAddresses = new WeakMap<Request, string>();
const resolved = new WeakMap<Request, string>();

/** Requests handled in-process (tests) have no socket; they count as this address. */
export const NO_SOCKET_ADDRESS = "0.0.0.0";

export function rememberSocketAddress(request: Request, address: string): void {
  socketAddresses.set(request, address);
}

export function clientIp(request: Request, trust: TrustedProxies): string {
  const known = resolved.get(request);
  if (known !== undefined) return known;
  const socket = socketAddresses.get(request) ?? NO_SOCKET_ADDRESS;
  const ip = resolveClientIp(socket, request.headers.get("x-forwarded-for"), trust);
  resolved.set(request, ip);
  return ip;
}
