/**
 * The Server-Sent Events fan-out. Every open stream of a platform receives
 * the very bytes the live store serialised for a change; a client that stops
 * reading is dropped once its buffer stays full, so it never delays others.
 * Streams are capped in all and per client, so that one client cannot take
 * every slot.
 */
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import { ClientCounts, clientKey } from "../http/client-ip.ts";
import { CapacityRefusal } from "../http/errors.ts";
import { HttpProblem } from "../http/problem.ts";
import type { LiveStore, Published } from "./store.ts";

export const PING_INTERVAL_MS = 15_000;
/** Bytes a client may fall behind before it is dropped. */
export const MAX_BUFFERED_BYTES = 256 * 1024;
const PING = new TextEncoder().encode(": ping\n\n");
const HELLO = new TextEncoder().encode(": connected\n\n");

export const STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
} as const;

class StreamClient {
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  closed = false;
  readonly stream: ReadableStream<Uint8Array>;

  constructor(
    readonly viewer: string,
    first: Uint8Array,
    private readonly onClose: (client: StreamClient) => void,
  ) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
          controller.enqueue(first);
        },
        cancel: () => this.close(),
      },
      { highWaterMark: 64 * 1024, size: (chunk) => chunk?.byteLength ?? 0 },
    );
  }

  /** Queues bytes; drops the client when it has fallen too far behind. */
  send(bytes: Uint8Array): void {
    const controller = this.controller;
    if (this.closed || !controller) return;
    if ((controller.desiredSize ?? 0) < -MAX_BUFFERED_BYTES) {
      this.close();
      return;
    }
    try {
      controller.enqueue(bytes);
    } catch {
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.controller?.close();
    } catch {
      // already closed by the runtime
    }
    this.controller = null;
    this.onClose(this);
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
}

export class StreamHub {
  private readonly clients = new Map<Platform, Set<StreamClient>>(PLATFORMS.map((p) => [p, new Set()]));
  private open = 0;
  private readonly perClient = new ClientCounts();
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly live: LiveStore,
    private readonly maxStreams: number,
  ) {
    this.unsubscribe = live.onChange((published) => this.broadcast(published));
  }

  get openCount(): number {
    return this.open;
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
    const { lastEventId, viewer, maxPerClient, signal } = request;
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
    const client = new StreamClient(viewer, first, (closed) => {
      if (!set.delete(closed)) return;
      this.open--;
      this.perClient.remove(key);
    });
    set.add(client);
    this.open++;
    this.perClient.add(key);
    if (signal.aborted) client.close();
    else signal.addEventListener("abort", () => client.close(), { once: true });
    return new Response(client.stream, { headers: STREAM_HEADERS });
  }

  /** Starts the keep-alive comments. */
  start(): void {
    this.pingTimer ??= setInterval(() => this.ping(), PING_INTERVAL_MS);
    this.pingTimer.unref?.();
  }

  ping(): void {
    for (const set of this.clients.values()) for (const client of set) client.send(PING);
  }

  /** Ends every stream (shutdown). */
  closeAll(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
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
