/**
 * A light HTTP/1.1 load client for the ingest bench: keep-alive TCP sockets
 * (Bun.connect) with one request in flight each, a request written as one
 * string, and the answer's end found from its Content-Length. fetch() builds a
 * Request, a Headers object and a Response per call; at 2,000 posts/s that
 * work on the bench's own event loop delays when answers are noticed, so the
 * latency it reports is partly the client's. Every server in the bench (the
 * hub and the bare baselines) is driven by this same client.
 *
 * Latency runs from the call to the moment the last byte of the answer is
 * read. A post that finds no idle socket opens a new one (as fetch's pool
 * would), and the connect time counts.
 */
import type { Socket } from "bun";

export interface PostResult {
  readonly status: number;
  readonly ms: number;
}

interface Pending {
  readonly sentAt: number;
  readonly resolve: (result: PostResult) => void;
  readonly reject: (error: Error) => void;
}

interface Connection {
  buffer: string;
  pending: Pending | null;
}

const HEAD_END = "\r\n\r\n";

/** Status and total length (bytes) of the first complete answer in `text` (read as latin1, one character per byte), or null while it is incomplete. */
export function completeAnswer(text: string): { status: number; length: number } | null {
  const headEnd = text.indexOf(HEAD_END);
  if (headEnd < 0) return null;
  const head = text.slice(0, headEnd);
  const status = Number(head.slice(9, 12));
  const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (lengthMatch) {
    const length = headEnd + HEAD_END.length + Number(lengthMatch[1]);
    return text.length >= length ? { status, length } : null;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    // Searched from the head's own last line break, so an empty body ("0\r\n\r\n" right after the head) is found too.
    const end = text.indexOf("\r\n0\r\n\r\n", headEnd);
    return end >= 0 ? { status, length: end + 7 } : null;
  }
  return { status, length: headEnd + HEAD_END.length };
}

export class RawPoster {
  private readonly idle: Socket<Connection>[] = [];
  private readonly open = new Set<Socket<Connection>>();

  constructor(
    private readonly hostname: string,
    private readonly port: number,
    private readonly path: string,
  ) {}

  static fromUrl(url: string): RawPoster {
    const parsed = new URL(url);
    return new RawPoster(parsed.hostname, Number(parsed.port), `${parsed.pathname}${parsed.search}`);
  }

  /** Posts a JSON body with the given bearer token; resolves with the status and the latency. */
  async post(token: string, body: string): Promise<PostResult> {
    return await this.postWith({ Authorization: `Bearer ${token}` }, body);
  }

  /** Posts a JSON body with the given headers (a signature, say) besides Host, Content-Type and Content-Length. */
  async postWith(headers: Readonly<Record<string, string>>, body: string): Promise<PostResult> {
    const sentAt = performance.now();
    const socket = this.idle.pop() ?? (await this.connect());
    let head = `POST ${this.path} HTTP/1.1\r\nHost: ${this.hostname}:${this.port}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    const request = `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return await new Promise<PostResult>((resolve, reject) => {
      socket.data.pending = { sentAt, resolve, reject };
      socket.write(request);
    });
  }

  /** Sockets open now. */
  get connections(): number {
    return this.open.size;
  }

  /** Closes every socket. */
  close(): void {
    for (const socket of this.open) socket.end();
    this.open.clear();
    this.idle.length = 0;
  }

  private async connect(): Promise<Socket<Connection>> {
    const socket = await Bun.connect<Connection>({
      hostname: this.hostname,
      port: this.port,
      data: { buffer: "", pending: null },
      socket: {
        data: (s, chunk) => this.received(s, chunk),
        close: (s) => this.lost(s, new Error("connection closed")),
        error: (s, error) => this.lost(s, error),
      },
    });
    socket.setNoDelay(true);
    this.open.add(socket);
    return socket;
  }

  private received(socket: Socket<Connection>, chunk: Buffer): void {
    const at = performance.now();
    const state = socket.data;
    state.buffer += chunk.toString("latin1");
    const answer = completeAnswer(state.buffer);
    if (!answer || !state.pending) return;
    const pending = state.pending;
    state.buffer = state.buffer.slice(answer.length);
    state.pending = null;
    if (this.open.has(socket)) this.idle.push(socket);
    pending.resolve({ status: answer.status, ms: at - pending.sentAt });
  }

  private lost(socket: Socket<Connection>, error: Error): void {
    const state = socket.data;
    this.open.delete(socket);
    const index = this.idle.indexOf(socket);
    if (index >= 0) this.idle.splice(index, 1);
    const pending = state.pending;
    state.pending = null;
    pending?.reject(error);
  }
}
