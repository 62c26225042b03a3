/**
 * GRIP in-process (SPEC §20): hold answers and what the hub publishes, seen
 * by a stand-in for a proxy's publish endpoint on loopback.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createHmac, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { GRIP_SIG_CLOCK_ALLOWANCE_SECONDS } from "../../src/fanout/grip.ts";
import { memoryLog, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const KEY = "grip-api-test-key-0123456789";
const STREAM = "/api/v1/platforms/Windows/incentives/stream";

interface PublishedItem {
  channel: string;
  id: string;
  "prev-id": string;
  formats: { "http-stream": { content: string } };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A Grip-Sig as Pushpin makes it (HS256 with the shared key); `expiresIn` null leaves `exp` out. */
function signature(key = KEY, expiresIn: number | null = 3600, iss = "pushpin"): string {
  const claims = expiresIn === null ? { iss } : { iss, exp: Math.floor(Date.now() / 1000) + expiresIn };
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${createHmac("sha256", key).update(unsigned).digest("base64url")}`;
}

/** A Grip-Sig as Fastly Fanout makes it: ES256 with the proxy's private key, naming the service. */
function es256Signature(privateKey: KeyObject, iss: string, expiresIn = 3600): string {
  const unsigned = `${part({ alg: "ES256", typ: "JWT" })}.${part({ iss, exp: Math.floor(Date.now() / 1000) + expiresIn })}`;
  return `${unsigned}.${sign("sha256", Buffer.from(unsigned), { key: privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url")}`;
}

/** Whether the JWT is signed with the key (HS256). */
function signedWith(jwt: string, key: string): boolean {
  const [header, claims, mac] = jwt.split(".");
  return mac === createHmac("sha256", key).update(`${header}.${claims}`).digest("base64url");
}

/** A publish endpoint that refuses the first `failFirst` requests. */
function fakeProxy(failFirst = 0) {
  const items: PublishedItem[] = [];
  const auth: string[] = [];
  let refused = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/publish/") return new Response("not found", { status: 404 });
      if (refused < failFirst) {
        refused++;
        return new Response("busy", { status: 503 });
      }
      auth.push(request.headers.get("authorization") ?? "");
      items.push(...((await request.json()) as { items: PublishedItem[] }).items);
      return new Response("Published\n");
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, items, auth, stop: () => server.stop(true) };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function until(predicate: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(10);
  }
}

function gripHub(urls: string[], keys: Record<string, string> = { GRIP_KEY: KEY }) {
  const { log, lines } = memoryLog("debug");
  const hub = testHub({ env: { GRIP_URL: urls.join(","), ...keys, POLL_MIN_SECONDS: "1" }, log });
  cleanups.push(() => hub.stop());
  return { hub, lines };
}

describe("GRIP publishing and holds", () => {
  test("each change is published once to every proxy: id the revision, prev-id the one before, the direct stream's exact message", async () => {
    const proxies = [fakeProxy(), fakeProxy()];
    for (const proxy of proxies) cleanups.push(proxy.stop);
    const { hub, lines } = gripHub(proxies.map((p) => p.url));
    const before = hub.ctx.live.current("Windows").revision;
    const agents = [addAgent(hub, "eu-west-1"), addAgent(hub, "us-east-1")];
    const frames: string[] = [];
    for (const [i, agent] of agents.entries()) {
      expect((await post(hub, agent, reading("Windows", i === 0 ? "eu-west-1" : "us-east-1", Date.now(), { killer: 75 + i }))).status).toBe(201);
      frames.push(new TextDecoder().decode(hub.ctx.live.current("Windows").frame));
    }
    const revisions = frames.map((frame) => Number(/^id: (\d+)$/m.exec(frame)?.[1]));
    for (const proxy of proxies) {
      await until(() => proxy.items.filter((item) => item.formats["http-stream"].content.includes('"killer":7')).length === 2);
      const mine = proxy.items.filter((item) => revisions.includes(Number(item.id)));
      expect(mine.map((item) => item.channel)).toEqual(["incentives.Windows", "incentives.Windows"]);
      expect(mine.map((item) => item.formats["http-stream"].content)).toEqual(frames);
      // Every item chains to the one before it, from the revision a hold answered before any change.
      const chain = proxy.items.filter((item) => item.channel === "incentives.Windows");
      expect(chain[0]?.["prev-id"]).toBe(String(before));
      for (let i = 1; i < chain.length; i++) expect(chain[i]?.["prev-id"]).toBe(chain[i - 1]?.id);
      // Publishes are signed with the key, which never travels in the clear.
      expect(proxy.auth.every((header) => header.startsWith("Bearer ey") && !header.includes(KEY))).toBe(true);
    }
    expect(JSON.stringify(lines)).not.toContain(KEY);
  });

  test("a proxy that refuses is retried with backoff until it takes the change; failures and lag are counted", async () => {
    const proxy = fakeProxy(3);
    cleanups.push(proxy.stop);
    const { hub } = gripHub([proxy.url]);
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { killer: 125 }))).status).toBe(201);
    const started = performance.now();
    await until(() => proxy.items.some((item) => item.formats["http-stream"].content.includes('"killer":125')), 5000);
    // 0.25 + 0.5 + 1 s of backoff before the fourth attempt.
    expect(performance.now() - started).toBeGreaterThan(1500);
    const counters = hub.ctx.fanout?.counters() ?? [];
    expect(counters[0]?.failures).toBe(3);
    expect(counters[0]?.published).toBeGreaterThanOrEqual(1);
    const text = hub.ctx.metrics.render({ streamsOpen: 0, readingsAccepted: 0, readingsRejected: new Map(), databaseBytes: 0, walBytes: 0, agentsEnabled: 0, regionsReporting: 0, uptimeSeconds: 0, streamsDropped: 0, eventEntriesSkipped: new Map(), storage: "ok", clockBehindSeconds: 0, grip: counters, gripHolds: 0, gripNodes: null });
    expect(text).toContain(`hub_grip_publish_failures_total{proxy="${new URL(proxy.url).host}"} 3`);
    expect(text).toMatch(/hub_grip_publish_lag_seconds_count [1-9]/);
  });

  test("a node asking the next link with Grip-Last gets only what came after the id it holds, or nothing when it is current", async () => {
    const proxy = fakeProxy();
    cleanups.push(proxy.stop);
    const { hub } = gripHub([proxy.url]);
    const held = hub.ctx.live.current("Windows").revision;
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { killer: 150 }))).status).toBe(201);
    const current = hub.ctx.live.current("Windows");
    expect(current.revision).not.toBe(held);
    const ask = async (lastId: number) =>
      hub.app.handle(new Request(`http://localhost${STREAM}`, { headers: { "grip-sig": signature(), "grip-last": `incentives.Windows; last-id=${lastId}` } }));
    const behind = await ask(held);
    expect(behind.headers.get("grip-channel")).toBe(`incentives.Windows; prev-id=${current.revision}`);
    expect(await behind.text()).toBe(new TextDecoder().decode(current.frame));
    const upToDate = await ask(current.revision);
    expect(upToDate.headers.get("grip-hold")).toBe("stream");
    expect(await upToDate.text()).toBe("");
  });

  test("a valid signature gets a hold; none, a forged or an expired one the direct stream", async () => {
    const proxy = fakeProxy();
    cleanups.push(proxy.stop);
    const { hub } = gripHub([proxy.url]);
    const held = await hub.app.handle(new Request(`http://localhost${STREAM}`, { headers: { "grip-sig": signature() } }));
    expect(held.headers.get("grip-hold")).toBe("stream");
    expect(held.headers.get("grip-channel")).toBe(`incentives.Windows; prev-id=${hub.ctx.live.current("Windows").revision}`);
    expect(await held.text()).toBe(new TextDecoder().decode(hub.ctx.live.current("Windows").frame));
    expect(hub.ctx.streams.openCount).toBe(0);
    const variants: Record<string, string>[] = [{}, { "grip-sig": signature("some-other-key-0123456789") }, { "grip-sig": signature(KEY, -60) }];
    for (const headers of variants) {
      const controller = new AbortController();
      const direct = await hub.app.handle(new Request(`http://localhost${STREAM}`, { headers, signal: controller.signal }));
      expect(direct.headers.get("grip-hold")).toBeNull();
      expect(hub.ctx.streams.openCount).toBe(1);
      controller.abort();
      await until(() => hub.ctx.streams.openCount === 0);
    }
    expect(hub.ctx.fanout?.holds).toBe(1);
  });

  test("a signature without exp, or with exp more than an hour ahead, is no signature (SPEC §16.4)", async () => {
    const proxy = fakeProxy();
    cleanups.push(proxy.stop);
    const { hub } = gripHub([proxy.url]);
    for (const [what, sig] of [
      ["no exp", signature(KEY, null)],
      ["exp an hour and a minute ahead", signature(KEY, 3660)],
      ["exp in the year 9999", signature(KEY, 253_402_300_799 - Math.floor(Date.now() / 1000))],
    ] as const) {
      expect({ what, held: await isHeld(hub, { "grip-sig": sig }) }).toEqual({ what, held: false });
    }
    expect(await isHeld(hub, { "grip-sig": signature(KEY, 3600) })).toBe(true);
    // A node whose clock runs a few seconds ahead (or signed just across a second's boundary) is still the node.
    expect(await isHeld(hub, { "grip-sig": signature(KEY, 3600 + GRIP_SIG_CLOCK_ALLOWANCE_SECONDS) })).toBe(true);
    expect(await isHeld(hub, { "grip-sig": signature(KEY, 3600 + GRIP_SIG_CLOCK_ALLOWANCE_SECONDS + 2) })).toBe(false);
    expect(await isHeld(hub, { "grip-sig": signature(KEY, 60) })).toBe(true);
    expect(hub.ctx.fanout?.holds).toBe(3);
  });

  /** Whether the stream request with these headers is answered with a hold (else it is served directly, and closed here). */
  async function isHeld(hub: ReturnType<typeof gripHub>["hub"], headers: Record<string, string>): Promise<boolean> {
    const controller = new AbortController();
    const response = await hub.app.handle(new Request(`http://localhost${STREAM}`, { headers, signal: controller.signal }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const held = response.headers.get("grip-hold") === "stream";
    if (held) await response.text();
    else controller.abort();
    await until(() => hub.ctx.streams.openCount === 0);
    return held;
  }

  test("Fastly Fanout: Grip-Sig is checked with its public key and service issuer; publishes carry the API token", async () => {
    const proxy = fakeProxy();
    cleanups.push(proxy.stop);
    const fanout = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const stranger = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const publicPem = fanout.publicKey.export({ type: "spki", format: "pem" }).toString();
    const apiToken = "fastly-api-token-0123456789abcdef";
    const { hub, lines } = gripHub([proxy.url], { GRIP_VERIFY_KEY: publicPem, GRIP_VERIFY_ISS: "fastly:service-one", GRIP_PUBLISH_TOKEN: apiToken });

    expect(await isHeld(hub, { "grip-sig": es256Signature(fanout.privateKey, "fastly:service-one") })).toBe(true);
    // Another key, another Fastly service signing with the same key, an expired signature, and the
    // public key's text used as an HMAC secret (the algorithm swap) are all served directly.
    expect(await isHeld(hub, { "grip-sig": es256Signature(stranger.privateKey, "fastly:service-one") })).toBe(false);
    expect(await isHeld(hub, { "grip-sig": es256Signature(fanout.privateKey, "fastly:service-two") })).toBe(false);
    expect(await isHeld(hub, { "grip-sig": es256Signature(fanout.privateKey, "fastly:service-one", -60) })).toBe(false);
    expect(await isHeld(hub, { "grip-sig": signature(publicPem, 3600, "fastly:service-one") })).toBe(false);
    expect(hub.ctx.fanout?.holds).toBe(1);

    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { killer: 150 }))).status).toBe(201);
    await until(() => proxy.items.some((item) => item.formats["http-stream"].content.includes('"killer":150')));
    expect(proxy.auth.length).toBeGreaterThan(0);
    expect(proxy.auth.every((header) => header === `Bearer ${apiToken}`)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(apiToken);
  });

  test("a verify key of its own beside GRIP_KEY: Grip-Sig is checked with it, publishes are still signed with GRIP_KEY", async () => {
    const proxy = fakeProxy();
    cleanups.push(proxy.stop);
    const verifyKey = "grip-verify-key-of-its-own-0123";
    const { hub } = gripHub([proxy.url], { GRIP_KEY: KEY, GRIP_VERIFY_KEY: verifyKey });
    expect(await isHeld(hub, { "grip-sig": signature(verifyKey) })).toBe(true);
    expect(await isHeld(hub, { "grip-sig": signature(KEY) })).toBe(false);
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { killer: 175 }))).status).toBe(201);
    await until(() => proxy.items.some((item) => item.formats["http-stream"].content.includes('"killer":175')));
    const jwts = proxy.auth.map((header) => header.replace(/^Bearer /, ""));
    expect(jwts.length).toBeGreaterThan(0);
    expect(jwts.every((jwt) => signedWith(jwt, KEY) && !signedWith(jwt, verifyKey))).toBe(true);
  });

  test("without GRIP_URL a signed request is served directly", async () => {
    const hub = testHub();
    cleanups.push(() => hub.stop());
    const controller = new AbortController();
    const response = await hub.app.handle(new Request(`http://localhost${STREAM}`, { headers: { "grip-sig": signature() }, signal: controller.signal }));
    expect(response.headers.get("grip-hold")).toBeNull();
    expect(hub.ctx.fanout).toBeNull();
    controller.abort();
  });
});
