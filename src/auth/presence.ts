/** Who is looking: unique client IPs with an open stream or a read within the last 45 seconds. */
import { parseIp } from "../domain/net.ts";

export const PRESENCE_WINDOW_MS = 45_000;
const MAX_TRACKED = 100_000;
/** A viewer already seen this recently is not re-recorded: a second is far finer than the 45 s window. */
const REFRESH_MS = 1000;
/**
 * Finding a read's client address costs a system call, which would otherwise
 * be the single largest cost of the hottest route. Reads are looked up until
 * this many fall in the same millisecond; only beyond that rate (10,000 reads
 * a second) are further reads of that millisecond left out, and a viewer
 * polling within the 45 s window is still seen on one of its reads.
 */
export const LOOKUPS_PER_MS = 10;

/**
 * One spelling per viewer, so that a client seen on a dual-stack socket
 * (::ffff:a.b.c.d) and through a proxy's X-Forwarded-For (a.b.c.d) counts
 * once; hex digits may come in either case.
 */
export function viewerKey(ip: string): string {
  const lower = ip.toLowerCase();
  return lower.startsWith("::ffff:") && lower.includes(".") ? lower.slice(7) : lower;
}

export class Presence {
  private readonly lastRead = new Map<string, number>();
  private bucket = -1;
  private lookups = 0;

  constructor(private readonly now: () => number) {}

  /** Whether this read should be looked up and recorded. */
  wants(): boolean {
    const bucket = Math.floor(performance.now());
    if (bucket !== this.bucket) {
      this.bucket = bucket;
      this.lookups = 0;
    }
    return this.lookups++ < LOOKUPS_PER_MS;
  }

  seen(ip: string): void {
    const viewer = viewerKey(ip);
    const now = this.now();
    const last = this.lastRead.get(viewer);
    if (last !== undefined && now - last < REFRESH_MS) return;
    if (this.lastRead.size >= MAX_TRACKED) this.prune();
    this.lastRead.delete(viewer);
    this.lastRead.set(viewer, now);
  }

  online(streamViewers: Iterable<string>): number {
    this.prune();
    const viewers = new Set(this.lastRead.keys());
    for (const ip of streamViewers) viewers.add(viewerKey(ip));
    return viewers.size;
  }

  /** Entries are kept in last-seen order, so expired ones are at the front. */
  private prune(): void {
    const cutoff = this.now() - PRESENCE_WINDOW_MS;
    for (const [ip, at] of this.lastRead) {
      if (at > cutoff) break;
      this.lastRead.delete(ip);
    }
  }
}

/**
 * Whom a per-client limit counts an address against: an IPv4 address in
 * either spelling (::ffff:a.b.c.d is a.b.c.d), and an IPv6 address by its
 * /64, because one subscriber is handed a whole /64 and could otherwise take
 * a fresh address for every connection.
 */
export function clientKey(ip: string): string {
  const address = viewerKey(ip);
  if (!address.includes(":")) return address;
  const value = parseIp(address);
  if (value === null) return address;
  const prefix = [48n, 32n, 16n, 0n].map((shift) => ((value >> (64n + shift)) & 0xffffn).toString(16));
  return `${prefix.join(":")}::/64`;
}
