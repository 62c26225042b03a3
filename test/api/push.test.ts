/**
 * Web Push through the API and the live path (SPEC §23), with a real push
 * service (web-push-testing behind a TLS front): the key and when push is
 * off, subscriptions and their checks and limits, the manage token, and
 * delivery: what the service decrypted, the VAPID JWT, TTL, Urgency and
 * Topic, 410 removal, 429/5xx retries never past the TTL, 400 marked failing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EventAdmin } from "../../src/admin/events.ts";
import { CLI_ACTOR } from "../../src/db/audit.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import type { Fetcher } from "../../src/alerts/transport.ts";
import { adminHub } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, json, memoryLog, scratchDirs, testConfig } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";
import { PushService, vapidClaims, type TestSubscription } from "../push-service.ts";

const scratch = scratchDirs();
const PUSH_ENV = { CONTACT_EMAIL: "ops@example.org", PUSH_SERVICE_HOSTS: "localhost", WEBHOOK_ALLOW_PRIVATE: "true" };
let service: PushService;

beforeAll(async () => {
  service = await PushService.start(scratch());
});
afterAll(() => service.stop());

interface PushHubOptions {
  readonly env?: Record<string, string>;
  readonly now?: () => number;
  readonly dbPath?: string;
  readonly log?: ReturnType<typeof memoryLog>["log"];
}

function pushHub(options: PushHubOptions = {}): Hub {
  const trusting: Fetcher = (url, init) => fetch(url, { ...init, tls: { ...init.tls, ca: service.cert } });
  const hub = createHub(testConfig([], { ...PUSH_ENV, ...options.env }), {
    db: openDatabase(options.dbPath ?? ":memory:"),
    log: options.log ?? memoryLog("error").log,
    now: options.now ?? Date.now,
    push: { fetch: trusting, resolve: async () => ["127.0.0.1"], policy: { backoffMs: [200, 400] }, random: () => 0.5 },
  });
  hub.start();
  return hub;
}

async function keyOf(hub: Hub): Promise<string> {
  const response = await call(hub, "GET", "/api/v1/push/key");
  expect(response.status).toBe(200);
  return (await json<{ publicKey: string }>(response)).publicKey;
}

function body(subscription: Pick<TestSubscription, "endpoint" | "keys">, extra: Record<string, unknown> = {}) {
  return {
    subscription: { endpoint: subscription.endpoint, keys: subscription.keys },
    lang: "en",
    rules: [{ platform: "Windows", region: "eu-central-1", role: "killer", minBonus: 75 }],
    ...extra,
  };
}

async function subscribe(hub: Hub, subscription: TestSubscription, extra: Record<string, unknown> = {}): Promise<{ id: string; manageToken: string }> {
  const response = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(subscription, extra) });
  expect(response.status).toBe(201);
  return await json<{ id: string; manageToken: string }>(response);
}

async function settle(hub: Hub, until: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    await hub.ctx.push.idle();
    if (await until()) return;
    await Bun.sleep(25);
  }
  throw new Error("the push did not settle in time");
}

describe("push key", () => {
  test("push is off without a contact: 404 saying what to set, one warning at start", async () => {
    const { log, lines } = memoryLog("warn");
    const hub = createHub(testConfig([], {}), { db: openDatabase(":memory:"), log });
    hub.start();
    const response = await call(hub, "GET", "/api/v1/push/key");
    expect(response.status).toBe(404);
    expectProblem(response);
    const problem = await json<{ detail: string }>(response);
    expect(problem.detail).toContain("CONTACT_EMAIL");
    expect(problem.detail).toContain("https ORIGIN");
    expect(lines.filter((line) => String(line.msg).includes("CONTACT_EMAIL"))).toHaveLength(1);
    await hub.stop();
  });

  test("PUSH_ENABLED=false turns it off even with a contact", async () => {
    const hub = pushHub({ env: { PUSH_ENABLED: "false" } });
    expect((await call(hub, "GET", "/api/v1/push/key")).status).toBe(404);
    await hub.stop();
  });

  test("rotating the key makes a new pair and drops every subscription; a given VAPID_PRIVATE_KEY is never rotated", async () => {
    const hub = pushHub();
    const key = await keyOf(hub);
    await subscribe(hub, await service.subscribe(key));
    expect(hub.ctx.push.rotateKey()).toEqual({ dropped: 1 });
    expect(hub.ctx.push.subscriptions.count).toBe(0);
    expect(await keyOf(hub)).not.toBe(key);
    await hub.stop();
    const given = pushHub({ env: { VAPID_PRIVATE_KEY: Buffer.alloc(32, 7).toString("base64url") } });
    const fixed = await keyOf(given);
    expect(() => given.ctx.push.rotateKey()).toThrow("VAPID_PRIVATE_KEY");
    expect(await keyOf(given)).toBe(fixed);
    await given.stop();
  });

  test("the key pair is made once, kept sealed, and the same after a restart", async () => {
    const dbPath = join(scratch(), "hub.db");
    const first = pushHub({ dbPath });
    const key = await keyOf(first);
    expect(Buffer.from(key, "base64url")).toHaveLength(65);
    const stored = first.ctx.db.sqlite.query<{ private_key: string }, []>("SELECT private_key FROM push_keys").get();
    expect(stored?.private_key.startsWith("v1:")).toBe(true);
    expect(stored?.private_key).not.toContain(first.ctx.push.keys?.privateKey ?? "none");
    await first.stop();
    first.ctx.db.sqlite.close();
    const second = pushHub({ dbPath });
    expect(await keyOf(second)).toBe(key);
    await second.stop();
  });
});

describe("subscriptions", () => {
  const good = { endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys: { p256dh: `B${"A".repeat(86)}`, auth: "A".repeat(22) } };
  const resolvePublic = async () => ["142.250.1.1"];

  function publicHub(env: Record<string, string> = {}): Hub {
    const hub = createHub(testConfig([], { CONTACT_EMAIL: "ops@example.org", ...env }), {
      db: openDatabase(":memory:"),
      log: memoryLog("error").log,
      push: { resolve: resolvePublic, fetch: async () => new Response(null, { status: 201 }) },
    });
    return hub;
  }

  test("bad endpoints get a 400 naming the rule, and nothing is stored", async () => {
    const hub = publicHub();
    const cases: [string, string][] = [
      ["http://fcm.googleapis.com/fcm/send/abc", "https"],
      ["https://push.example.org/abc", "known push service"],
      ["https://127.0.0.1/abc", "known push service"],
      ["not a url", "https"],
    ];
    for (const [endpoint, words] of cases) {
      const response = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, endpoint }) });
      expect(response.status).toBe(400);
      expect((await json<{ detail: string }>(response)).detail).toContain(words);
    }
    expect(hub.ctx.push.subscriptions.count).toBe(0);
  });

  test("a listed host that resolves to a private address is refused by the address guard", async () => {
    const hub = createHub(testConfig([], { CONTACT_EMAIL: "ops@example.org", PUSH_SERVICE_HOSTS: "push.example.org" }), {
      db: openDatabase(":memory:"),
      log: memoryLog("error").log,
      push: { resolve: async () => ["10.0.0.7"] },
    });
    const response = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, endpoint: "https://push.example.org/x" }) });
    expect(response.status).toBe(400);
    expect((await json<{ detail: string }>(response)).detail).toContain("address guard");
  });

  test("malformed bodies: too many rules, an unknown language or region, bad keys", async () => {
    const hub = publicHub();
    const rule = { platform: "Windows", region: null, role: "killer", minBonus: 50 };
    for (const extra of [
      { rules: Array.from({ length: 11 }, () => rule) },
      { rules: [] },
      { lang: "xx" },
      { rules: [{ ...rule, region: "nowhere-1" }] },
      { rules: [{ ...rule, minBonus: 5000 }] },
    ]) {
      const response = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good, extra) });
      expect(response.status).toBe(400);
      expectProblem(response);
    }
    const badKeys = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, keys: { p256dh: "short", auth: "x" } }) });
    expect(badKeys.status).toBe(400);
    expect(hub.ctx.push.subscriptions.count).toBe(0);
  });

  test("the manage token opens a subscription; a wrong or missing one is a 404 like an unknown id", async () => {
    const hub = publicHub();
    const created = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good, { events: true }) });
    expect(created.status).toBe(201);
    const { id, manageToken } = await json<{ id: string; manageToken: string }>(created);
    const path = `/api/v1/push/subscriptions/${id}`;
    for (const headers of [{}, { authorization: "Bearer wrong-token-wrong-token" }] as Record<string, string>[]) {
      const response = await call(hub, "GET", path, { headers });
      expect(response.status).toBe(404);
      expectProblem(response);
    }
    expect((await call(hub, "GET", "/api/v1/push/subscriptions/AAAAAAAAAAAAAAAA", { headers: { authorization: `Bearer ${manageToken}` } })).status).toBe(404);
    const auth = { authorization: `Bearer ${manageToken}` };
    const read = await call(hub, "GET", path, { headers: auth });
    expect(read.status).toBe(200);
    const text = await read.text();
    expect(text).not.toContain("fcm.googleapis.com");
    expect(JSON.parse(text)).toEqual({ id, lang: "en", rules: [{ platform: "Windows", region: "eu-central-1", role: "killer", minBonus: 75 }], events: true });
    const changed = await call(hub, "PUT", path, { headers: auth, body: body(good, { lang: "de", rules: [{ platform: "EGS", region: null, role: "survivor", minBonus: 25 }] }) });
    expect(changed.status).toBe(200);
    expect((await json<{ lang: string }>(changed)).lang).toBe("de");
    expect((await call(hub, "DELETE", path, { headers: { authorization: "Bearer nope-nope-nope-nope" } })).status).toBe(404);
    expect((await call(hub, "DELETE", path, { headers: auth })).status).toBe(204);
    expect((await call(hub, "GET", path, { headers: auth })).status).toBe(404);
  });

  test("the same endpoint again replaces its rules (200)", async () => {
    const hub = publicHub();
    expect((await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good) })).status).toBe(201);
    const again = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good, { lang: "fr" }) });
    expect(again.status).toBe(200);
    expect(hub.ctx.push.subscriptions.count).toBe(1);
  });

  test("five new subscriptions an hour from one address, then 429 with Retry-After", async () => {
    const hub = publicHub();
    for (let i = 0; i < 5; i++) {
      const response = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, endpoint: `${good.endpoint}${i}` }) });
      expect(response.status).toBe(201);
    }
    const refused = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, endpoint: `${good.endpoint}x` }) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(hub.ctx.push.subscriptions.count).toBe(5);
  });

  test("past MAX_PUSH_SUBSCRIPTIONS a new subscription gets 503", async () => {
    const hub = publicHub({ MAX_PUSH_SUBSCRIPTIONS: "1" });
    expect((await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good) })).status).toBe(201);
    const refused = await call(hub, "POST", "/api/v1/push/subscriptions", { body: body({ ...good, endpoint: `${good.endpoint}2` }) });
    expect(refused.status).toBe(503);
    expectProblem(refused);
  });

  test("the console's summary counts subscriptions and sends, never showing an endpoint; admins only", async () => {
    const { hub, admin } = await adminHub({ CONTACT_EMAIL: "ops@example.org" });
    expect((await call(hub, "GET", "/api/v1/admin/push")).status).toBe(401);
    hub.ctx.push.subscriptions.create({ ...good, lang: "en", events: false, rules: [{ platform: "Windows", region: null, role: "killer", minBonus: 50 }] }, Date.now());
    hub.ctx.db.sqlite.query("UPDATE push_subscriptions SET failing_since = ?").run(Date.now());
    const response = await admin.request("GET", "/api/v1/admin/push");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain("fcm.googleapis.com");
    expect(JSON.parse(text)).toEqual({ enabled: true, offReason: null, subscriptions: 1, failing: 1, pending: 0, delivered24h: 0, failed24h: 0 });
    const off = await adminHub();
    expect((await off.admin.json("GET", "/api/v1/admin/push")).body).toMatchObject({ enabled: false, offReason: expect.stringContaining("CONTACT_EMAIL") });
  });

  test("with requireAuth on, subscribing needs a signed-in session", async () => {
    const hub = publicHub({ REQUIRE_AUTH: "true" });
    expect((await call(hub, "POST", "/api/v1/push/subscriptions", { body: body(good) })).status).toBe(401);
    expect((await call(hub, "GET", "/api/v1/push/key")).status).toBe(401);
  });
});

describe("delivery to a real push service", () => {
  const region = "eu-central-1";

  /** Each reading from an agent of its own, so the agents' spacing rule never refuses one. */
  async function fire(hub: Hub, killer: number, at: number): Promise<void> {
    const response = await post(hub, addAgent(hub, region), reading("Windows", region, at, { killer }));
    expect(response.status).toBeLessThan(300);
  }

  test("a rule that becomes true sends one message, decrypted by the service, with TTL, Urgency, Topic and a VAPID JWT", async () => {
    const hub = pushHub({ env: { METRICS_TOKEN: "metrics-token-0123456789" } });
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription, { rules: [
      { platform: "Windows", region, role: "killer", minBonus: 75 },
      { platform: "Windows", region: null, role: "killer", minBonus: 50 },
    ] });
    const start = Date.now() - 60_000;
    await fire(hub, 25, start);
    await fire(hub, 100, start + 10_000);
    await settle(hub, async () => (await service.messages(subscription.clientHash)).length >= 1);
    const [text] = await service.messages(subscription.clientHash);
    const message = JSON.parse(text ?? "{}") as { title: string; body: string; url: string; tag: string };
    expect(message.title).toBe("EU Central (Frankfurt), Steam: Killer bonus +100%");
    expect(message.body).toContain("×2");
    expect(message.url).toBe(`${hub.ctx.config.origin}/Windows/${region}`);
    const recorded = service.recorded.filter((r) => r.path.endsWith(subscription.clientHash));
    expect(recorded).toHaveLength(1);
    const headers = recorded[0]?.headers ?? {};
    expect(Number(headers.ttl)).toBeGreaterThan(890);
    expect(Number(headers.ttl)).toBeLessThanOrEqual(900);
    expect(headers.urgency).toBe("high");
    expect(headers.topic).toBe(message.tag);
    expect(headers["content-encoding"]).toBe("aes128gcm");
    const claims = vapidClaims(headers.authorization ?? "");
    expect(claims.aud).toBe(`https://localhost:${service.port}`);
    expect(claims.sub).toBe("mailto:ops@example.org");
    expect(claims.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 12 * 3600);
    expect(claims.key).toBe(await keyOf(hub));
    // Still true: nothing more; false then true again: one more.
    await fire(hub, 125, start + 20_000);
    await fire(hub, 0, start + 30_000);
    await fire(hub, 75, start + 40_000);
    await settle(hub, async () => (await service.messages(subscription.clientHash)).length >= 2);
    await Bun.sleep(100);
    await hub.ctx.push.idle();
    expect(await service.messages(subscription.clientHash)).toHaveLength(2);
    const metrics = await (await call(hub, "GET", "/metrics", { headers: { authorization: "Bearer metrics-token-0123456789" } })).text();
    expect(metrics).toContain('hub_push_sent_total{result="delivered"} 2');
    expect(metrics).toContain("hub_push_subscriptions 1");
    expect(metrics).toContain("hub_push_send_seconds_count 2");
    expect(metrics).not.toContain(subscription.clientHash);
    await hub.stop();
  });

  test("a reading that reaches more subscriptions than one chunk sends exactly one message to each", async () => {
    const hits = new Map<string, number>();
    const hub = createHub(testConfig([], PUSH_ENV), {
      db: openDatabase(":memory:"),
      log: memoryLog("error").log,
      push: {
        resolve: async () => ["127.0.0.1"],
        fetch: async (_url, init) => {
          const path = String(new Headers(init.headers).get("host")) + String(new URL(_url).pathname);
          hits.set(path, (hits.get(path) ?? 0) + 1);
          return new Response(null, { status: 201 });
        },
      },
    });
    hub.start();
    const key = await service.subscribe(await keyOf(hub));
    const count = 600;
    for (let i = 0; i < count; i++) {
      hub.ctx.push.subscriptions.create({ endpoint: `https://localhost/push/${i}`, keys: key.keys, lang: "en", events: false, rules: [{ platform: "Windows", region, role: "killer", minBonus: 50 }] }, Date.now());
    }
    await fire(hub, 100, Date.now() - 1000);
    await settle(hub, async () => hits.size >= count);
    await Bun.sleep(100);
    await hub.ctx.push.idle();
    expect(hits.size).toBe(count);
    expect([...hits.values()].every((n) => n === 1)).toBe(true);
    await hub.stop();
  });

  test("the message is in the subscription's language", async () => {
    const hub = pushHub();
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription, { lang: "de" });
    await fire(hub, 100, Date.now() - 1000);
    await settle(hub, async () => (await service.messages(subscription.clientHash)).length >= 1);
    const message = JSON.parse((await service.messages(subscription.clientHash))[0] ?? "{}") as { title: string; body: string };
    expect(message.title).toBe("EU Central (Frankfurt), Steam: Bonus als Killer +100 %");
    expect(message.body).toContain("Blutpunkte");
    await hub.stop();
  });

  test("events: true also sends an event starting on the rules' platforms, once; others hear nothing of it", async () => {
    const hub = pushHub();
    const key = await keyOf(hub);
    const following = await service.subscribe(key);
    const other = await service.subscribe(key);
    await subscribe(hub, following, { events: true });
    await subscribe(hub, other, { events: true, rules: [{ platform: "EGS", region: null, role: "killer", minBonus: 50 }] });
    const quiet = await service.subscribe(key);
    await subscribe(hub, quiet);
    const now = Date.now();
    new EventAdmin(hub.ctx.db, hub.ctx.events, hub.ctx.live, hub.ctx.now).create(CLI_ACTOR, {
      key: "double-bp",
      label: "Double Bloodpoints",
      multiplier: 2,
      startsAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      platforms: ["Windows"],
    });
    await settle(hub, async () => (await service.messages(following.clientHash)).length >= 1);
    const message = JSON.parse((await service.messages(following.clientHash))[0] ?? "{}") as { title: string; body: string; url: string };
    expect(message.title).toBe("Double Bloodpoints has started on Steam");
    expect(message.body).toBe("×2 bloodpoints for everyone.");
    expect(new URL(message.url).pathname).toBe("/Windows");
    await post(hub, addAgent(hub, region), reading("Windows", region, Date.now() - 1000, { killer: 10 }));
    await Bun.sleep(100);
    await hub.ctx.push.idle();
    expect(await service.messages(following.clientHash)).toHaveLength(1);
    expect(await service.messages(other.clientHash)).toHaveLength(0);
    expect(await service.messages(quiet.clientHash)).toHaveLength(0);
    await hub.stop();
  });

  test("410 from the service removes the subscription", async () => {
    const hub = pushHub();
    const subscription = await service.subscribe(await keyOf(hub));
    const { id, manageToken } = await subscribe(hub, subscription);
    await service.expire(subscription.clientHash);
    await fire(hub, 100, Date.now() - 1000);
    await settle(hub, async () => hub.ctx.push.subscriptions.count === 0);
    expect((await call(hub, "GET", `/api/v1/push/subscriptions/${id}`, { headers: { authorization: `Bearer ${manageToken}` } })).status).toBe(404);
    expect(hub.ctx.push.metricsText()).toContain('hub_push_sent_total{result="gone"} 1');
    await hub.stop();
  });

  test("429 and 503 are retried, honouring Retry-After, and then delivered", async () => {
    const hub = pushHub();
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription);
    service.forced.push({ status: 429, headers: { "retry-after": "1" } }, { status: 503 });
    const before = service.recorded.length;
    const started = Date.now();
    await fire(hub, 100, Date.now() - 1000);
    await settle(hub, async () => (await service.messages(subscription.clientHash)).length >= 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(service.recorded.slice(before).map((r) => r.status)).toEqual([429, 503, 201]);
    await hub.stop();
  });

  test("no retry is planned past the TTL: the message is given up, never sent late", async () => {
    const hub = pushHub();
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription);
    service.forced.push({ status: 503, headers: { "retry-after": "3600" } });
    const before = service.recorded.length;
    await fire(hub, 100, Date.now() - 1000);
    await settle(hub, async () => hub.ctx.push.metricsText().includes('hub_push_sent_total{result="expired"} 1'));
    await Bun.sleep(300);
    await hub.ctx.push.idle();
    expect(service.recorded.slice(before)).toHaveLength(1);
    expect(await service.messages(subscription.clientHash)).toHaveLength(0);
    await hub.stop();
  });

  test("a message still waiting when the hub restarts past its TTL is never sent", async () => {
    const dbPath = join(scratch(), "hub.db");
    let clock = Date.now();
    const first = pushHub({ dbPath, now: () => clock });
    const subscription = await service.subscribe(await keyOf(first));
    await subscribe(first, subscription);
    service.forced.push({ status: 503, headers: { "retry-after": "60" } });
    const before = service.recorded.length;
    await fire(first, 100, clock - 1000);
    await settle(first, async () => service.recorded.length > before);
    await first.ctx.push.idle();
    await first.stop();
    first.ctx.db.sqlite.close();
    expect(first.ctx.push.metricsText()).toContain('hub_push_sent_total{result="retry"} 1');
    clock += 20 * 60_000;
    const second = pushHub({ dbPath, now: () => clock });
    await settle(second, async () => second.ctx.push.metricsText().includes('hub_push_sent_total{result="expired"} 1'));
    await Bun.sleep(200);
    await second.ctx.push.idle();
    expect(service.recorded.length).toBe(before + 1);
    expect(await service.messages(subscription.clientHash)).toHaveLength(0);
    await second.stop();
  });

  test("400 marks the subscription failing, logged once with the service's answer and never the endpoint", async () => {
    const { log, lines } = memoryLog("debug");
    const hub = pushHub({ log });
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription);
    service.forced.push({ status: 400, body: "bad crypto" }, { status: 400, body: "bad crypto" });
    const start = Date.now() - 60_000;
    await fire(hub, 100, start);
    await fire(hub, 0, start + 10_000);
    await fire(hub, 100, start + 20_000);
    await settle(hub, async () => hub.ctx.push.metricsText().includes('hub_push_sent_total{result="failed"} 2'));
    const failing = lines.filter((line) => String(line.msg).includes("refused a subscription's message"));
    expect(failing).toHaveLength(1);
    expect(JSON.stringify(failing[0])).toContain("bad crypto");
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain(subscription.clientHash);
    const row = hub.ctx.db.sqlite.query<{ failing_since: number | null }, []>("SELECT failing_since FROM push_subscriptions").get();
    expect(row?.failing_since).not.toBeNull();
    await hub.stop();
  });
  test("a service's answer is logged with its URLs and token-like runs replaced, at most 200 characters (SPEC §16.4)", async () => {
    const { log, lines } = memoryLog("debug");
    const hub = pushHub({ log });
    const subscription = await service.subscribe(await keyOf(hub));
    await subscribe(hub, subscription);
    const token = "dGhpcy1pcy1hLWRldmljZS1jcmVkZW50aWFs";
    const echo = `bad crypto for ${subscription.endpoint} (auth ${token}, key ${subscription.keys.p256dh}) ${"and more words ".repeat(30)}`;
    service.forced.push({ status: 400, body: echo });
    await fire(hub, 100, Date.now() - 60_000);
    await settle(hub, async () => hub.ctx.push.metricsText().includes('hub_push_sent_total{result="failed"} 1'));
    const [failing] = lines.filter((line) => String(line.msg).includes("refused a subscription's message"));
    const answer = String((failing as { answer?: unknown } | undefined)?.answer);
    expect(answer).toStartWith("HTTP 400: bad crypto for … (auth …, key …)");
    expect(answer.length).toBeLessThanOrEqual(200);
    const everything = JSON.stringify(lines);
    for (const secret of [subscription.endpoint, new URL(subscription.endpoint).pathname, token, subscription.keys.p256dh, subscription.clientHash]) expect(everything).not.toContain(secret);
    const stored = hub.ctx.db.sqlite.query<{ failure: string }, []>("SELECT failure FROM push_subscriptions").get();
    expect(stored?.failure).toBe(answer);
    await hub.stop();
  });

  test("a subscription still failing 7 days after it was marked is deleted; one delivered to again is not failing any more (SPEC §16.4)", async () => {
    let clock = Date.now();
    const { log, lines } = memoryLog("info");
    const hub = pushHub({ log, now: () => clock });
    const key = await keyOf(hub);
    const [stale, recovered, recent] = [await service.subscribe(key), await service.subscribe(key), await service.subscribe(key)];
    await subscribe(hub, stale);
    await subscribe(hub, recovered);
    // Not reached by the reading below, so nothing delivered to it ends its failing.
    await subscribe(hub, recent, { rules: [{ platform: "EGS", region, role: "killer", minBonus: 75 }] });
    const ids = hub.ctx.db.sqlite.query<{ id: number }, []>("SELECT id FROM push_subscriptions ORDER BY id").all().map((row) => row.id);
    const DAY = 24 * 3_600_000;
    const mark = hub.ctx.db.sqlite.query<unknown, [number, number]>("UPDATE push_subscriptions SET failing_since = ?, failure = 'HTTP 400' WHERE id = ?");
    mark.run(clock - 7 * DAY - 1000, ids[0] ?? 0);
    mark.run(clock - 7 * DAY - 1000, ids[1] ?? 0);
    mark.run(clock - 6 * DAY, ids[2] ?? 0);
    // The second one is delivered to before the sweep looks: it works again.
    hub.ctx.push.subscriptions.working(ids[1] ?? 0);
    clock += 2000;
    await fire(hub, 100, clock - 60_000);
    await settle(hub, async () => hub.ctx.push.subscriptions.count === 2);
    const left = hub.ctx.db.sqlite.query<{ id: number; failing_since: number | null }, []>("SELECT id, failing_since FROM push_subscriptions ORDER BY id").all();
    expect(left.map((row) => row.id)).toEqual([ids[1] ?? 0, ids[2] ?? 0]);
    expect(left[0]?.failing_since).toBeNull();
    expect(left[1]?.failing_since).not.toBeNull();
    expect(lines.some((line) => String(line.msg).includes("refused by their push service for 7 days were deleted") && (line as { deleted?: unknown }).deleted === 1)).toBe(true);
    await hub.stop();
  });
});

describe("with requireAuth on, a subscription belongs to its user (SPEC §16.4)", () => {
  const region = "eu-central-1";
  const rules = [{ platform: "Windows", region, role: "killer", minBonus: 50 }];

  test("disabling, deleting or resetting the password of its user deletes it; no delivery reaches it after", async () => {
    const hub = pushHub({ env: { REQUIRE_AUTH: "true", MFA_ENFORCED_ROLES: "" } });
    const admin = new Browser(hub);
    expect((await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: "correct horse battery" })).status).toBe(201);
    await admin.session();
    const key = (await admin.json<{ publicKey: string }>("GET", "/api/v1/push/key")).body.publicKey;
    const people: { name: string; id: number; browser: Browser; subscription: TestSubscription }[] = [];
    for (const name of ["dana", "eli", "fay", "gus"]) {
      const created = await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: name, role: "user", password: "a long enough password" });
      expect(created.status).toBe(201);
      const browser = new Browser(hub, `203.0.113.${20 + people.length}`);
      expect((await browser.login(name, "a long enough password")).status).toBe(200);
      const subscription = await service.subscribe(key);
      const made = await browser.json("POST", "/api/v1/push/subscriptions", { subscription: { endpoint: subscription.endpoint, keys: subscription.keys }, lang: "en", rules });
      expect(made.status).toBe(201);
      people.push({ name, id: created.body.user.id, browser, subscription });
    }
    const owners = () => hub.ctx.db.sqlite.query<{ user_id: number | null }, []>("SELECT user_id FROM push_subscriptions ORDER BY user_id").all().map((row) => row.user_id);
    expect(owners()).toEqual(people.map((person) => person.id));
    const [dana, eli, fay, gus] = people;
    if (!dana || !eli || !fay || !gus) throw new Error("four users");
    expect((await admin.json("PATCH", `/api/v1/admin/users/${dana.id}`, { enabled: false })).status).toBe(200);
    expect((await admin.json("DELETE", `/api/v1/admin/users/${eli.id}`)).status).toBe(204);
    expect((await admin.json("PATCH", `/api/v1/admin/users/${fay.id}`, { password: "another long password" })).status).toBe(200);
    expect(owners()).toEqual([gus.id]);
    expect(hub.ctx.push.subscriptions.count).toBe(1);

    const agent = addAgent(hub, region);
    expect((await post(hub, agent, reading("Windows", region, Date.now() - 60_000, { killer: 100 }))).status).toBe(201);
    await settle(hub, async () => (await service.messages(gus.subscription.clientHash)).length === 1);
    for (const person of [dana, eli, fay]) expect(await service.messages(person.subscription.clientHash)).toHaveLength(0);
    await hub.stop();
  });

  test("while sign-in is not required, a subscription belongs to no one and outlives its maker's account", async () => {
    const hub = pushHub({ env: { MFA_ENFORCED_ROLES: "" } });
    const admin = new Browser(hub);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: "correct horse battery" });
    await admin.session();
    const created = await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "hal", role: "user", password: "a long enough password" });
    const browser = new Browser(hub, "203.0.113.40");
    await browser.login("hal", "a long enough password");
    const subscription = await service.subscribe(await keyOf(hub));
    expect((await browser.json("POST", "/api/v1/push/subscriptions", { subscription: { endpoint: subscription.endpoint, keys: subscription.keys }, lang: "en", rules })).status).toBe(201);
    expect((await admin.json("DELETE", `/api/v1/admin/users/${created.body.user.id}`)).status).toBe(204);
    expect(hub.ctx.push.subscriptions.count).toBe(1);
    await hub.stop();
  });
});
