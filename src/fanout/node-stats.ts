/**
 * How many viewers each GRIP proxy node holds (SPEC §20): the hub no longer
 * sees a held connection, so it asks each node's Prometheus endpoint
 * (Pushpin's `prometheus_port`) for its `connection_connected` gauge, off the
 * request path. A node that does not answer, or answers with something else,
 * is unknown, never zero: its last count is kept for a while, then dropped.
 */
import type { Logger } from "../log.ts";
import type { NodeViewers } from "../metrics.ts";

export const STATS_POLL_MS = 5_000;
const STATS_TIMEOUT_MS = 2_000;
/** How long a node's last count still stands after it stopped answering. */
export const STATS_KEEP_MS = 30_000;
/** A metrics page larger than this is not a Pushpin node's. */
const MAX_BODY_BYTES = 1_000_000;
/** Pushpin's gauge, after any `prometheus_prefix`. */
const GAUGE = /^([A-Za-z_:][A-Za-z0-9_:]*)?connection_connected(?:\{[^}]*\})?[ \t]+(\S+)/;

/** The node's connection count from its Prometheus text, or why there is none. */
export function connectionsIn(text: string): number | string {
  let found: number | null = null;
  for (const line of text.split("\n")) {
    const match = GAUGE.exec(line.trim());
    if (!match) continue;
    const value = Number(match[2]);
    if (!Number.isSafeInteger(value) || value < 0) return `connection_connected is not a count: ${JSON.stringify(match[2]?.slice(0, 40))}`;
    found = (found ?? 0) + value;
  }
  return found ?? "no connection_connected gauge in the answer";
}

interface NodeState {
  readonly node: string;
  readonly url: string;
  viewers: number | null;
  readAt: number | null;
  problem: string | null;
}

export class GripNodeStats {
  private readonly nodes: NodeState[];
  private timer: ReturnType<typeof setInterval> | null = null;
  private polling = false;

  constructor(
    publishUrls: readonly string[],
    statsUrls: readonly string[],
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly intervalMs = STATS_POLL_MS,
  ) {
    this.nodes = statsUrls.map((url, i) => ({ node: new URL(publishUrls[i] ?? url).host, url, viewers: null, readAt: null, problem: "not read yet" }));
  }

  start(): void {
    if (this.timer) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads every node once; rounds never overlap. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(this.nodes.map((state) => this.read(state)));
    } finally {
      this.polling = false;
    }
  }

  snapshot(): NodeViewers[] {
    const cutoff = this.now() - STATS_KEEP_MS;
    return this.nodes.map(({ node, viewers, readAt, problem }) =>
      readAt !== null && readAt <= cutoff && problem !== null ? { node, viewers: null, readAt: null, problem } : { node, viewers, readAt, problem },
    );
  }

  private async read(state: NodeState): Promise<void> {
    let result: number | string;
    try {
      const response = await fetch(state.url, { signal: AbortSignal.timeout(STATS_TIMEOUT_MS), redirect: "manual" });
      const body = await response.text();
      if (response.status !== 200) result = `answered ${response.status}`;
      else if (body.length > MAX_BODY_BYTES) result = "answered with more than 1 MB";
      else result = connectionsIn(body);
    } catch (error) {
      result = error instanceof Error && error.name === "TimeoutError" ? `no answer in ${STATS_TIMEOUT_MS / 1000} s` : "unreachable";
    }
    if (typeof result === "number") {
      state.viewers = result;
      state.readAt = this.now();
      state.problem = null;
      return;
    }
    if (state.problem !== result) this.log.warn("GRIP node stats unreadable", { node: state.node, problem: result });
    state.problem = result;
  }
}
