/**
 * The Server-Sent Events fan-out. Every open stream of a platform receives
 * the very bytes the live store serialised for a change; a client that stops
 * reading is dropped once its socket has not drained for STREAM_STALL_MS
 * (60 s) or it has more than 1 MiB unsent, so it never delays others nor
 * holds its slot and memory.
 * Unsent bytes are the connection's kernel send queue (read from /proc once
 * per sweep for all streams) plus what the hub holds: Bun's writes only push
 * back once the kernel's buffer, megabytes on loopback, is full, so a client
 * that stops reading on a quiet platform would otherwise never be found.
 * Where the kernel's queue cannot be read (no /proc, a Unix socket), only the
 * runtime's back-pressure and the hub's own queue count.
 * Streams are capped in all and per client, so that one client cannot take
 * every slot.
 */
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import { ClientCounts } from "../http/client-ip.ts";
import { CapacityRefusal } from "../http/errors.ts";
import { HttpProblem } from "../domain/problem.ts";
import { connectionKey, DrainWatch, readSendQueues, type ConnectionId, type SendQueues } from "./send-queues.ts";
import type { LiveStore, Published } from "./store.ts";
import { clientKey } from "../auth/presence.ts";

export const PING_INTERVAL_MS = 15_000;
/** Bytes a client may leave unsent (in its connection's kernel send queue and held by the hub) before it is dropped. */
export const MAX_UNSENT_BYTES = 1024 * 1024;
/** How often stalled clients are looked for. */
const STALL_CHECK_MS = 1000;
const PING = new TextEncoder().encode(": ping\n\n");
const HELLO = new TextEncoder().encode(": connected\n\n");

export const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const joined = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

/**
 * One open stream, written straight to its socket (a direct stream, so that
 * Bun tells when the socket stops draining). While a write waits for the
 * socket, later messages wait here, in order, as references to the shared
 * frames; they count as unsent together with the waiting write.
 */
class StreamClient {
  private controller: ReadableStreamDirectController | null = null;
  private finish: (() => void) | null = null;
  private waiting: Uint8Array[] = [];
  private waitingBytes = 0;
  /** Bytes of the write the socket has not drained yet. */
  private blockedBytes = 0;
  /** When the socket stopped draining; null while it keeps up. */
  private stalledSince: number | null = null;
  private closed = false;
  /** Whether the kernel's send queue of the connection drains, while it can be read. */
  private readonly kernel: DrainWatch;
  readonly stream: ReadableStream<Uint8Array>;

  constructor(
    readonly viewer: string,
    /** The connection in the kernel's tables; null when it cannot be found there (a Unix socket, in-process). */
    readonly connection: string | null,
    first: Uint8Array,
    stallMs: number,
    private readonly now: () => number,
    private readonly onClose: (client: StreamClient, dropped: boolean) => void,
  ) {
    this.kernel = new DrainWatch(stallMs);
    this.waiting.push(first);
    this.waitingBytes = first.byteLength;
    const source: Bun.DirectUnderlyingSource<Uint8Array> = {
      type: "direct",
      pull: (controller: ReadableStreamDirectController) => {
        this.controller = controller;
        this.flushWaiting();
        // The response lasts until the stream is closed from here (or the client goes away).
        return new Promise<void>((resolve) => {
          if (this.closed) resolve();
          else this.finish = resolve;
        });
      },
      cancel: () => this.close(),
    };
    // The DOM typings the web app needs hide Bun's overload of the constructor for direct streams.
    this.stream = new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  }

  private get unsentBytes(): number {
    return this.blockedBytes + this.waitingBytes;
  }

  /** Sends bytes, or queues them while the socket is not draining; drops the client once too much waits. */
  send(bytes: Uint8Array): void {
    if (this.closed) return;
    if (this.controller === null || this.stalledSince !== null) {
      this.waiting.push(bytes);
      this.waitingBytes += bytes.byteLength;
      if (this.unsentBytes > MAX_UNSENT_BYTES) this.drop();
      return;
    }
    this.write(bytes);
  }

  private write(bytes: Uint8Array): void {
    const controller = this.controller;
    if (!controller) return;
    // A promise means the socket did not take it all: the rest waits for it to drain. (Read in-process, Bun returns nothing.)
    let pending: number | Promise<number> | undefined;
    try {
      const written = controller.write(bytes);
      pending = written instanceof Promise ? written : controller.flush();
    } catch {
      this.close();
      return;
    }
    if (!(pending instanceof Promise)) return;
    this.stalledSince = this.now();
    this.blockedBytes = bytes.byteLength;
    pending.then(
      () => this.drained(),
      () => this.close(),
    );
  }

  private drained(): void {
    this.stalledSince = null;
    this.blockedBytes = 0;
    if (!this.closed) this.flushWaiting();
  }

  private flushWaiting(): void {
    if (this.waiting.length === 0) return;
    const bytes = concat(this.waiting, this.waitingBytes);
    this.waiting = [];
    this.waitingBytes = 0;
    this.write(bytes);
  }

  /** True if the runtime has reported the socket not draining for longer than `stallMs`. */
  stalledFor(stallMs: number): boolean {
    return this.stalledSince !== null && this.now() - this.stalledSince >= stallMs;
  }

  /**
   * True if the connection's kernel send queue (`queued` bytes, from this sweep) together with what the hub holds is
   * over MAX_UNSENT_BYTES, or the queue has not drained for the stall time.
   */
  stalledInKernel(queued: number): boolean {
    const stalled = this.kernel.observe(queued, this.now());
    return stalled || queued + this.unsentBytes > MAX_UNSENT_BYTES;
  }

  /** Closes a client that stopped reading: what it has not taken is thrown away, and the connection ends. */
  drop(): void {
    this.end(new Error("the client stopped reading its stream"), true);
  }

  close(): void {
    this.end(undefined, false);
  }

  private end(error: Error | undefined, dropped: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.waiting = [];
    this.waitingBytes = 0;
    try {
      this.controller?.close(error);
    } catch {
      // the runtime has already ended it
    }
    this.controller = null;
    this.finish?.();
    this.finish = null;
    this.onClose(this, dropped);
  }
}

/** What a stream starts with: the current payload, unless the client already has this revision. */
export function firstBytes(current: Published, lastEventId: string | null): Uint8Array {
  return lastEventId !== null && lastEventId.trim() === String(current.revision) ? HELLO : current.frame;
}

/** Who asks for a stream, and what it may hold. */
export interface StreamRequest {
  readonly lastEventId: string | null;
  /** The client's address, for presence and for its share of streams. */
  readonly viewer: string;
  /** Streams one client may hold at once (MAX_STREAMS_PER_CLIENT). */
  readonly maxPerClient: number;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
  /** The stream's TCP connection, to find its kernel send queue; null when there is none (a Unix socket, in-process). */
  readonly connection: ConnectionId | null;
}

/** Reads the kernel's send queue of every connection; null when it cannot. */
export type SendQueueReader = () => Promise<SendQueues | null>;

export class StreamHub {
  private readonly clients = new Map<Platform, Set<StreamClient>>(PLATFORMS.map((p) => [p, new Set()]));
  private open = 0;
  private dropped = 0;
  private readonly perClient = new ClientCounts();
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private stallTimer: ReturnType<typeof setInterval> | null = null;
  /** Streams whose connection can be looked for in the kernel's tables. */
  private traced = 0;
  private sweeping = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly live: Pick<LiveStore, "onChange" | "current">,
    private readonly maxStreams: number,
    private readonly stallMs: number,
    private readonly now: () => number,
    private readonly sendQueues: SendQueueReader = readSendQueues,
  ) {
    this.unsubscribe = live.onChange((published) => this.broadcast(published));
  }

  get openCount(): number {
    return this.open;
  }

  /** Streams closed because their client stopped reading, since start. */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Client IPs of every open stream, for presence. */
  *viewers(): Iterable<string> {
    for (const set of this.clients.values()) for (const client of set) yield client.viewer;
  }

  /** Clients holding at least one open stream. */
  get clientCount(): number {
    return this.perClient.clients;
  }

  /** Opens a stream: the current payload first, unless the client already has this revision. */
  connect(platform: Platform, request: StreamRequest): Response {
    const { lastEventId, viewer, maxPerClient, signal, connection } = request;
    if (this.open >= this.maxStreams) {
      throw new CapacityRefusal(503, `The hub is serving its maximum of ${this.maxStreams} streams; try again shortly.`, viewer, `MAX_STREAMS (${this.maxStreams}) open streams`, {
        headers: { "retry-after": "5" },
      });
    }
    const key = clientKey(viewer);
    if (this.perClient.count(key) >= maxPerClient) {
      throw new CapacityRefusal(
        503,
        `This address already holds ${maxPerClient} open streams, the most one client may; close one and try again.`,
        viewer,
        `MAX_STREAMS_PER_CLIENT (${maxPerClient}) open streams from this client`,
        // Longer than for a full hub: a slot frees only when this client closes one of its own streams.
        { headers: { "retry-after": "30" } },
      );
    }
    const first = firstBytes(this.live.current(platform), lastEventId);
    const set = this.clients.get(platform);
    if (!set) throw new HttpProblem(404, `Unknown platform ${platform}.`);
    const client = new StreamClient(viewer, connection && connectionKey(connection), first, this.stallMs, this.now, (closed, dropped) => {
      if (!set.delete(closed)) return;
      this.open--;
      if (closed.connection !== null) this.traced--;
      this.perClient.remove(key);
      if (dropped) this.dropped++;
    });
    set.add(client);
    this.open++;
    if (client.connection !== null) this.traced++;
    this.perClient.add(key);
    if (signal.aborted) client.close();
    else signal.addEventListener("abort", () => client.close(), { once: true });
    return new Response(client.stream, { headers: STREAM_HEADERS });
  }

  /** Starts the keep-alive comments and the look-out for clients whose socket stopped draining. */
  start(): void {
    this.pingTimer ??= setInterval(() => this.ping(), PING_INTERVAL_MS);
    this.pingTimer.unref?.();
    this.stallTimer ??= setInterval(() => void this.sweep(), Math.min(STALL_CHECK_MS, this.stallMs));
    this.stallTimer.unref?.();
  }

  /** One look for stalled clients: the kernel's tables are read once (only while some stream can be found in them). */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      this.dropStalled(this.traced > 0 ? await this.sendQueues().catch(() => null) : null);
    } finally {
      this.sweeping = false;
    }
  }

  /**
   * Drops every client whose socket has not drained for the stall time or that has too much unsent: judged from the
   * kernel's send queue where its connection is in `queues`, else from the runtime's back-pressure alone.
   */
  dropStalled(queues: SendQueues | null): void {
    for (const set of this.clients.values()) {
      for (const client of [...set]) {
        const queued = queues && client.connection !== null ? queues.get(client.connection) : undefined;
        if (client.stalledFor(this.stallMs) || (queued !== undefined && client.stalledInKernel(queued))) client.drop();
      }
    }
  }

  ping(): void {
    for (const set of this.clients.values()) for (const client of set) client.send(PING);
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    if (this.stallTimer) clearInterval(this.stallTimer);
    this.stallTimer = null;
    for (const set of this.clients.values()) for (const client of [...set]) client.close();
  }

  dispose(): void {
    this.closeAll();
    this.unsubscribe();
  }

  private broadcast(published: Published): void {
    const set = this.clients.get(published.platform);
    if (!set || set.size === 0) return;
    for (const client of set) client.send(published.frame);
  }
}
