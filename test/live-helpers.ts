/** Helpers for tests of the live path: agents, readings and stream readers. */
import { newAgentToken, sha256Hex } from "../src/domain/tokens.ts";
import { insertAgent } from "../src/db/agents.ts";
import type { Provider } from "../src/domain/catalogue.ts";
import type { Hub } from "../src/hub.ts";
import { call } from "./helpers.ts";

export interface TestAgent {
  readonly id: number;
  readonly token: string;
}

/** Creates an agent directly in the database, as the CLI would, and lets the hub see it. */
export function addAgent(hub: Hub, region: string, provider: Provider = "steam", options: { pollMin?: string; pollMax?: string; enabled?: boolean } = {}): TestAgent {
  const token = newAgentToken();
  const agent = insertAgent(hub.ctx.db.orm, { tokenHash: sha256Hex(token), provider, region, label: null, source: "manual" }, hub.ctx.now());
  if (options.pollMin !== undefined || options.pollMax !== undefined || options.enabled === false) {
    hub.ctx.db.sqlite
      .query("UPDATE agents SET poll_min = ?, poll_max = ?, enabled = ? WHERE id = ?")
      .run(options.pollMin ?? null, options.pollMax ?? null, options.enabled === false ? 0 : 1, agent.id);
  }
  hub.reloadExternal();
  return { id: agent.id, token };
}

export function reading(platform: string, region: string, measuredAt: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { region, platform, survivor: 0, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date(measuredAt).toISOString(), ...overrides };
}

export async function post(hub: Hub, agent: TestAgent, body: unknown): Promise<Response> {
  return await call(hub, "POST", "/api/v1/agent/readings", { body, headers: { authorization: `Bearer ${agent.token}` } });
}

export interface SseMessage {
  readonly event?: string;
  readonly id?: string;
  readonly retry?: string;
  readonly data?: string;
  readonly comments: string[];
}

/** Reads Server-Sent Events from a response body, one block at a time. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private buffer = "";
  private readonly decoder = new TextDecoder();

  constructor(response: Response) {
    if (!response.body) throw new Error("no body");
    this.reader = response.body.getReader();
  }

  /** The next block (message or comment), or null if none arrives in time. */
  async next(timeoutMs = 1000): Promise<SseMessage | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        return parseBlock(block);
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) return null;
      const chunk = await Promise.race([this.reader.read(), Bun.sleep(remaining).then(() => null)]);
      if (chunk === null) return null;
      if (chunk.done) return null;
      this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next block that carries data. */
  async nextMessage(timeoutMs = 1000): Promise<SseMessage | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const block = await this.next(Math.max(1, deadline - Date.now()));
      if (!block || block.data !== undefined) return block;
    }
  }

  async close(): Promise<void> {
    await this.reader.cancel();
  }
}

function parseBlock(block: string): SseMessage {
  const message: { event?: string; id?: string; retry?: string; data?: string; comments: string[] } = { comments: [] };
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) message.comments.push(line.slice(1).trim());
    else {
      const colon = line.indexOf(":");
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "event" || field === "id" || field === "retry" || field === "data") message[field] = value;
    }
  }
  return message;
}

/** An entry of GET /api/v1/events, as the tests read it. */
export interface ListedEvent {
  key: string;
  label: string;
  multiplier: number;
  startsAt: string;
  endsAt: string;
  platforms: string[] | null;
  source: string;
}
