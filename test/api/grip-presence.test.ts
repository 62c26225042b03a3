/**
 * Presence of viewers held by GRIP proxy nodes (SPEC §20): the hub reads each
 * node's Prometheus endpoint (here stand-ins on loopback) and adds what they
 * report to the presence reply and /metrics; a node that is down or answers
 * with something else is unknown, never zero, and never a 500.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/config/load.ts";
import { connectionsIn, STATS_KEEP_MS } from "../../src/fanout/node-stats.ts";
import type { Hub } from "../../src/hub.ts";
import { PASSWORD } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { memoryLog, testConfig, testHub } from "../helpers.ts";
import { freePort } from "../../scripts/support/ports.ts";

const KEY = "grip-presence-key-0123456789";
const METRICS_TOKEN = "metrics-token-0123456789";

interface Presence {
  online: number;
  proxied: { viewers: number; unknownNodes: number; nodes: { node: string; viewers: number | null; readAt: string | null; problem: string | null }[] } | null;
}

/** A node's Prometheus endpoint answering whatever `body` holds now, as Pushpin's handler does. */
function statsEndpoint(initial: string) {
  let body = initial;
  let status = 200;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body, { status, headers: { "content-type": "text/plain; version=0.0.4" } }) });
  return {
    url: `http://127.0.0.1:${server.port}/metrics`,
    answer(next: string, nextStatus = 200) {
      body = next;
      status = nextStatus;
    },
    stop: () => server.stop(true),
  };
}

const pushpinText = (connections: number | string, prefix = "") =>
  `# HELP ${prefix}request_received Number of requests received\n# TYPE ${prefix}request_received counter\n${prefix}request_received 12\n` +
  `# HELP ${prefix}connection_connected Number of concurrent connections\n# TYPE ${prefix}connection_connected gauge\n${prefix}connection_connected ${connections}\n` +
  `# HELP ${prefix}connection_minute Number of minutes clients have been connected\n# TYPE ${prefix}connection_minute counter\n${prefix}connection_minute 7\n`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function setup(statsUrls: string[], now: () => number = Date.now) {
  const publishUrls = statsUrls.map((_, i) => `http://127.0.0.1:${5561 + i}`);
  const { log, lines } = memoryLog("warn");
  const hub: Hub = testHub({ env: { MFA_ENFORCED_ROLES: "", GRIP_URL: publishUrls.join(","), GRIP_KEY: KEY, GRIP_STATS_URL: statsUrls.join(","), METRICS_TOKEN }, now, log });
  const admin = new Browser(hub, "192.0.2.1");
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  const presence = async () => {
    const { status, body } = await admin.json<Presence>("GET", "/api/v1/admin/presence");
    expect(status).toBe(200);
    return body;
  };
  const metrics = async () => await (await hub.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))).text();
  const poll = async () => await hub.ctx.gripNodes?.poll();
  return { hub, presence, metrics, poll, lines };
}

describe("connections held by GRIP nodes, as the nodes report them", () => {
  test("reads Pushpin's connection_connected, with or without a prometheus_prefix; anything else is no count", () => {
    expect(connectionsIn(pushpinText(17))).toBe(17);
    expect(connectionsIn(pushpinText(3, "pushpin_"))).toBe(3);
    expect(connectionsIn('connection_connected{instance="a"} 2\n')).toBe(2);
    expect(connectionsIn("<html>a login page</html>")).toBeString();
    expect(connectionsIn(pushpinText("NaN"))).toBeString();
    expect(connectionsIn(pushpinText(-1))).toBeString();
    expect(connectionsIn(pushpinText(2.5))).toBeString();
    expect(connectionsIn("connection_connected_total 4\n")).toBeString();
  });

  test("presence and /metrics carry each node's count and their total; a node down or answering nonsense is unknown, not zero", async () => {
    const up = statsEndpoint(pushpinText(12));
    const other = statsEndpoint(pushpinText(5, "pp_"));
    const nonsense = statsEndpoint("<html>not a metrics page</html>");
    const closed = await freePort();
    cleanups.push(up.stop, other.stop, nonsense.stop);
    const { presence, metrics, poll, lines } = await setup([up.url, other.url, nonsense.url, `http://127.0.0.1:${closed}/metrics`]);

    const before = await presence();
    expect(before.online).toBe(0);
    expect(before.proxied?.viewers).toBe(0);
    expect(before.proxied?.unknownNodes).toBe(4);
    expect(before.proxied?.nodes.map((n) => n.problem)).toEqual(["not read yet", "not read yet", "not read yet", "not read yet"]);

    await poll();
    const read = await presence();
    expect(read.proxied?.viewers).toBe(17);
    expect(read.proxied?.unknownNodes).toBe(2);
    const [a, b, c, d] = read.proxied?.nodes ?? [];
    expect(a).toMatchObject({ node: "127.0.0.1:5561", viewers: 12, problem: null });
    expect(Date.parse(a?.readAt ?? "")).toBeGreaterThan(Date.now() - 10_000);
    expect(b).toMatchObject({ node: "127.0.0.1:5562", viewers: 5, problem: null });
    expect(c).toEqual({ node: "127.0.0.1:5563", viewers: null, readAt: null, problem: "no connection_connected gauge in the answer" });
    expect(d).toEqual({ node: "127.0.0.1:5564", viewers: null, readAt: null, problem: "unreachable" });
    // Logged once per node and reason, named by its publish host.
    const warned = () => lines.filter((line) => line.msg === "GRIP node stats unreadable").map((line) => String(line.node)).sort();
    expect(warned()).toEqual(["127.0.0.1:5563", "127.0.0.1:5564"]);

    const text = await metrics();
    expect(text).toContain('hub_grip_node_viewers{node="127.0.0.1:5561"} 12\n');
    expect(text).toContain('hub_grip_node_viewers{node="127.0.0.1:5562"} 5\n');
    expect(text).not.toContain('hub_grip_node_viewers{node="127.0.0.1:5563"}');
    expect(text).toContain('hub_grip_node_stats_up{node="127.0.0.1:5561"} 1\n');
    expect(text).toContain('hub_grip_node_stats_up{node="127.0.0.1:5564"} 0\n');

    up.answer(pushpinText(3));
    nonsense.answer(pushpinText(8));
    await poll();
    const later = await presence();
    expect(later.proxied?.viewers).toBe(3 + 5 + 8);
    expect(later.proxied?.unknownNodes).toBe(1);
    expect(warned()).toEqual(["127.0.0.1:5563", "127.0.0.1:5564"]);
  });

  test("a node that stops answering keeps its last count, flagged, for 30 s; then it is unknown", async () => {
    let clock = Date.parse("2026-05-01T12:00:00Z");
    const node = statsEndpoint(pushpinText(40));
    cleanups.push(node.stop);
    const { presence, poll } = await setup([node.url], () => clock);
    await poll();
    expect((await presence()).proxied).toEqual({ viewers: 40, unknownNodes: 0, nodes: [{ node: "127.0.0.1:5561", viewers: 40, readAt: "2026-05-01T12:00:00.000Z", problem: null }] });

    node.answer("busy", 503);
    clock += 10_000;
    await poll();
    expect((await presence()).proxied).toEqual({ viewers: 40, unknownNodes: 0, nodes: [{ node: "127.0.0.1:5561", viewers: 40, readAt: "2026-05-01T12:00:00.000Z", problem: "answered 503" }] });

    clock += STATS_KEEP_MS;
    await poll();
    expect((await presence()).proxied).toEqual({ viewers: 0, unknownNodes: 1, nodes: [{ node: "127.0.0.1:5561", viewers: null, readAt: null, problem: "answered 503" }] });

    node.answer(pushpinText(41));
    await poll();
    expect((await presence()).proxied?.viewers).toBe(41);
  });

  test("a node whose metrics hang is given up after 2 s, and the next round still runs", async () => {
    let hang = true;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hang ? new Promise<Response>(() => undefined) : new Response(pushpinText(9))) });
    cleanups.push(() => server.stop(true));
    const { presence, poll } = await setup([`http://127.0.0.1:${server.port}/metrics`]);
    const started = performance.now();
    await poll();
    expect(performance.now() - started).toBeLessThan(4000);
    expect((await presence()).proxied?.nodes[0]).toMatchObject({ viewers: null, problem: "no answer in 2 s" });
    hang = false;
    await poll();
    expect((await presence()).proxied?.nodes[0]).toMatchObject({ viewers: 9, problem: null });
  });

  test("without GRIP_STATS_URL presence has no proxied part and /metrics no node gauges", async () => {
    const hub = testHub({ env: { MFA_ENFORCED_ROLES: "", METRICS_TOKEN } });
    const admin = new Browser(hub, "192.0.2.1");
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    expect((await admin.json<Presence>("GET", "/api/v1/admin/presence")).body).toEqual({ online: 0, proxied: null });
    const text = await (await hub.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))).text();
    expect(text).not.toContain("hub_grip_node");
  });

  test("GRIP_STATS_URL needs one endpoint per GRIP_URL node", () => {
    const env = { GRIP_URL: "http://127.0.0.1:5561,http://127.0.0.1:5562", GRIP_KEY: KEY };
    expect(() => testConfig([], { ...env, GRIP_STATS_URL: "http://127.0.0.1:9100/metrics" })).toThrow(ConfigError);
    expect(() => testConfig([], { ...env, GRIP_STATS_URL: "http://127.0.0.1:9100/metrics" })).toThrow("GRIP_STATS_URL names 1 endpoint but GRIP_URL names 2 nodes");
    expect(() => testConfig([], { GRIP_STATS_URL: "http://127.0.0.1:9100/metrics" })).toThrow("GRIP_URL names 0 nodes");
    expect(() => testConfig([], { ...env, GRIP_STATS_URL: "ftp://x/metrics,http://127.0.0.1:9101/metrics" })).toThrow("GRIP_STATS_URL");
    expect(testConfig([], { ...env, GRIP_STATS_URL: "http://127.0.0.1:9100/metrics, http://127.0.0.1:9101/metrics" }).gripStatsUrl).toHaveLength(2);
  });
});
