/** Prometheus metrics: counters and histograms kept in memory, rendered as text on demand. */
import { HUB_VERSION } from "./version.ts";

export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export class Histogram {
  readonly counts = new Array<number>(LATENCY_BUCKETS.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= (LATENCY_BUCKETS[i] ?? 0)) this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += seconds;
    this.count++;
  }

  render(name: string, help: string): string[] {
    const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
    LATENCY_BUCKETS.forEach((le, i) => lines.push(`${name}_bucket{le="${le}"} ${this.counts[i] ?? 0}`));
    lines.push(`${name}_bucket{le="+Inf"} ${this.count}`, `${name}_sum ${this.sum}`, `${name}_count ${this.count}`);
    return lines;
  }
}

function label(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

export type TimedOperation = "ingest" | "history";

export interface GripProxyCounters {
  /** host:port of the publish endpoint, never its credentials. */
  readonly proxy: string;
  readonly published: number;
  readonly failures: number;
}

export interface Gauges {
  readonly streamsOpen: number;
  readonly streamsDropped: number;
  readonly readingsAccepted: number;
  readonly readingsRejected: ReadonlyMap<string, number>;
  readonly eventEntriesSkipped: ReadonlyMap<string, number>;
  readonly databaseBytes: number;
  readonly walBytes: number;
  readonly agentsEnabled: number;
  readonly regionsReporting: number;
  readonly uptimeSeconds: number;
  /** "ok", or why a write cannot succeed (SPEC §16.2). */
  readonly storage: string;
  /** How far the clock is behind the newest stored reading; 0 when it is not. */
  readonly clockBehindSeconds: number;
  /** The last backup that succeeded: when it was taken, epoch ms, and its size; null when none is known (SPEC §25). */
  readonly backupLast?: { readonly at: number; readonly bytes: number } | null;
  /** Seconds between scheduled backups, 0 when none are scheduled (SPEC §25). */
  readonly backupPeriodSeconds?: number;
  /** Webhook delivery attempts since start, by result (SPEC §18). */
  readonly webhookDeliveries?: ReadonlyMap<string, number>;
  /** Per GRIP proxy, when streams go through proxies (SPEC §20). */
  readonly grip: readonly GripProxyCounters[] | null;
  readonly gripHolds: number;
  /** What each GRIP node reports, when GRIP_STATS_URL is set. */
  readonly gripNodes: readonly NodeViewers[] | null;
}

export class Metrics {
  /** Counts by route template, then by method and status. */
  private readonly requests = new Map<string, Map<string, number>>();
  private readonly ingest = new Histogram();
  private readonly history = new Histogram();
  private readonly gripLag = new Histogram();

  count(method: string, route: string, status: number): void {
    let byRoute = this.requests.get(route);
    if (!byRoute) {
      byRoute = new Map();
      this.requests.set(route, byRoute);
    }
    const key = method + status;
    byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
  }

  /** Like time(), for an operation that may wait (a write retried while another process holds the lock). */
  async timeAsync<T>(operation: TimedOperation, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      (operation === "ingest" ? this.ingest : this.history).observe((performance.now() - started) / 1000);
    }
  }

  /** Runs an operation and records how long it took in its histogram. */
  time<T>(operation: TimedOperation, run: () => T): T {
    const started = performance.now();
    try {
      return run();
    } finally {
      (operation === "ingest" ? this.ingest : this.history).observe((performance.now() - started) / 1000);
    }
  }

  /** Seconds from a content change to a proxy taking its publish. */
  observeGripLag(seconds: number): void {
    this.gripLag.observe(seconds);
  }

  render(gauges: Gauges): string {
    const lines = [
      "# HELP hub_build_info Always 1; the version label says which hub runs.",
      "# TYPE hub_build_info gauge",
      `hub_build_info{version="${label(HUB_VERSION)}"} 1`,
      "# HELP hub_http_requests_total HTTP requests by route template, method and status.", "# TYPE hub_http_requests_total counter",
    ];
    for (const [route, byRoute] of [...this.requests].sort(([a], [b]) => a.localeCompare(b))) {
      for (const [key, value] of [...byRoute].sort(([a], [b]) => a.localeCompare(b))) {
        const method = key.slice(0, -3);
        const status = key.slice(-3);
        lines.push(`hub_http_requests_total{route="${label(route)}",method="${method}",status="${status}"} ${value}`);
      }
    }
    const gauge = (name: string, type: "gauge" | "counter", help: string, value: number) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
    gauge("hub_streams_open", "gauge", "Event streams the hub serves itself (streams held by a GRIP proxy are the proxy's).", gauges.streamsOpen);
    gauge("hub_streams_dropped_total", "counter", "Event streams closed because the client stopped reading (its connection's kernel send queue, or the runtime, not drained for STREAM_STALL_MS, or over 1 MiB unsent in the kernel and the hub).", gauges.streamsDropped);
    gauge("hub_readings_accepted_total", "counter", "Readings accepted from agents since start.", gauges.readingsAccepted);
    lines.push("# HELP hub_readings_rejected_total Readings refused since start, by the rule broken (or storage).", "# TYPE hub_readings_rejected_total counter");
    for (const [reason, value] of [...gauges.readingsRejected].sort(([a], [b]) => a.localeCompare(b))) lines.push(`hub_readings_rejected_total{reason="${label(reason)}"} ${value}`);
    lines.push("# HELP hub_event_entries_skipped_total Entries of agents' event reports skipped since start, by reason.", "# TYPE hub_event_entries_skipped_total counter");
    for (const [reason, value] of [...gauges.eventEntriesSkipped].sort(([a], [b]) => a.localeCompare(b))) lines.push(`hub_event_entries_skipped_total{reason="${label(reason)}"} ${value}`);
    lines.push(...this.ingest.render("hub_ingest_duration_seconds", "Time to check, store and publish a reading (POST /api/v1/agent/readings)."));
    lines.push(...this.history.render("hub_history_duration_seconds", "Time to build a history reply (GET …/history)."));
    gauge("hub_database_size_bytes", "gauge", "Size of the database (pages in use).", gauges.databaseBytes);
    gauge("hub_database_wal_bytes", "gauge", "Size of the write-ahead log file.", gauges.walBytes);
    gauge("hub_agents_enabled", "gauge", "Enabled agents.", gauges.agentsEnabled);
    gauge("hub_regions_reporting", "gauge", "(platform, region) pairs whose live reading is fresh.", gauges.regionsReporting);
    gauge("hub_uptime_seconds", "gauge", "Seconds since the hub started.", gauges.uptimeSeconds);
    lines.push("# HELP hub_storage_ok 1 when a write can succeed, else 0; the reason says why not.", "# TYPE hub_storage_ok gauge");
    lines.push(`hub_storage_ok{reason="${label(gauges.storage)}"} ${gauges.storage === "ok" ? 1 : 0}`);
    gauge("hub_clock_behind_seconds", "gauge", "Seconds the clock is behind the newest stored reading (0 when it is not).", gauges.clockBehindSeconds);
    gauge("hub_backup_last_success_timestamp_seconds", "gauge", "When the last backup that was uploaded and checked was taken, Unix seconds (0 when none is known).", gauges.backupLast ? Math.floor(gauges.backupLast.at / 1000) : 0);
    gauge("hub_backup_bytes", "gauge", "Size of the last backup that was uploaded and checked (0 when none is known).", gauges.backupLast?.bytes ?? 0);
    gauge("hub_backup_schedule_period_seconds", "gauge", "Seconds between scheduled backups (a day for daily HH:MM), 0 when BACKUP_SCHEDULE is off.", gauges.backupPeriodSeconds ?? 0);
    lines.push(
      "# HELP hub_webhook_deliveries_total Webhook delivery attempts since start, by result (delivered: 2xx; retry: failed, tried again later; given_up: failed with no attempt left in its day; expired: not sent within its day).",
      "# TYPE hub_webhook_deliveries_total counter",
    );
    for (const [result, value] of gauges.webhookDeliveries ?? []) lines.push(`hub_webhook_deliveries_total{result="${label(result)}"} ${value}`);
    const grip = gauges.grip;
    if (grip) {
      gauge("hub_grip_holds_total", "counter", "Stream requests from a GRIP proxy answered with hold instructions.", gauges.gripHolds);
      const perProxy = (name: string, help: string, value: (proxy: GripProxyCounters) => number) => {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
        for (const proxy of grip) lines.push(`${name}{proxy="${label(proxy.proxy)}"} ${value(proxy)}`);
      };
      perProxy("hub_grip_published_total", "Changes a GRIP proxy took, by proxy.", (proxy) => proxy.published);
      perProxy("hub_grip_publish_failures_total", "Publish attempts a GRIP proxy refused or did not answer (each retried for 60 s), by proxy.", (proxy) => proxy.failures);
      lines.push(...this.gripLag.render("hub_grip_publish_lag_seconds", "Time from a content change to a GRIP proxy taking its publish."));
    }
    const nodes = gauges.gripNodes;
    if (nodes) {
      lines.push("# HELP hub_grip_node_viewers Connections a GRIP node holds, as it last reported them; absent while unknown.", "# TYPE hub_grip_node_viewers gauge");
      for (const node of nodes) if (node.viewers !== null) lines.push(`hub_grip_node_viewers{node="${label(node.node)}"} ${node.viewers}`);
      lines.push("# HELP hub_grip_node_stats_up 1 when a GRIP node's stats endpoint answered the last read, else 0.", "# TYPE hub_grip_node_stats_up gauge");
      for (const node of nodes) lines.push(`hub_grip_node_stats_up{node="${label(node.node)}"} ${node.problem === null ? 1 : 0}`);
    }
    return `${lines.join("\n")}\n`;
  }
}

/** The viewers one GRIP proxy node holds, as src/fanout/node-stats.ts last read them. */
export interface NodeViewers {
  /** host:port of the node's publish endpoint, as GRIP_URL names it (the `proxy` of the publish metrics). */
  readonly node: string;
  /** Connections the node holds, as last read; null when unknown. */
  readonly viewers: number | null;
  /** When `viewers` was read (epoch ms); null when never, or dropped. */
  readonly readAt: number | null;
  /** Why the last read failed; null when it succeeded. */
  readonly problem: string | null;
}
