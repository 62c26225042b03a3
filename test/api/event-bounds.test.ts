/**
 * The bounds SPEC §16.3 puts on what agents say about events: a report's
 * entries (how many, how long, how far ahead), a reading's activeEvent
 * multiplier, and the public list showing every kept event.
 */
import { describe, expect, test } from "bun:test";
import type { Hub } from "../../src/hub.ts";
import { call, expectProblem, json, memoryLog, testHub } from "../helpers.ts";
import { addAgent, post, reading, type ListedEvent, type TestAgent } from "../live-helpers.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const START = Date.parse("2026-11-27T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const METRICS_TOKEN = "metrics-token-for-event-bounds";

function world(log?: ReturnType<typeof memoryLog>) {
  let clock = START;
  const hub = testHub({ now: () => clock, log: log?.log, env: { METRICS_TOKEN } });
  return { hub, now: () => clock, advance: (ms: number) => (clock += ms) };
}

const report = (hub: Hub, agent: TestAgent, body: unknown) => call(hub, "POST", "/api/v1/agent/events", { body, headers: { authorization: `Bearer ${agent.token}` } });
const storedKeys = (hub: Hub) => hub.ctx.db.sqlite.query<{ key: string }, []>("SELECT key FROM events WHERE source = 'agent' ORDER BY id").all().map((row) => row.key);
const listed = async (hub: Hub) => (await json<{ events: ListedEvent[] }>(await call(hub, "GET", "/api/v1/events"))).events;
const entry = (key: string, startsAt: number, endsAt: number) => ({ key, label: key, multiplier: 2, startsAt: iso(startsAt), endsAt: iso(endsAt) });

describe("agent event reports are bounded (SPEC §16.3)", () => {
  test("at most the first 50 entries are read; the rest are counted as unread", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const events = Array.from({ length: 60 }, (_, i) => entry(`e${i}`, now() + i * HOUR, now() + (i + 1) * HOUR));
    expect((await report(hub, agent, { events })).status).toBe(204);
    const keys = storedKeys(hub);
    expect(keys).toHaveLength(50);
    expect(keys).toContain("e49");
    expect(keys).not.toContain("e50");
    const metrics = await (await call(hub, "GET", "/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('hub_event_entries_skipped_total{reason="unread"} 10');
  });

  test("an entry is skipped unless it lasts 10 minutes to 31 days and starts at most 60 days ahead; the report still answers 204", async () => {
    const log = memoryLog("warn");
    const { hub, now } = world(log);
    const agent = addAgent(hub, "eu-west-1");
    const t = now();
    const response = await report(hub, agent, {
      events: [
        entry("short", t, t + 10 * MINUTE - 1),
        entry("shortest-kept", t, t + 10 * MINUTE),
        entry("longest-kept", t, t + 31 * DAY),
        entry("long", t + HOUR, t + HOUR + 31 * DAY + 1),
        entry("until-2036", t, Date.parse("2036-01-01T00:00:00Z")),
        entry("farthest-kept", t + 60 * DAY, t + 61 * DAY),
        entry("far", t + 60 * DAY + 1, t + 61 * DAY),
      ],
    });
    expect(response.status).toBe(204);
    expect(storedKeys(hub)).toEqual(["shortest-kept", "longest-kept", "farthest-kept"]);
    const warning = log.lines.find((line) => line.msg === "an agent's event report had entries that were skipped");
    expect(warning).toMatchObject({ skipped: 4, reasons: { duration: 3, ahead: 1 } });
    const metrics = await (await call(hub, "GET", "/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('hub_event_entries_skipped_total{reason="duration"} 3');
  });

  test("the review's flood (200 events of 100 ms each) is read as 50 skipped entries and schedules nothing", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const events = Array.from({ length: 200 }, (_, i) => ({ ...entry(`flash-${i}`, now() + i * 100, now() + (i + 1) * 100), multiplier: 100 }));
    expect((await report(hub, agent, { events })).status).toBe(204);
    expect(storedKeys(hub)).toEqual([]);
  });

  test("the OpenAPI document states the bounds on the report's entries", async () => {
    const doc = await json<{ components: { schemas: Record<string, { description?: string; properties: Record<string, { description?: string; maxItems?: number }> }> } }>(
      await call(testHub(), "GET", "/openapi.json"),
    );
    const report = doc.components.schemas.EventReport;
    expect(report?.properties.events?.description).toContain("first 50 entries");
    expect(report?.description).toContain("at least 10 minutes and at most 31 days");
    expect(report?.description).toContain("at most 60 days ahead");
  });
});

describe("a reading's activeEvent.multiplier is bounded 1–100 (SPEC §16.3)", () => {
  const activeEvent = (multiplier: number) => ({ key: "bp", label: "Bloodpoints", multiplier, startsAt: iso(START - HOUR), endsAt: iso(START + HOUR) });

  test("out of bounds is a 400 problem naming the field, and nothing is stored; 1 and 100 are accepted", async () => {
    for (const multiplier of [1e308, 100.5, 0.5, 0]) {
      const { hub, now } = world();
      const agent = addAgent(hub, "eu-west-1");
      const response = await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent: activeEvent(multiplier) }));
      expect({ multiplier, status: response.status }).toEqual({ multiplier, status: 400 });
      expectProblem(response);
      const problem = await json<{ detail: string; errors: { location: string }[] }>(response);
      expect(problem.detail).toContain("activeEvent.multiplier");
      expect(problem.errors[0]?.location).toBe("body.activeEvent.multiplier");
      expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM readings").get()?.n).toBe(0);
    }
    for (const multiplier of [1, 100]) {
      const { hub, now } = world();
      const agent = addAgent(hub, "eu-west-1");
      expect((await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent: activeEvent(multiplier) }))).status).toBe(201);
      expect((await json<{ activeEvent: { multiplier: number } }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).activeEvent.multiplier).toBe(multiplier);
    }
  });

  test("the OpenAPI document declares the bound on the reading's activeEvent.multiplier", async () => {
    type Schema = { properties?: Record<string, Schema>; allOf?: Schema[]; minimum?: number; maximum?: number };
    const doc = await json<{ components: { schemas: Record<string, Schema> } }>(await call(testHub(), "GET", "/openapi.json"));
    const event = doc.components.schemas.ReadingSubmission?.properties?.activeEvent;
    const multiplier = event?.properties?.multiplier ?? event?.allOf?.find((part) => part.properties?.multiplier)?.properties?.multiplier;
    expect(multiplier).toMatchObject({ minimum: 1, maximum: 100 });
  });
});

describe("a reading's activeEvent has a report entry's bounds (SPEC §16.4)", () => {
  test("×100 until the year 9999 is a 400 naming the rule; nothing is stored and the platform shows no event", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const activeEvent = { key: "bp", label: "Bloodpoints", multiplier: 100, startsAt: iso(now() - MINUTE), endsAt: "9999-12-31T00:00:00Z" };
    const response = await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent }));
    expect(response.status).toBe(400);
    expectProblem(response);
    const problem = await json<{ detail: string; errors: { location: string }[] }>(response);
    expect(problem.detail).toBe("Rule 6: activeEvent must last 10 minutes to 31 days and start at most 60 days ahead; the event does not last between 10 minutes and 31 days.");
    expect(problem.errors[0]?.location).toBe("body.activeEvent.endsAt");
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM readings").get()?.n).toBe(0);
    expect((await json<{ activeEvent: unknown }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).activeEvent).toBeNull();
  });

  test("one starting more than 60 days ahead is a 400; one within the bounds is shown", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const far = await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent: { ...entry("bp", now() + 61 * DAY, now() + 62 * DAY) } }));
    expect(far.status).toBe(400);
    expect((await json<{ errors: { location: string }[] }>(far)).errors[0]?.location).toBe("body.activeEvent.startsAt");
    const kept = await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent: { ...entry("bp", now() - HOUR, now() + 30 * DAY), multiplier: 3 } }));
    expect(kept.status).toBe(201);
    expect((await json<{ activeEvent: { multiplier: number } }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).activeEvent.multiplier).toBe(3);
  });
});

describe("GET /api/v1/events lists every kept event (SPEC §16.3)", () => {
  test("an agent-reported event starting 20 days ahead is listed", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    expect((await report(hub, agent, { events: [entry("soon", now() + HOUR, now() + 2 * HOUR), entry("in-20-days", now() + 20 * DAY, now() + 22 * DAY)] })).status).toBe(204);
    expect((await listed(hub)).map((event) => event.key)).toEqual(["soon", "in-20-days"]);
  });
});
