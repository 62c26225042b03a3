/**
 * Many Server-Sent Events clients in one process, on raw sockets: each
 * notes when a message with a given revision (the `id:` field) arrives.
 */
import type { Socket } from "bun";

export interface StreamClients {
  /**
   * Watches for the first message whose id ≥ revision on every client, runs
   * `trigger` (which returns the moment the publishing request was sent,
   * from `performance.now()`), and gives each client's arrival time on that
   * clock, or null for a client that saw nothing.
   */
  arrivalsAfter(revision: number, timeoutMs: number, trigger: () => Promise<number>): Promise<{ sent: number; arrivals: (number | null)[] }>;
  readonly latestIds: number[];
  /** Epoch ms at which each client got its newest message, if that is at least `revision` (for comparing across processes). */
  arrivals(revision: number): (number | null)[];
  close(): void;
}

/** `batch` connections are opened between pauses of `pauseMs`. */
export async function openStreams(host: string, port: number, path: string, count: number, batch = 500, pauseMs = 1): Promise<StreamClients> {
  const latestIds = new Array<number>(count).fill(0);
  const arrivedAt = new Array<number>(count).fill(0);
  const latestAt = new Array<number>(count).fill(0);
  const sockets: Socket<number>[] = [];
  let watching = Number.POSITIVE_INFINITY;
  let connected = 0;
  const request = `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n\r\n`;
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    const socket = await Bun.connect<number>({
      hostname: host,
      port,
      data: i,
      socket: {
        open(s) {
          s.write(request);
        },
        data(s, chunk) {
          const text = decoder.decode(chunk);
          let at = text.indexOf("\nid: ");
          while (at !== -1) {
            const end = text.indexOf("\n", at + 5);
            const id = Number(text.slice(at + 5, end === -1 ? undefined : end));
            if (id > (latestIds[s.data] ?? 0)) {
              latestIds[s.data] = id;
              latestAt[s.data] = performance.timeOrigin + performance.now();
              if (id >= watching && (arrivedAt[s.data] ?? 0) === 0) arrivedAt[s.data] = performance.now();
            }
            at = text.indexOf("\nid: ", at + 5);
          }
        },
      },
    });
    sockets.push(socket);
    connected++;
    if (connected % batch === 0) await Bun.sleep(pauseMs);
  }
  return {
    latestIds,
    async arrivalsAfter(revision, timeoutMs, trigger) {
      arrivedAt.fill(0);
      watching = revision;
      const sent = await trigger();
      const deadline = performance.now() + timeoutMs;
      while (arrivedAt.some((t) => t === 0) && performance.now() < deadline) await Bun.sleep(1);
      watching = Number.POSITIVE_INFINITY;
      return { sent, arrivals: arrivedAt.map((t) => (t === 0 ? null : t)) };
    },
    arrivals(revision) {
      return latestIds.map((id, i) => (id >= revision ? (latestAt[i] ?? null) : null));
    },
    close() {
      for (const socket of sockets) socket.end();
    },
  };
}
