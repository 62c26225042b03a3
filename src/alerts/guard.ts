/**
 * The private-address guard (SPEC §18). Whoever can configure a webhook can
 * make the hub send requests; without the guard, that is a way into the
 * hub's own network (its admin ports, a router, a cloud metadata service).
 * A target is checked when it is configured, as far as its text tells, and
 * again before every request on the address it resolves to, which is then
 * the address connected to.
 */
import { isPublicAddress, parseIp } from "../domain/net.ts";

/** Resolves a host name to every address it has. */
export type Resolve = (hostname: string) => Promise<readonly string[]>;

export const resolveWithBun: Resolve = async (hostname) => (await Bun.dns.lookup(hostname)).map((entry) => entry.address);

/** A target the guard does not let the hub reach. */
export class RefusedTarget extends Error {
  override readonly name = "RefusedTarget";
}

const ALLOW_PRIVATE_HINT = "set WEBHOOK_ALLOW_PRIVATE=true to allow targets on the hub's own network";

/** URL.hostname keeps an IPv6 literal's brackets. */
function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, "$1");
}

/** Names that always mean this machine (RFC 6761), whatever a resolver says. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * What the text of a URL alone says the hub must not connect to: port 0 (no
 * receiver listens there, and what a stack makes of it varies), a literal
 * address that is not public, in any spelling the URL parser accepts (mapped,
 * translated, NAT64, decimal), or a name of this machine. The one rule for
 * both saving and sending, so what is saved is what would be sent.
 */
function literalProblem(url: URL, allowPrivate: boolean): string | null {
  if (url.port === "0") return "uses port 0, which is no receiver's port";
  if (allowPrivate) return null;
  const address = parseIp(bare(url.hostname));
  if (address !== null && !isPublicAddress(address)) return `points at ${url.hostname}, which is not a public internet address; ${ALLOW_PRIVATE_HINT}`;
  if (isLocalhostName(url.hostname)) return `points at ${url.hostname}, which names this machine; ${ALLOW_PRIVATE_HINT}`;
  return null;
}

/**
 * Why a URL cannot be a webhook target, or null. Checks what the text alone
 * tells: the scheme, credentials, the port, and a host that is a non-public
 * literal address or localhost. Names are resolved only when sending, since
 * DNS answers change and may not be reachable when an admin saves.
 */
export function targetProblem(text: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password; put a token in the path or query instead";
  return literalProblem(url, allowPrivate);
}

/**
 * The address to connect to for a URL: its literal address, or the first
 * address its name resolves to. With the guard on, a name any of whose
 * addresses is not public is refused, so a name cannot slip a private
 * address in beside a public one.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, resolve: Resolve): Promise<string> {
  const problem = literalProblem(url, allowPrivate);
  if (problem !== null) throw new RefusedTarget(`refused: ${problem}`);
  const host = bare(url.hostname);
  if (parseIp(host) !== null) return host;
  let addresses: readonly string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw new RefusedTarget(`cannot resolve ${host}`);
  }
  const first = addresses[0];
  if (first === undefined) throw new RefusedTarget(`cannot resolve ${host}`);
  if (!allowPrivate) {
    for (const address of addresses) {
      const parsed = parseIp(address);
      if (parsed === null || !isPublicAddress(parsed)) throw new RefusedTarget(`refused ${host}: it resolves to ${address}, not a public internet address; ${ALLOW_PRIVATE_HINT}`);
    }
  }
  return first;
}
