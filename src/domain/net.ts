/**
 * IP addresses, CIDR ranges and the trusted-proxy rule that picks a client's
 * address out of `X-Forwarded-For`. Addresses are compared as 128-bit numbers;
 * IPv4 lives in the IPv4-mapped range (::ffff:0:0/96) so either spelling matches.
 */

const V4_MAPPED = 0xffffn << 32n;
const ALL_BITS = (1n << 128n) - 1n;

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  let body = text;
  let tail: bigint[] = [];
  if (body.includes(".")) {
    const lastColon = body.lastIndexOf(":");
    const v4 = parseV4(body.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [v4 >> 16n, v4 & 0xffffn];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const group = (s: string): bigint[] | null => {
    if (s === "") return [];
    const out: bigint[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(BigInt(parseInt(g, 16)));
    }
    return out;
  };
  const head = group(halves[0] ?? "");
  const rest = halves.length === 2 ? group(halves[1] ?? "") : [];
  if (!head || !rest) return null;
  const known = head.length + rest.length + tail.length;
  let groups: bigint[];
  if (halves.length === 2) {
    if (known > 7) return null;
    groups = [...head, ...Array<bigint>(8 - known).fill(0n), ...rest, ...tail];
  } else {
    if (known !== 8) return null;
    groups = [...head, ...tail];
  }
  return groups.reduce((acc, g) => (acc << 16n) | g, 0n);
}

/** Parses an IPv4 or IPv6 address (zone ids dropped) into a 128-bit number, or null. */
export function parseIp(text: string): bigint | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (trimmed.includes(":")) return parseV6(trimmed);
  const v4 = parseV4(trimmed);
  return v4 === null ? null : V4_MAPPED | v4;
}

export interface CidrRange {
  readonly base: bigint;
  readonly mask: bigint;
  readonly text: string;
}

export function parseCidr(text: string): CidrRange | null {
  const [address, prefixText, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined) return null;
  const base = parseIp(address);
  if (base === null) return null;
  const isV4 = !address.includes(":");
  const width = isV4 ? 32 : 128;
  let prefix = width;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    if (prefix > width) return null;
  }
  const bits = (isV4 ? 96 : 0) + prefix;
  const mask = bits === 0 ? 0n : (ALL_BITS << BigInt(128 - bits)) & ALL_BITS;
  return { base: base & mask, mask, text: text.trim() };
}

export function cidrContains(range: CidrRange, address: bigint): boolean {
  return (address & range.mask) === range.base;
}

/**
 * Addresses that are not on the public internet: unspecified, loopback,
 * private, carrier-grade NAT, link-local (cloud metadata lives there),
 * unique-local, multicast, documentation, benchmarking and reserved ranges,
 * and the IPv6 forms that carry or tunnel to any IPv4 address (compatible,
 * translated `::ffff:0:a.b.c.d`, 6to4, Teredo). A webhook
 * aimed at one could make the hub probe its own network for whoever can
 * configure webhooks.
 */
const NON_PUBLIC_RANGES: readonly CidrRange[] = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
  "::/96",
  "::ffff:0:0:0/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/32",
  "2001:db8::/32",
  "2002::/16",
  "3fff::/20",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
].map((text) => {
  const range = parseCidr(text);
  if (!range) throw new Error(`bad built-in range ${text}`);
  return range;
});

/** NAT64's well-known prefix reaches the IPv4 address in its last 32 bits, so that address decides. */
const NAT64 = parseCidr("64:ff9b::/96");

/** Whether an address (from parseIp) is on the public internet. */
export function isPublicAddress(address: bigint): boolean {
  if (NAT64 && cidrContains(NAT64, address)) return isPublicAddress(V4_MAPPED | (address & 0xffffffffn));
  return !NON_PUBLIC_RANGES.some((range) => cidrContains(range, address));
}

export type TrustedProxies =
  | { readonly kind: "none" }
  | { readonly kind: "all" }
  | { readonly kind: "hops"; readonly hops: number }
  | { readonly kind: "list"; readonly ranges: readonly CidrRange[] };

/**
 * The client's address: the socket peer, or, when that peer is a trusted
 * proxy, the right-most `X-Forwarded-For` entry that is not itself trusted.
 * With a hop count, that many proxies in front of the hub are trusted.
 */
export function resolveClientIp(socketAddress: string, forwardedFor: string | null, trust: TrustedProxies): string {
  if (trust.kind === "none" || !forwardedFor) return socketAddress;
  const chain = forwardedFor
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (chain.length === 0) return socketAddress;
  if (trust.kind === "all") return chain[0] ?? socketAddress;
  if (trust.kind === "hops") {
    const hops = [...chain, socketAddress];
    return hops[Math.max(0, hops.length - 1 - trust.hops)] ?? socketAddress;
  }
  const trusted = (address: string): boolean => {
    const ip = parseIp(address);
    return ip !== null && trust.ranges.some((r) => cidrContains(r, ip));
  };
  if (!trusted(socketAddress)) return socketAddress;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = chain[i] ?? "";
    if (!trusted(hop) || i === 0) return hop;
  }
  return socketAddress;
}

/** The path of the Unix socket a listen address names (`unix:/run/hub/hub.sock` or an absolute path), or null for an IP address or name. */
export function unixSocketPath(host: string): string | null {
  if (host.startsWith("unix:")) return host.slice("unix:".length);
  return host.startsWith("/") ? host : null;
}

export function parseTrustedProxies(text: string): TrustedProxies | null {
  const value = text.trim().toLowerCase();
  if (value === "false" || value === "") return { kind: "none" };
  if (value === "true") return { kind: "all" };
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 64) return null;
    return hops === 0 ? { kind: "none" } : { kind: "hops", hops };
  }
  const ranges: CidrRange[] = [];
  for (const part of value.split(",")) {
    const range = parseCidr(part);
    if (!range) return null;
    ranges.push(range);
  }
  return { kind: "list", ranges };
}
