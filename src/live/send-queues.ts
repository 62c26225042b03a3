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

const V4_MAPPED = 0xffffn << 32n;

function key(localPort: number, remote: bigint, remotePort: number): string {
  return `${localPort} ${remote.toString(16)} ${remotePort}`;
}

/** The key of a connection in a SendQueues map, or null when its address cannot be read (an IPv4 peer matches in either spelling). */
export function connectionKey(id: ConnectionId): string | null {
  const remote = parseIp(id.remoteAddress);
  return remote === null ? null : key(id.localPort, remote, id.remotePort);
}

/**
 * An address of /proc/net/tcp{,6}: 8 or 32 hex digits, each 32-bit word in
 * the machine's byte order (so 127.0.0.1 is 0100007F on a little-endian one).
 */
function procAddress(hex: string, littleEndian: boolean): bigint | null {
  if (!/^(?:[0-9A-Fa-f]{8}|[0-9A-Fa-f]{32})$/.test(hex)) return null;
  let value = 0n;
  for (let at = 0; at < hex.length; at += 8) {
    const word = hex.slice(at, at + 8);
    const bytes = littleEndian ? (word.match(/../g) ?? []).reverse().join("") : word;
    value = (value << 32n) | BigInt(`0x${bytes}`);
  }
  return hex.length === 8 ? V4_MAPPED | value : value;
}

function procEndpoint(text: string, littleEndian: boolean): { address: bigint; port: number } | null {
  const [hex, portHex, extra] = text.split(":");
  if (hex === undefined || portHex === undefined || extra !== undefined || !/^[0-9A-Fa-f]{4}$/.test(portHex)) return null;
  const address = procAddress(hex, littleEndian);
  return address === null ? null : { address, port: parseInt(portHex, 16) };
}

/**
 * The send queue of every connection listed in the text of /proc/net/tcp or
 * /proc/net/tcp6: the `tx_queue` half of the `tx_queue:rx_queue` field (hex
 * bytes), by local port, remote address and remote port. Lines that do not
 * parse (the header among them) are skipped; when one key appears twice the
 * larger queue counts.
 */
export function parseProcNetTcp(text: string, littleEndian = endianness() === "LE"): Map<string, number> {
  const queues = new Map<string, number>();
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    // sl, local_address, rem_address, st, tx_queue:rx_queue, …
    const [slot, localText, remoteText, , queueText] = fields;
    if (!slot?.endsWith(":") || localText === undefined || remoteText === undefined || queueText === undefined) continue;
    const local = procEndpoint(localText, littleEndian);
    const remote = procEndpoint(remoteText, littleEndian);
    const queue = /^([0-9A-Fa-f]{1,16}):[0-9A-Fa-f]{1,16}$/.exec(queueText);
    if (!local || !remote || !queue?.[1]) continue;
    const id = key(local.port, remote.address, remote.port);
    const bytes = parseInt(queue[1], 16);
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
 * drains; one that stays non-empty without shrinking for `stallMs` does not.
 */
export class DrainWatch {
  /** When the queue was last seen empty or shrinking while it stays non-empty; null while it is empty. */
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
