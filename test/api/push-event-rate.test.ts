/**
 * Event pushes to one subscription are at most six an hour (SPEC §16.3,
 * §23), judged by the same limiter as the webhooks' event alerts but on a
 * budget of their own: a flood of valid events from one agent token, sent
 * through a real push service (web-push-testing behind a TLS front), and
 * the summary of what was held back in the next push allowed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import type { Fetcher } from "../../src/alerts/transport.ts";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import { call, json, memoryLog, scratchDirs, testConfig } from "../helpers.ts";
import { addAgent, type TestAgent } from "../live-helpers.ts";
import { PushService, type TestSubscription } from "../push-service.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();
const scratch = scratchDirs();
const PUSH_ENV = { CONTACT_EMAIL: "ops@example.org", PUSH_SERVICE_HOSTS: "localhost", WEBHOOK_ALLOW_PRIVATE: "true" };
const HELD_BACK = "Event alerts held back (at most 6 an hour)";
let service: PushService;

beforeAll(async () => {
  service = await PushService.start(scratch());
});
afterAll(() => service.stop());

function world(dbPath = ":memory:", start = Date.now()) {
  let clock = start;
  const trusting: Fetcher = (url, init) => fetch(url, { ...init, tls: { ...init.tls, ca: service.cert } });
  const hub = createHub(testConfig([], PUSH_ENV), {
    db: openDatabase(dbPath),
    log: memoryLog("error").log,
    now: () => clock,
    push: { fetch: trusting, resolve: async () => ["127.0.0.1"], policy: { backoffMs: [200, 400] }, random: () => 0.5 },
    // Webhook deliveries are answered here: only the rows they leave in the outbox are looked at.
    alerts: { fetch: async () => new Response(null, { status: 204 }), resolve: async () => ["127.0.0.1"] },
  });
  hub.start();
  return {
    hub,
    now: () => clock,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

async function subscribe(hub: Hub, subscription: TestSubscription): Promise<{ id: string; manageToken: string }> {
  const response = await call(hub, "POST", "/api/v1/push/subscriptions", {
    body: { subscription: { endpoint: subscription.endpoint, keys: subscription.keys }, lang: "en", events: true, rules: [{ platform: "Windows", region: null, role: "killer", minBonus: 75 }] },
  });
  expect(response.status).toBe(201);
  return await json<{ id: string; manageToken: string }>(response);
}

const report = (hub: Hub, agent: TestAgent, events: unknown[]) => call(hub, "POST", "/api/v1/agent/events", { body: { events }, headers: { authorization: `Bearer ${agent.token}` } });

/** An event in force from a minute ago for half an hour: long enough for the report bounds, each with its own key. */
const eventNow = (now: number, i: number) => ({ key: `FLOOD_${i}`, label: `Flood ${i}`, multiplier: 2 + (i % 50), startsAt: iso(now - MINUTE), endsAt: iso(now + 30 * MINUTE) });

/** One agent token (Steam, so Windows) reporting a new event every 15 s: each report starts another event on the subscribed platform. */
async function flood(hub: Hub, agent: TestAgent, now: () => number, advance: (ms: number) => void, reports: number, from = 0) {
  for (let i = from; i < from + reports; i++) {
    expect((await report(hub, agent, [eventNow(now(), i)])).status).toBe(204);
    await Bun.sleep(FLUSH_SPACING_MS + 5);
    await hub.ctx.push.idle();
    advance(15_000);
  }
}

/** What the service holds for a subscription once nothing is left to send and the expected count (at least) arrived. */
async function received(hub: Hub, subscription: TestSubscription, atLeast: number): Promise<{ title: string; body: string }[]> {
  for (let i = 0; i < 400; i++) {
    await hub.ctx.push.idle();
    const messages = await service.messages(subscription.clientHash);
    if (messages.length >= atLeast && hub.ctx.db.sqlite.query("SELECT 1 FROM push_batches").get() === null) {
      return messages.map((text) => JSON.parse(text) as { title: string; body: string });
    }
    await Bun.sleep(25);
  }
  throw new Error("the pushes did not settle in time");
}

const eventDeliveries = (hub: Hub): number =>
  hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE type IN ('event.started', 'event.ended')").get()?.n ?? 0;

describe("event pushes to one subscription are at most 6 per hour", () => {
  test("10 events starting give 6 pushes within the hour; the next one allowed after it says how many were held back; a webhook's budget is its own", async () => {
    const { hub, now, advance } = world();
    const key = (await json<{ publicKey: string }>(await call(hub, "GET", "/api/v1/push/key"))).publicKey;
    const device = await service.subscribe(key);
    await subscribe(hub, device);
    await hub.ctx.alerts.admin.create({ userId: null, name: "test", via: "config" }, { url: "https://hooks.example.org/x", format: "json", onEvents: true });
    const agent = addAgent(hub, "eu-west-1");

    await flood(hub, agent, now, advance, 10);
    const first = await received(hub, device, 6);
    expect(first.map((message) => message.title)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `Flood ${i} has started on Steam`));
    expect(first.every((message) => !message.body.includes(HELD_BACK))).toBe(true);
    // The webhook had its own six (each report ends one event and starts another there): the push subscription's took none of them.
    expect(eventDeliveries(hub)).toBe(6);

    advance(HOUR);
    await flood(hub, agent, now, advance, 1, 10);
    const all = await received(hub, device, 7);
    expect(all).toHaveLength(7);
    expect(all[6]?.title).toBe("Flood 10 has started on Steam");
    expect(all[6]?.body).toBe(`×12 bloodpoints for everyone. ${HELD_BACK}: 4.`);
    await hub.stop();
  });

  test("the limit holds across a restart: the event pushes of the last hour still count; deleting a subscription forgets its budget", async () => {
    const dbPath = join(scratch(), "hub.db");
    const first = world(dbPath);
    const key = (await json<{ publicKey: string }>(await call(first.hub, "GET", "/api/v1/push/key"))).publicKey;
    const device = await service.subscribe(key);
    const { id, manageToken } = await subscribe(first.hub, device);
    const agent = addAgent(first.hub, "eu-west-1");
    await flood(first.hub, agent, first.now, first.advance, 4);
    expect(await received(first.hub, device, 4)).toHaveLength(4);
    await first.hub.stop();
    first.hub.ctx.db.sqlite.close();

    const second = world(dbPath, first.now());
    await flood(second.hub, agent, second.now, second.advance, 4, 4);
    expect(await received(second.hub, device, 6)).toHaveLength(6);
    const internalId = second.hub.ctx.push.subscriptions.findByEndpoint(device.endpoint)?.id;
    expect(internalId).toBeDefined();
    expect(second.hub.ctx.alerts.eventRate.begin(second.now()).admit(`push:${internalId}`).send).toBe(false);

    expect((await call(second.hub, "DELETE", `/api/v1/push/subscriptions/${id}`, { headers: { authorization: `Bearer ${manageToken}` } })).status).toBe(204);
    expect(second.hub.ctx.alerts.eventRate.begin(second.now()).admit(`push:${internalId}`)).toEqual({ send: true, heldBack: null });
    await second.hub.stop();
    second.hub.ctx.db.sqlite.close();
  });
});
