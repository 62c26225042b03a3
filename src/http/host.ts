/**
 * The DNS-rebinding guard (SPEC §10.1): a page on another site can point its
 * own name at the hub's address, and the visitor's browser then sends it
 * requests with that name in Host and without the hub's cookies. Such a page
 * could claim a hub that still needs setup, or try passwords from inside the
 * network, so a state-changing request is taken only at the hub's own name.
 */
import { Elysia } from "elysia";
import type { Config } from "../config/load.ts";
import { HttpProblem } from "../domain/problem.ts";

/** Methods that only read; everything else changes state. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/**
 * Agents post from wherever they run, often by the hub's LAN address, and
 * every agent route refuses a request without a valid agent token before it
 * reads a byte; a rebinding page has no such token (tokens never live in
 * cookies), so the check would only break agents.
 */
const AGENT_PREFIX = "/api/v1/agent/";
const LOOPBACK_NAMES = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])\.?$/;

/** Whether a request with this method and path must be addressed to one of the hub's names. */
export function hostChecked(method: string, path: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase()) && !path.startsWith(AGENT_PREFIX);
}

/** The host name a request was addressed to, lower case, without its port; "" when it had none. */
function requestHostName(request: Request): string {
  const host = (request.headers.get("host") ?? hostOfUrl(request.url)).trim().toLowerCase();
  const name = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

function hostOfUrl(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** Which host names take changes: the origin's, ALLOWED_HOSTS, and the loopback names while the origin is one. */
function hostNameAllowed(config: Pick<Config, "origin" | "allowedHosts">): (name: string) => boolean {
  const own = new URL(config.origin).hostname;
  const allowed = new Set([own, ...config.allowedHosts]);
  const loopback = LOOPBACK_NAMES.test(own);
  return (name) => allowed.has(name) || (loopback && LOOPBACK_NAMES.test(name));
}

export function hostCheck(config: Pick<Config, "origin" | "allowedHosts">, finish: (response: Response, request: Request, route: string | undefined) => Response) {
  const allowed = hostNameAllowed(config);
  const own = new URL(config.origin).host;
  return new Elysia({ name: "hub/host-check" }).onRequest(({ request }) => {
    if (SAFE_METHODS.has(request.method)) return undefined;
    const name = requestHostName(request);
    if (allowed(name) || !hostChecked(request.method, new URL(request.url, "http://hub.invalid").pathname)) return undefined;
    const shown = name.length > 100 ? `${name.slice(0, 100)}…` : name;
    const refusal = new HttpProblem(
      421,
      `This hub takes changes only at ${own}, not at "${shown}". Use the hub's own address, or have its operator add this name to ALLOWED_HOSTS.`,
    );
    return finish(refusal.toResponse(), request, undefined);
  });
}
