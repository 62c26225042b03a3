/**
 * The kernel's send queue of each TCP connection, from /proc/net/tcp and
 * /proc/net/tcp6 (Linux). Bun's writes to a stream only push back once the
 * kernel's send buffer is full (megabytes on loopback), so the bytes a client
 * has not taken are mostly here, not in the hub: the stream hub reads these
 * tables once per sweep to find clients that stopped reading.
 */
import { readFile } from "node:fs/promises";
import { endianness } from "node:os";
import { parseIp } from "../domain/net.ts";

/** A connection as the hub sees it: the peer's address and port, and the local port it reached. */
export interface ConnectionId {
  readonly remoteAddress: string;
  readonly remotePort: number;
  readonly localPort: number;
}

/** Bytes each connection has in the kernel's send queue, by connectionKey. */
export type SendQueues = ReadonlyMap<string, number>;

/** The remote address is 32 lower-case hex digits (IPv4 in its IPv4-mapped IPv6 form), so that either spelling of a peer matches. */
function key(localPort: number, remoteHex: string, remotePort: number): string {
  return `${localPort} ${remoteHex} ${remotePort}`;
}

const V4_MAPPED_PREFIX = "00000000000000000000ffff";

/** The key of a connection in a SendQueues map, or null when its address cannot be read (an IPv4 peer matches in either spelling). */
export function connectionKey(id: ConnectionId): string | null {
  const remote = parseIp(id.remoteAddress);
  return remote === null ? null : key(id.localPort, remote.toString(16).padStart(32, "0"), id.remotePort);
}

/**
 * An address of /proc/net/tcp{,6} (8 or 32 hex digits, each 32-bit word in
 * the machine's byte order, so 127.0.0.1 is 0100007F on a little-endian one)
 * as connectionKey spells it.
 */
function procAddress(hex: string, littleEndian: boolean): string {
  const lower = hex.toLowerCase();
  let out = "";
  for (let at = 0; at < lower.length; at += 8) {
    out += littleEndian ? lower.slice(at + 6, at + 8) + lower.slice(at + 4, at + 6) + lower.slice(at + 2, at + 4) + lower.slice(at, at + 2) : lower.slice(at, at + 8);
  }
  return lower.length === 8 ? V4_MAPPED_PREFIX + out : out;
}

/** A row: slot, local address:port, remote address:port, state, tx_queue:rx_queue (all hex but the slot). */
const ROW = /^ *\d+: ([0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}):([0-9A-Fa-f]{4}) ([0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}):([0-9A-Fa-f]{4}) [0-9A-Fa-f]{2} ([0-9A-Fa-f]{1,16}):[0-9A-Fa-f]{1,16}(?=\s|$)/gm;

/**
 * The send queue of every connection listed in the text of /proc/net/tcp or
 * /proc/net/tcp6: the `tx_queue` half of the `tx_queue:rx_queue` field (hex
 * bytes), by local port, remote address and remote port. Lines that do not
 * parse (the header among them) are skipped; when one key appears twice the
 * larger queue counts.
 */
export function parseProcNetTcp(text: string, littleEndian = endianness() === "LE"): Map<string, number> {
  const queues = new Map<string, number>();
  for (const [, , localPort, remote, remotePort, queued] of text.matchAll(ROW)) {
    if (localPort === undefined || remote === undefined || remotePort === undefined || queued === undefined) continue;
    const id = key(parseInt(localPort, 16), procAddress(remote, littleEndian), parseInt(remotePort, 16));
    const bytes = parseInt(queued, 16);
    queues.set(id, Math.max(bytes, queues.get(id) ?? 0));
  }
  return queues;
}

const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"];

/** Reads both tables; null when neither can be read (not Linux, or no /proc). */
export async function readSendQueues(tables: readonly string[] = TABLES): Promise<SendQueues | null> {
  const texts = await Promise.all(tables.map((path) => readFile(path, "latin1").catch(() => null)));
  if (texts.every((text) => text === null)) return null;
  const queues = new Map<string, number>();
  for (const text of texts) if (text !== null) for (const [id, bytes] of parseProcNetTcp(text)) queues.set(id, Math.max(bytes, queues.get(id) ?? 0));
  return queues;
}

/**
 * Whether a stream's socket is draining, judged from its kernel send queue at
 * each sweep: a queue that is empty, or smaller than at the sweep before,
 * drains; one that stays non-empty without shrinking for `stallMs` does not
 * (pings and pushes on top only make it grow). The queue alone is the
 * measure: what the runtime has taken may still sit in its own buffer, so
 * comparing it with what the hub wrote could show progress that is not.
 */
export class DrainWatch {
  /** Since when the queue has been non-empty without shrinking; null while it is empty. */
  private since: number | null = null;
  private last = 0;

  constructor(private readonly stallMs: number) {}

  /** Records one sweep's queue; true once it has not drained for stallMs. */
  observe(queued: number, now: number): boolean {
    if (queued === 0) {
      this.since = null;
      this.last = 0;
      return false;
    }
    if (this.since === null || queued < this.last) this.since = now;
    this.last = queued;
    return now - this.since >= this.stallMs;
  }
}
