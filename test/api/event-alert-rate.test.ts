/**
 * Event alerts to one webhook are at most six an hour (SPEC §16.3): the
 * review's flood, with events long enough to pass the report bounds, and
 * the summary of what was held back in the next message allowed.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import type { Hub } from "../../src/hub.ts";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, memoryLog, scratchDirs, testHub } from "../helpers.ts";
import { addAgent, type TestAgent } from "../live-helpers.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.parse("2026-11-27T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const scratch = scratchDirs();

// A changed payload is pushed at most FLUSH_SPACING_MS after the one before it; alerts are judged right after.
const settle = () => Bun.sleep(FLUSH_SPACING_MS + 5);

interface Delivery {
  type: string;
  createdAt: number;
  data: { key: string; heldBack?: { count: number; since: string } };
}

const deliveries = (hub: Hub, webhookId: number): Delivery[] =>
  hub.ctx.db.sqlite
    .query<{ type: string; payload: string; created_at: number }, [number]>("SELECT type, payload, created_at FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id")
    .all(webhookId)
    .map((row) => ({ type: row.type, createdAt: row.created_at, data: (JSON.parse(row.payload) as { data: Delivery["data"] }).data }));

const report = (hub: Hub, agent: TestAgent, events: unknown[]) => call(hub, "POST", "/api/v1/agent/events", { body: { events }, headers: { authorization: `Bearer ${agent.token}` } });

/** An event in force from a minute ago for half an hour: long enough for the bounds, each with its own key. */
const eventNow = (now: number, i: number) => ({ key: `FLOOD_${i}`, label: `Flood ${i}`, multiplier: 2 + (i % 50), startsAt: iso(now - MINUTE), endsAt: iso(now + 30 * MINUTE) });

async function world(path?: string) {
  let clock = START;
  const env = { WEBHOOK_ALLOW_PRIVATE: "true" };
  const log = memoryLog("warn");
  const { hub, admin } = path ? { hub: testHub({ env, now: () => clock, db: openDatabase(path), log: log.log }), admin: null } : await adminHub(env, () => clock);
  return {
    hub,
    admin,
    log,
    now: () => clock,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

/** One agent token reporting a new schedule every 15 s: each report ends the event in force and starts another, on every webhook. */
async function flood(hub: Hub, agent: TestAgent, now: () => number, advance: (ms: number) => void, reports: number, from = 0) {
  for (let i = from; i < from + reports; i++) {
    expect((await report(hub, agent, [eventNow(now(), i)])).status).toBe(204);
    await settle();
    advance(15_000);
  }
}

describe("event alerts to one webhook are at most 6 per hour", () => {
  test("a flood of valid-length events from one agent token gives each webhook 6 event deliveries an hour; the next one allowed sums up the rest", async () => {
    const { hub, admin, now, advance } = await world();
    if (!admin) throw new Error("an admin is needed to make webhooks");
    const hook = async (body: Record<string, unknown>) =>
      (await admin.json<{ webhook: { id: number } }>("POST", "/api/v1/admin/webhooks", { url: "https://hooks.example.org/x", format: "json", onEvents: true, ...body })).body.webhook.id;
    const all = await hook({});
    const egs = await hook({ platforms: ["EGS"], format: "discord" });
    const bonus = await hook({ onEvents: false, minBonus: 10 });
    const agent = addAgent(hub, "eu-west-1");

    // 20 reports: 1 start, then an end and a start each, 39 event changes in under 5 minutes.
    await flood(hub, agent, now, advance, 20);
    for (const webhook of [all, egs]) {
      const sent = deliveries(hub, webhook);
      expect(sent).toHaveLength(6);
      expect(sent.every((d) => d.type.startsWith("event.") && d.data.heldBack === undefined)).toBe(true);
    }
    expect(deliveries(hub, bonus)).toEqual([]);

    // An hour after the first, the budget has room again: the next change goes out, saying how many were held back since when.
    advance(HOUR);
    await flood(hub, agent, now, advance, 1, 20);
    const sent = deliveries(hub, all);
    expect(sent).toHaveLength(8);
    const [first, second] = sent.slice(6);
    expect(first?.type).toBe("event.ended");
    expect(first?.data.heldBack).toEqual({ count: 33, since: iso(START + 3 * 15_000) });
    expect(second?.data.heldBack).toBeUndefined();
    const discord = deliveries(hub, egs)[6];
    expect(discord?.data.heldBack?.count).toBe(33);
  });

  test("the limit holds across a restart: what went out in the last hour still counts; the log says once that a webhook is holding back", async () => {
    const path = join(scratch(), "hub.db");
    const first = await world(path);
    const made = await first.hub.ctx.alerts.admin.create({ userId: null, name: "test", via: "config" }, { url: "https://hooks.example.org/x", format: "json", onEvents: true });
    const agent = addAgent(first.hub, "eu-west-1");
    await flood(first.hub, agent, first.now, first.advance, 3);
    expect(deliveries(first.hub, made.webhook.id)).toHaveLength(5);
    await first.hub.stop();
    first.hub.ctx.db.sqlite.close();

    const second = await world(path);
    second.advance(first.now() - START);
    await flood(second.hub, agent, second.now, second.advance, 5, 3);
    expect(deliveries(second.hub, made.webhook.id)).toHaveLength(6);
    // The operator is told once that the webhook began holding back, not per alert held.
    const holding = second.log.lines.filter((line) => String(line.msg).startsWith("event alerts to a webhook are over their hourly limit"));
    expect(holding).toEqual([expect.objectContaining({ level: "warn", webhookId: made.webhook.id, limit: 6 })]);
    await second.hub.stop();
    second.hub.ctx.db.sqlite.close();
  });
});
