/**
 * The stream through GRIP proxies (SPEC §20), against dist/hub and Debian's
 * Pushpin configured from deploy/pushpin/: viewers behind two Pushpin
 * instances read byte for byte what a direct viewer reads, resume the same
 * way, survive a hub restart and a proxy's death, a forged Grip-Sig
 * never makes the hub hold anything, and the viewers each node holds show in
 * the hub's presence, read from the node's own metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, startHub, type RunningHub } from "./harness.ts";
import { preparePushpin, pushpinAvailable, type RunningPushpin } from "../../scripts/support/pushpin.ts";

const KEY = "grip-test-key-0123456789abcdef";
const STREAM = "/api/v1/platforms/Windows/incentives/stream";
const REGIONS = ["eu-west-1", "eu-west-2", "eu-central-1", "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1", "sa-east-1", "ap-southeast-1", "ap-southeast-2", "ap-northeast-1"];
const token = (i: number) => `grip-e2e-token-${String(i).padStart(4, "0")}-abcdef`;
const PROVISION = REGIONS.map((region, i) => `a${i}:${token(i)}:${region}:steam`).join(",");

/** Reads a stream's raw bytes, so that two streams can be compared exactly. */
/**
 * A stream request through a Pushpin node that has just started: its proxy may
 * answer before its handler takes holds ("Accept service unavailable."), so the
 * request is made again until the node holds it.
 */
async function heldThrough(proxyUrl: string, headers: Record<string, string>, timeoutMs = 20_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${proxyUrl}${STREAM}`, { headers });
    if (response.status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
    const text = await response.text();
    if (Date.now() > deadline) throw new Error(`the node never held the stream: ${response.status} ${text}`);
    await Bun.sleep(200);
  }
}

class RawStream {
  text = "";
  private readonly done: Promise<void>;

  constructor(readonly response: Response) {
    if (!response.body) throw new Error("no body");
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    this.done = (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          this.text += decoder.decode(value, { stream: true });
        }
      } catch {
        // the connection was cut, which some tests do on purpose
      }
    })();
    this.cancel = () => reader.cancel().catch(() => undefined);
  }

  readonly cancel: () => Promise<void>;

  /** Waits until the stream's text satisfies the predicate. */
  async until(predicate: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.text)) {
      if (Date.now() > deadline) throw new Error(`stream did not get there in ${timeoutMs} ms; it holds:\n${this.text}`);
      await Bun.sleep(10);
    }
    return this.text;
  }

  /** Resolves once the server ended the stream. */
  async ended(timeoutMs = 5000): Promise<boolean> {
    return await Promise.race([this.done.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
  }

  messages(): string[] {
    return this.text.split("\n\n").filter((block) => block.startsWith("event: message"));
  }
}

const frames = (text: string) => text.split("\n\n").filter((block) => block.startsWith("event: message")).length;
const idsOf = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

function jwt(claims: Record<string, unknown>, key: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${createHmac("sha256", key).update(unsigned).digest("base64url")}`;
}

const enabled = pushpinAvailable();
const dir = tempDir("hub-grip-");
let hubPort = 0;
let hub: RunningHub | null = null;
let binary = "";
const proxies: RunningPushpin[] = [];
let publishUrls: string[] = [];
let statsUrls: string[] = [];
const ADMIN_PASSWORD = "grip presence password";
let sent = 0;

async function startTheHub(): Promise<RunningHub> {
  return await startHub({
    cmd: [binary],
    port: hubPort,
    args: ["--db", join(dir.path, "hub.db")],
    env: {
      PROVISION_AGENTS: PROVISION,
      POLL_MIN_SECONDS: "1",
      GRIP_URL: publishUrls.join(","),
      GRIP_KEY: KEY,
      GRIP_STATS_URL: statsUrls.join(","),
      METRICS_TOKEN: "metrics-token-0123456789",
      ADMIN_BOOTSTRAP_USER: "root",
      ADMIN_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD,
      MFA_ENFORCED_ROLES: "",
    },
  });
}

interface Presence {
  online: number;
  proxied: { viewers: number; unknownNodes: number; nodes: { node: string; viewers: number | null; problem: string | null }[] } | null;
}

/** GET /api/v1/admin/presence as the bootstrap admin. */
async function presence(): Promise<Presence> {
  const login = await fetch(`${hub?.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "root", password: ADMIN_PASSWORD }) });
  expect(login.status).toBe(200);
  const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const response = await fetch(`${hub?.url}/api/v1/admin/presence`, { headers: { cookie } });
  expect(response.status).toBe(200);
  return (await response.json()) as Presence;
}

/** Asks presence until the node counts satisfy the predicate; returns the reply and how long it took. */
async function presenceUntil(predicate: (counts: (number | null)[]) => boolean, timeoutMs: number): Promise<{ reply: Presence; ms: number }> {
  const started = Date.now();
  for (;;) {
    const reply = await presence();
    const counts = reply.proxied?.nodes.map((node) => node.viewers) ?? [];
    if (predicate(counts)) return { reply, ms: Date.now() - started };
    if (Date.now() - started > timeoutMs) throw new Error(`presence never got there in ${timeoutMs} ms: ${JSON.stringify(reply)}`);
    await Bun.sleep(250);
  }
}

/** Posts a reading that changes the Windows payload, from the next agent in turn. */
async function change(target = hub): Promise<void> {
  const i = sent++;
  const response = await fetch(`${target?.url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${token(i % REGIONS.length)}`, "content-type": "application/json" },
    body: JSON.stringify({ region: REGIONS[i % REGIONS.length], platform: "Windows", survivor: 0, killer: 25 * ((i % 12) + 1), ratio: 2, isReal: true, measuredAt: new Date().toISOString() }),
  });
  expect(response.status).toBe(201);
}

async function metrics(target = hub): Promise<string> {
  return await (await fetch(`${target?.url}/metrics`, { headers: { authorization: "Bearer metrics-token-0123456789" } })).text();
}

function metric(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : Number.NaN;
}

/**
 * Waits until the nodes have taken every publish of the earlier changes: the count of publishes taken holds still for
 * half a second, then a little more for the nodes' handlers to apply the last one. Under load a publish of an earlier
 * test's change could otherwise reach a viewer that a later test opened.
 */
async function publishesSettled(target = hub): Promise<void> {
  const taken = async () => metric(await metrics(target), "hub_grip_publish_lag_seconds_count");
  const deadline = Date.now() + 15_000;
  let before = await taken();
  for (;;) {
    await Bun.sleep(500);
    const now = await taken();
    if (now === before || Date.now() > deadline) break;
    before = now;
  }
  await Bun.sleep(300);
}

beforeAll(async () => {
  if (!enabled) return;
  binary = await compiledHub();
  hubPort = await freePort();
  const prepared = await Promise.all([0, 1].map((n) => preparePushpin(join(dir.path, `pushpin-${n}`), KEY)));
  publishUrls = prepared.map((p) => p.publishUrl);
  statsUrls = prepared.map((p) => p.statsUrl);
  hub = await startTheHub();
  for (const p of prepared) proxies.push(await p.start(hub.url));
}, 60_000);

afterAll(async () => {
  for (const proxy of proxies) await proxy.kill();
  await hub?.stop();
  dir.cleanup();
});

describe.skipIf(!enabled)("the stream through Pushpin (GRIP)", () => {
  test("viewers held by each node show in the hub's presence within seconds, and leave it when they disconnect", async () => {
    // The launcher's readiness checks close their connections, and each node reports them gone at its next stats
    // report (stats_report_interval, 5 s), read by the hub's next poll (5 s): about 15 s. A node that missed the
    // report of a close (its stats socket still joining at start) counts the connection until stats_connection_ttl
    // (120 s) expires it, so the bound is past that; the wait is printed.
    const idle = await presenceUntil((counts) => counts.length === 2 && counts.every((n) => n === 0), 150_000);
    expect(idle.reply.proxied?.nodes.map((node) => node.node)).toEqual(publishUrls.map((url) => new URL(url).host));
    const streams = await Promise.all([
      ...[0, 1, 2].map(async () => new RawStream(await fetch(`${proxies[0]?.url}${STREAM}`))),
      ...[0, 1].map(async () => new RawStream(await fetch(`${proxies[1]?.url}${STREAM}`))),
    ]);
    try {
      for (const stream of streams) await stream.until((text) => frames(text) === 1);
      // The hub holds none of them itself.
      expect(metric(await metrics(), "hub_streams_open")).toBe(0);
      const up = await presenceUntil(([a, b]) => a === 3 && b === 2, 20_000);
      expect(up.reply.proxied).toMatchObject({ viewers: 5, unknownNodes: 0 });
      const text = await metrics();
      expect(metric(text, `hub_grip_node_viewers{node="${new URL(publishUrls[0] ?? "").host}"}`)).toBe(3);
      expect(metric(text, `hub_grip_node_viewers{node="${new URL(publishUrls[1] ?? "").host}"}`)).toBe(2);
      await Promise.all(streams.map((stream) => stream.cancel()));
      const down = await presenceUntil(([a, b]) => a === 0 && b === 0, 40_000);
      expect(down.reply.proxied?.viewers).toBe(0);
      console.log(`presence through Pushpin: idle after ${idle.ms} ms, 5 held viewers seen in ${up.ms} ms, gone ${down.ms} ms after they disconnected`);
    } finally {
      await Promise.all(streams.map((stream) => stream.cancel()));
    }
  }, 240_000);

  test("a reading reaches viewers through two Pushpin instances and directly with identical bytes, published once per change to each proxy", async () => {
    const before = await metrics();
    const direct = new RawStream(await fetch(`${hub?.url}${STREAM}`));
    const viaA = new RawStream(await fetch(`${proxies[0]?.url}${STREAM}`));
    const viaB = new RawStream(await fetch(`${proxies[1]?.url}${STREAM}`));
    for (const stream of [direct, viaA, viaB]) {
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(stream.response.headers.get("cache-control")).toBe("no-cache");
      // Pushpin strips the instructions; nothing of GRIP reaches a viewer.
      expect([...stream.response.headers.keys()].filter((name) => name.startsWith("grip-"))).toEqual([]);
      await stream.until((text) => frames(text) === 1);
    }
    // Pushpin needs a moment to subscribe the held connections to the channel.
    await Bun.sleep(300);
    for (let n = 0; n < 3; n++) {
      await change();
      for (const stream of [direct, viaA, viaB]) await stream.until((text) => frames(text) === n + 2);
    }
    expect(viaA.text).toBe(direct.text);
    expect(viaB.text).toBe(direct.text);
    expect(direct.text).toMatch(/^event: message\nid: \d+\nretry: 3000\ndata: \{.*\}\n\n/);
    const ids = idsOf(direct.text);
    expect(new Set(ids).size).toBe(4);

    const after = await metrics();
    for (const url of publishUrls) {
      const name = `hub_grip_published_total{proxy="${new URL(url).host}"}`;
      expect(metric(after, name) - metric(before, name)).toBe(3);
    }
    // The hub serves only the direct stream itself; the proxies hold the others.
    expect(metric(after, "hub_streams_open")).toBe(1);
    expect(metric(after, "hub_grip_holds_total") - metric(before, "hub_grip_holds_total")).toBeGreaterThanOrEqual(2);
    expect(metric(after, "hub_grip_publish_lag_seconds_count")).toBeGreaterThanOrEqual(6);
    await Promise.all([direct, viaA, viaB].map((s) => s.cancel()));
  });

  test("keep-alives through the proxy are the direct stream's `: ping` lines", async () => {
    const direct = new RawStream(await fetch(`${hub?.url}${STREAM}`));
    const proxied = new RawStream(await fetch(`${proxies[0]?.url}${STREAM}`));
    await proxied.until((text) => frames(text) === 1);
    const first = proxied.text;
    await proxied.until((text) => text.length > first.length, 20_000);
    expect(proxied.text.slice(first.length)).toBe(": ping\n\n");
    await direct.until((text) => text.includes(": ping"), 20_000);
    expect(direct.text.slice(direct.text.indexOf(": ping"))).toStartWith(": ping\n\n");
    await Promise.all([direct.cancel(), proxied.cancel()]);
  }, 45_000);

  test("Last-Event-ID resumes through the proxy exactly as it does directly", async () => {
    const probe = new RawStream(await fetch(`${hub?.url}${STREAM}`));
    await probe.until((text) => frames(text) === 1);
    const current = idsOf(probe.text)[0] ?? 0;
    await probe.cancel();
    for (const lastEventId of [String(current), String(current - 5)]) {
      const direct = new RawStream(await fetch(`${hub?.url}${STREAM}`, { headers: { "last-event-id": lastEventId } }));
      const proxied = new RawStream(await fetch(`${proxies[1]?.url}${STREAM}`, { headers: { "last-event-id": lastEventId } }));
      const wanted = lastEventId === String(current) ? 0 : 1;
      for (const stream of [direct, proxied]) await stream.until((text) => text.length > 0);
      await Bun.sleep(300);
      await change();
      for (const stream of [direct, proxied]) await stream.until((text) => frames(text) === wanted + 1);
      expect(proxied.text).toBe(direct.text);
      // Up to date: no duplicate of the message the client already had.
      if (wanted === 0) expect(direct.text).toStartWith(": connected\n\n");
      expect(new Set(idsOf(proxied.text)).size).toBe(idsOf(proxied.text).length);
      await Promise.all([direct.cancel(), proxied.cancel()]);
    }
  });

  test("held connections outlive a hub restart and get the next change once", async () => {
    await publishesSettled();
    const proxied = [new RawStream(await fetch(`${proxies[0]?.url}${STREAM}`)), new RawStream(await fetch(`${proxies[1]?.url}${STREAM}`))];
    for (const stream of proxied) await stream.until((text) => frames(text) === 1);
    expect(await hub?.stop()).toBe(0);
    for (const stream of proxied) expect(await stream.ended(500)).toBe(false);
    hub = await startTheHub();
    const direct = new RawStream(await fetch(`${hub.url}${STREAM}`));
    await direct.until((text) => frames(text) === 1);
    await change();
    await direct.until((text) => frames(text) === 2);
    const pushed = direct.messages()[1] ?? "";
    for (const stream of proxied) {
      await stream.until((text) => frames(text) === 2, 5000);
      expect(stream.messages()[1]).toBe(pushed);
    }
    await Bun.sleep(500);
    for (const stream of proxied) expect(frames(stream.text)).toBe(2);
    await Promise.all([direct, ...proxied].map((s) => s.cancel()));
  });

  test("a Pushpin instance killed and restarted catches up: its viewers resume with Last-Event-ID", async () => {
    const proxy = proxies[0];
    if (!proxy) throw new Error("no proxy");
    const viewer = new RawStream(await fetch(`${proxy.url}${STREAM}`));
    await viewer.until((text) => frames(text) === 1);
    const seen = idsOf(viewer.text).at(-1) ?? 0;
    const failuresBefore = metric(await metrics(), `hub_grip_publish_failures_total{proxy="${new URL(publishUrls[0] ?? "").host}"}`);
    await proxy.kill();
    expect(await viewer.ended(2000)).toBe(true);
    // A node that does not answer its metrics is flagged, not counted as zero.
    const deadline = Date.now() + 12_000;
    let dead = (await presence()).proxied?.nodes[0];
    while (dead?.problem === null && Date.now() < deadline) {
      await Bun.sleep(250);
      dead = (await presence()).proxied?.nodes[0];
    }
    expect(dead?.problem).toBe("unreachable");
    expect(metric(await metrics(), `hub_grip_node_stats_up{node="${new URL(publishUrls[0] ?? "").host}"}`)).toBe(0);
    await change();
    await Bun.sleep(400);
    // The change is retried while the proxy is down.
    expect(metric(await metrics(), `hub_grip_publish_failures_total{proxy="${new URL(publishUrls[0] ?? "").host}"}`)).toBeGreaterThan(failuresBefore);
    await proxy.restart();
    const resumed = new RawStream(await heldThrough(proxy.url, { "last-event-id": String(seen) }));
    const direct = new RawStream(await fetch(`${hub?.url}${STREAM}`, { headers: { "last-event-id": String(seen) } }));
    await direct.until((text) => frames(text) === 1);
    await resumed.until((text) => frames(text) === 1);
    expect(resumed.text).toBe(direct.text);
    expect(idsOf(resumed.text)[0]).toBeGreaterThan(seen);
    await Bun.sleep(300);
    await change();
    for (const stream of [direct, resumed]) await stream.until((text) => frames(text) === 2);
    expect(resumed.text).toBe(direct.text);
    await Promise.all([direct.cancel(), resumed.cancel()]);
  }, 45_000);

  test("a forged or expired Grip-Sig never yields a hold; the stream is served directly", async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      forged: jwt({ iss: "pushpin", exp: now + 3600 }, "not-the-key-at-all-0123456789"),
      expired: jwt({ iss: "pushpin", exp: now - 60 }, KEY),
      garbage: "not.a.jwt",
    };
    for (const [name, signature] of Object.entries(cases)) {
      const response = await fetch(`${hub?.url}${STREAM}`, { headers: { "grip-sig": signature } });
      const stream = new RawStream(response);
      expect([name, response.headers.get("grip-hold")]).toEqual([name, null]);
      expect(response.headers.get("grip-channel")).toBeNull();
      await stream.until((text) => frames(text) === 1);
      expect(metric(await metrics(), "hub_streams_open")).toBe(1);
      await stream.cancel();
      const deadline = Date.now() + 2000;
      while (metric(await metrics(), "hub_streams_open") !== 0 && Date.now() < deadline) await Bun.sleep(20);
    }
    const valid = await fetch(`${hub?.url}${STREAM}`, { headers: { "grip-sig": jwt({ iss: "pushpin", exp: now + 3600 }, KEY) } });
    expect(valid.headers.get("grip-hold")).toBe("stream");
    expect(valid.headers.get("grip-channel")).toMatch(/^incentives\.Windows; prev-id=\d+$/);
    expect(valid.headers.get("grip-link")).toBe(`<${STREAM}>; rel=next`);
    expect(valid.headers.get("grip-keep-alive")).toBe(": ping\\n\\n; format=cstring; timeout=15");
    const body = await valid.text();
    expect(frames(body)).toBe(1);
    const revision = idsOf(body)[0];
    const recovery = await fetch(`${hub?.url}${STREAM}`, { headers: { "grip-sig": jwt({ iss: "pushpin", exp: now + 3600 }, KEY), "grip-last": `incentives.Windows; last-id=${revision}` } });
    expect(recovery.headers.get("grip-hold")).toBe("stream");
    expect(await recovery.text()).toBe("");
    const behind = await fetch(`${hub?.url}${STREAM}`, { headers: { "grip-sig": jwt({ iss: "pushpin", exp: now + 3600 }, KEY), "grip-last": `incentives.Windows; last-id=${(revision ?? 0) - 1}` } });
    expect(await behind.text()).toBe(body);
  });
});

/**
 * Stands between a Pushpin node and the hub, passing every answer through,
 * except that it can keep the next hold answer back until told to let it go:
 * the window in which the hub has answered a hold but the node has not yet
 * subscribed its connection to the channel.
 */
function holdingRelay(hubUrl: () => string) {
  let gate: Promise<void> | null = null;
  let open: () => void = () => undefined;
  const heldPrevIds: string[] = [];
  const gripLasts: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const gripLast = request.headers.get("grip-last");
      if (gripLast !== null) gripLasts.push(gripLast);
      const headers = new Headers(request.headers);
      headers.delete("host");
      headers.delete("accept-encoding");
      const upstream = await fetch(`${hubUrl()}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? null : await request.arrayBuffer(),
        redirect: "manual",
      });
      const body = await upstream.arrayBuffer();
      const answer = new Headers(upstream.headers);
      for (const name of ["content-encoding", "content-length", "transfer-encoding"]) answer.delete(name);
      const channel = upstream.headers.get("grip-channel");
      if (channel !== null && gate !== null) {
        const waiting = gate;
        gate = null;
        heldPrevIds.push(/prev-id=(\d+)/.exec(channel)?.[1] ?? "");
        await waiting;
      }
      return new Response(body, { status: upstream.status, headers: answer });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    heldPrevIds,
    /** The Grip-Last headers of the node's requests for the next link. */
    gripLasts,
    /** Keeps the next hold answer back until release(). */
    holdNext(): void {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: () => open(),
    stop: () => server.stop(true),
  };
}

/**
 * How a node learns of the change it was not yet subscribed for: from its
 * cache of recent publishes (the recipe keeps them 60 s), or, with no cache,
 * by seeing that the hold's prev-id is not the channel's last id and asking
 * the hub's next link with Grip-Last, which the hub answers with only what
 * came after.
 */
const RECOVERIES = [
  { how: "from the node's cache of recent publishes (the recipe's id_cache_ttl)", overrides: {}, asksNextLink: false },
  { how: "with no cache, through the next link with Grip-Last (id_cache_ttl=0)", overrides: { id_cache_ttl: "0" }, asksNextLink: true },
] as const;

describe.skipIf(!enabled)("subscribing while a change is published", () => {
  test.each(RECOVERIES)("a change published after the hub answered a hold but before the node subscribed reaches the viewer once, $how", async ({ overrides, asksNextLink }) => {
    const raceDir = join(dir.path, `race-${Object.keys(overrides).length}`);
    let raceHub: RunningHub | null = null;
    const relay = holdingRelay(() => raceHub?.url ?? "");
    const prepared = await preparePushpin(join(raceDir, "pushpin"), KEY, overrides);
    let node: RunningPushpin | null = null;
    try {
      raceHub = await startHub({
        cmd: [binary],
        args: ["--db", join(raceDir, "hub.db")],
        env: { PROVISION_AGENTS: PROVISION, POLL_MIN_SECONDS: "1", GRIP_URL: prepared.publishUrl, GRIP_KEY: KEY, METRICS_TOKEN: "metrics-token-0123456789" },
      });
      node = await prepared.start(relay.url);
      await change(raceHub);
      const direct = new RawStream(await fetch(`${raceHub.url}${STREAM}`));
      await direct.until((text) => frames(text) === 1);
      const publishedMetric = `hub_grip_published_total{proxy="${new URL(prepared.publishUrl).host}"}`;
      const publishedBefore = metric(await metrics(raceHub), publishedMetric);

      relay.holdNext();
      const pending = fetch(`${node.url}${STREAM}`);
      const deadline = Date.now() + 10_000;
      while (relay.heldPrevIds.length === 0) {
        if (Date.now() > deadline) throw new Error(`the hub's hold answer never reached the relay:\n${node.output()}`);
        await Bun.sleep(10);
      }
      expect(relay.heldPrevIds[0]).toBe(String(idsOf(direct.text)[0]));
      // The change is published, and taken by the node, while the hold answer is still on its way.
      await change(raceHub);
      await direct.until((text) => frames(text) === 2);
      while (metric(await metrics(raceHub), publishedMetric) < publishedBefore + 1) {
        if (Date.now() > deadline) throw new Error("the node never took the publish");
        await Bun.sleep(10);
      }
      relay.release();

      const proxied = new RawStream(await pending);
      await proxied.until((text) => frames(text) === 2, 10_000);
      expect(proxied.text).toBe(direct.text);
      // Without the cache the node asks the next link, unless the publish reached its handler only after the subscription
      // (the publish endpoint's 200 says the node took it, not that its handler applied it): either way, once and in order.
      if (asksNextLink) for (const last of relay.gripLasts) expect(last).toBe(`incentives.Windows; last-id=${relay.heldPrevIds[0]}`);
      // And nothing twice afterwards.
      await Bun.sleep(300);
      await change(raceHub);
      for (const stream of [direct, proxied]) await stream.until((text) => frames(text) === 3);
      expect(proxied.text).toBe(direct.text);
      await Promise.all([direct.cancel(), proxied.cancel()]);
    } finally {
      await node?.kill();
      await raceHub?.stop();
      relay.stop();
    }
  }, 45_000);
});
