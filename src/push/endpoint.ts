/**
 * A push endpoint is an attacker's input: whoever subscribes chooses where
 * the hub will send requests. Only https on a known push service (or a host
 * the operator lists) is taken, and then the webhooks' address guard
 * applies: no private address, also after DNS resolution.
 */
import { RefusedTarget, resolveTarget, type Resolve } from "../alerts/guard.ts";
import { KNOWN_PUSH_HOSTS, MAX_ENDPOINT_LENGTH } from "./model.ts";

function knownHost(host: string, extra: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  for (const pattern of [...KNOWN_PUSH_HOSTS, ...extra]) {
    const wanted = pattern.toLowerCase();
    if (wanted.startsWith("*.") ? name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1 : name === wanted) return true;
  }
  return false;
}

/** Why an endpoint's text is not acceptable, naming the rule; null when it is. */
export function endpointProblem(text: string, extraHosts: readonly string[]): string | null {
  if (text.length > MAX_ENDPOINT_LENGTH) return `must be at most ${MAX_ENDPOINT_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute https URL";
  }
  if (url.protocol !== "https:") return "must be an https URL (RFC 8030)";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!knownHost(host, extraHosts)) {
    return `must be on a known push service (${KNOWN_PUSH_HOSTS.join(", ")}) or a host the operator lists in PUSH_SERVICE_HOSTS; ${host} is neither`;
  }
  return null;
}

/** The address guard on the endpoint's host, resolved now; the reason when it refuses, else null. */
export async function endpointAddressProblem(text: string, allowPrivate: boolean, resolve: Resolve): Promise<string | null> {
  try {
    await resolveTarget(new URL(text), allowPrivate, resolve);
    return null;
  } catch (error) {
    if (error instanceof RefusedTarget) return `is refused by the address guard: ${error.message}`;
    throw error;
  }
}
