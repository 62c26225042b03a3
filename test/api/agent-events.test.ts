/** POST /api/v1/agent/events: the agents' event schedule, rule by rule (SPEC §9.1). */
import { describe, expect, test } from "bun:test";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import type { Hub } from "../../src/hub.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json, memoryLog, scratchDirs, testHub } from "../helpers.ts";
import { addAgent, post, reading, SseReader, type ListedEvent, type TestAgent } from "../live-helpers.ts";

const HOUR = 3_600_000;
const START = Date.parse("2026-11-27T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();
const scratch = scratchDirs();

/** The field agent's entry, as §9.1 shows it, in force around `at`. */
const entry = (at: number, overrides: Record<string, unknown> = {}) => ({
  key: "BPEVENT_Bloodhunt_NAME",
  label: "Bloodhunt",
  multiplier: 2,
  startsAt: iso(at - HOUR),
  endsAt: iso(at + 3 * HOUR),
  ...overrides,
});

const METRICS_TOKEN = "metrics-token-for-event-reports";

function world(options: { path?: string; log?: ReturnType<typeof memoryLog> } = {}) {
  let clock = START;
  const hub = testHub({ now: () => clock, log: options.log?.log, env: { METRICS_TOKEN }, ...(options.path ? { db: openDatabase(options.path) } : {}) });
  return {
    hub,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

const report = (hub: Hub, agent: TestAgent, body: unknown) => call(hub, "POST", "/api/v1/agent/events", { body, headers: { authorization: `Bearer ${agent.token}` } });

const listed = async (hub: Hub) => (await json<{ events: ListedEvent[] }>(await call(hub, "GET", "/api/v1/events"))).events;
const active = async (hub: Hub, platform: string) => (await json<{ activeEvent: Record<string, unknown> | null }>(await call(hub, "GET", `/api/v1/platforms/${platform}/incentives`))).activeEvent;
const stored = (hub: Hub) =>
  hub.ctx.db.sqlite.query<{ id: number; key: string; label: string; updated_at: number }, []>("SELECT id, key, label, updated_at FROM events WHERE source = 'agent' ORDER BY id").all();
const auditRows = (hub: Hub) =>
  hub.ctx.db.sqlite.query<{ actor: string; target: string; detail: string; via: string | null }, []>("SELECT actor, target, detail, via FROM audit_log WHERE action = 'events.reported' ORDER BY id").all();

describe("POST /api/v1/agent/events", () => {
  test("the field agent's report: 204 without a body; the event reaches the schedule and every platform's activeEvent", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const response = await report(hub, agent, { events: [entry(now())] });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const expected = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(now() - HOUR), endsAt: iso(now() + 3 * HOUR) };
    expect(await listed(hub)).toEqual([{ ...expected, platforms: null, source: "agent" }]);
    for (const platform of ["Windows", "EGS", "GRDK"]) expect(await active(hub, platform)).toEqual(expected);
  });

  test("401 without a token or with an unknown one, 403 for a disabled agent; nothing stored", async () => {
    const { hub, now } = world();
    const disabled = addAgent(hub, "eu-west-1", "steam", { enabled: false });
    expect((await call(hub, "POST", "/api/v1/agent/events", { body: { events: [entry(now())] } })).status).toBe(401);
    expect((await report(hub, { id: 0, token: "not-a-token" }, { events: [entry(now())] })).status).toBe(401);
    expect((await report(hub, disabled, { events: [entry(now())] })).status).toBe(403);
    expect(stored(hub)).toEqual([]);
  });

  test("a body that is not an object with an events array is a 400 problem and changes nothing", async () => {
    const { hub, now, advance } = world();
    const agent = addAgent(hub, "eu-west-1");
    expect((await report(hub, agent, { events: [entry(now())] })).status).toBe(204);
    for (const body of [[entry(now())], { events: "nope" }, { event: [entry(now())] }, "events", null]) {
      advance(15_000);
      const response = await report(hub, agent, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectProblem(response);
    }
    expect(stored(hub).map((e) => e.key)).toEqual(["BPEVENT_Bloodhunt_NAME"]);
  });

  test("each bad entry is skipped on its own, never a 400 for the report; the good ones are kept", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const bad = [
      entry(now(), { key: "m-low", multiplier: 0.5 }),
      entry(now(), { key: "m-high", multiplier: 100.5 }),
      entry(now(), { key: "m-text", multiplier: "2" }),
      entry(now(), { key: "s-bad", startsAt: "soon" }),
      entry(now(), { key: "s-zone", startsAt: "2026-11-27T11:00:00" }),
      entry(now(), { key: "e-before", endsAt: iso(now() - 2 * HOUR) }),
      entry(now(), { key: "e-equal", endsAt: iso(now() - HOUR) }),
      entry(now(), { key: 7 }),
      entry(now(), { key: "" }),
      entry(now(), { key: "k".repeat(65) }),
      entry(now(), { key: "l-num", label: 12 }),
      "not an entry",
    ];
    const good = [entry(now(), { key: "edge-low", multiplier: 1 }), entry(now(), { key: "edge-high", multiplier: 100, label: "Hundredfold" }), entry(now(), { key: "k".repeat(64) })];
    const response = await report(hub, agent, { events: [...bad, ...good] });
    expect(response.status).toBe(204);
    expect(stored(hub).map((e) => e.key)).toEqual(["edge-low", "edge-high", "k".repeat(64)]);
    expect((await active(hub, "Windows"))?.key).toBe("edge-high");
  });

  test("labels become plain text: control characters removed, trimmed, at most 120 characters, the key when empty", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const at = (h: number) => ({ startsAt: iso(now() + h * HOUR), endsAt: iso(now() + (h + 1) * HOUR) });
    const long = "🎉".repeat(130);
    await report(hub, agent, {
      events: [
        entry(now(), { key: "ctl", label: "  Blood\u0000hunt\u0007\u001b[31m\u007f\u0085\u202e ", ...at(1) }),
        entry(now(), { key: "long", label: long, ...at(2) }),
        entry(now(), { key: "empty", label: " \u0000\t\n ", ...at(3) }),
        entry(now(), { key: "kept", label: "Line\u2028<b>&amp;</b> *x*", ...at(4) }),
        entry(now(), { key: "padded", label: `   ${"a".repeat(125)}`, ...at(5) }),
      ],
    });
    const labels = Object.fromEntries((await listed(hub)).map((e) => [e.key, e.label]));
    expect(labels).toEqual({ ctl: "Bloodhunt[31m", long: "🎉".repeat(120), empty: "empty", kept: "Line\u2028<b>&amp;</b> *x*", padded: "a".repeat(120) });
  });

  test("an event named in a reading's activeEvent gets the same plain-text label", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent: entry(now(), { label: "\u001b[2J Bloodhunt\u202e\u0000 " }) }))).status).toBe(201);
    expect((await active(hub, "Windows"))?.label).toBe("[2J Bloodhunt");
    expect((await listed(hub)).map((e) => [e.label, e.platforms])).toEqual([["[2J Bloodhunt", ["Windows"]]]);
  });

  test("an entry with the key and start of an earlier one is skipped", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    await report(hub, agent, { events: [entry(now(), { label: "First" }), entry(now(), { label: "Second" }), entry(now(), { label: "Later", startsAt: iso(now()) })] });
    expect((await listed(hub)).map((e) => e.label)).toEqual(["First", "Later"]);
  });

  test("a report empty after skipping, or empty, changes nothing: a live event is not wiped", async () => {
    const { hub, now, advance } = world();
    const agent = addAgent(hub, "eu-west-1");
    await report(hub, agent, { events: [entry(now())] });
    const before = stored(hub);
    advance(15_000);
    expect((await report(hub, agent, { events: [] })).status).toBe(204);
    advance(15_000);
    expect((await report(hub, agent, { events: [entry(now(), { multiplier: 0 }), { key: "x" }] })).status).toBe(204);
    expect(stored(hub)).toEqual(before);
    expect((await active(hub, "EGS"))?.key).toBe("BPEVENT_Bloodhunt_NAME");
    expect(auditRows(hub)).toHaveLength(1);
  });

  test("one report per agent per 15 s: 429 with Retry-After; every authenticated report counts, a refused one does not restart the wait", async () => {
    const { hub, now, advance } = world();
    const agent = addAgent(hub, "eu-west-1");
    const other = addAgent(hub, "eu-west-2");
    expect((await report(hub, agent, { nope: true })).status).toBe(400);
    advance(5_000);
    const soon = await report(hub, agent, { events: [entry(now())] });
    expect(soon.status).toBe(429);
    expectProblem(soon);
    expect(soon.headers.get("retry-after")).toBe("10");
    expect(stored(hub)).toEqual([]);
    expect((await report(hub, other, { events: [entry(now())] })).status).toBe(204);
    advance(9_500);
    expect((await report(hub, agent, { events: [entry(now())] })).headers.get("retry-after")).toBe("1");
    advance(500);
    expect((await report(hub, agent, { events: [entry(now(), { label: "Again" })] })).status).toBe(204);
    advance(14_999);
    expect((await report(hub, agent, { events: [] })).status).toBe(429);
    expect(stored(hub).map((e) => e.label)).toEqual(["Again"]);
  });

  test("at most the first 50 entries are read", async () => {
    const { hub, now } = world();
    const agent = addAgent(hub, "eu-west-1");
    const events = Array.from({ length: 51 }, (_, i) => entry(now(), { key: `e${i}`, startsAt: iso(now() + i * 60_000), endsAt: iso(now() + HOUR + i * 60_000) }));
    expect((await report(hub, agent, { events })).status).toBe(204);
    const keys = stored(hub).map((e) => e.key);
    expect(keys).toHaveLength(50);
    expect(keys).toContain("e49");
    expect(keys).not.toContain("e50");
  });

  test("a report replaces the schedule agents reported before, whichever agent sent it; readings' events and admin events stay", async () => {
    const { hub, now, advance } = world();
    const a = addAgent(hub, "eu-west-1");
    const b = addAgent(hub, "eu-west-2", "epic");
    hub.ctx.db.sqlite
      .query("INSERT INTO events (key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at) VALUES ('admin-bp', 'Admin', 1.5, ?, ?, NULL, ?, ?)")
      .run(now() - HOUR, now() + HOUR, now(), now());
    hub.reloadExternal();
    await report(hub, a, { events: [entry(START), entry(START, { key: "OTHER", startsAt: iso(START + 48 * HOUR), endsAt: iso(START + 50 * HOUR) })] });
    const first = stored(hub);
    advance(1_000);
    await report(hub, b, { events: [entry(START, { label: "Bloodhunt!" }), entry(START, { key: "NEW", startsAt: iso(START + 24 * HOUR), endsAt: iso(START + 26 * HOUR) })] });
    const second = stored(hub);
    expect(second.map((e) => [e.key, e.label])).toEqual([
      ["BPEVENT_Bloodhunt_NAME", "Bloodhunt!"],
      ["NEW", "Bloodhunt"],
    ]);
    // The event reported again keeps its row and id; the one left out is gone.
    expect(second[0]?.id).toBe(first[0]?.id ?? -1);
    expect((await listed(hub)).map((e) => [e.key, e.source])).toEqual([
      ["admin-bp", "admin"],
      ["BPEVENT_Bloodhunt_NAME", "agent"],
      ["NEW", "agent"],
    ]);
  });

  test("an identical report writes nothing; a change is audited once, with counts", async () => {
    const { hub, now, advance } = world();
    const a = addAgent(hub, "eu-west-1");
    const b = addAgent(hub, "eu-west-2");
    await report(hub, a, { events: [entry(START), entry(START, { key: "GONE", startsAt: iso(START + HOUR) })] });
    const before = stored(hub);
    for (const agent of [a, b, a]) {
      advance(15_000);
      expect((await report(hub, agent, { events: [entry(START), entry(START, { key: "GONE", startsAt: iso(START + HOUR) })] })).status).toBe(204);
    }
    expect(stored(hub)).toEqual(before);
    expect(auditRows(hub)).toHaveLength(1);
    advance(15_000);
    await report(hub, b, { events: [entry(START, { multiplier: 3 }), entry(START, { key: "ADDED", startsAt: iso(START + 5 * HOUR), endsAt: iso(START + 6 * HOUR) })] });
    const rows = auditRows(hub);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.target).toBe(`agent:${b.id}`);
    expect(rows.map((row) => [row.actor, row.via])).toEqual([
      [`agent:${a.id}`, "config"],
      [`agent:${b.id}`, "config"],
    ]);
    expect(JSON.parse(rows[1]?.detail ?? "null")).toEqual({ events: 2, added: 1, changed: 1, removed: 1 });
    expect(JSON.parse(rows[0]?.detail ?? "null")).toEqual({ events: 2, added: 2, changed: 0, removed: 0 });
  });

  test("the schedule survives a restart", async () => {
    const path = join(scratch(), "hub.db");
    const first = world({ path });
    const agent = addAgent(first.hub, "eu-west-1");
    await report(first.hub, agent, { events: [entry(first.now())] });
    const before = await listed(first.hub);
    await first.hub.stop();
    first.hub.ctx.db.sqlite.close();
    const second = world({ path });
    expect(await listed(second.hub)).toEqual(before);
    expect((await active(second.hub, "GRDK"))?.key).toBe("BPEVENT_Bloodhunt_NAME");
    await second.hub.stop();
    second.hub.ctx.db.sqlite.close();
  });

  test("skipped entries are counted in /metrics by reason and logged at warn at most once a minute per agent", async () => {
    const log = memoryLog("warn");
    const { hub, now, advance } = world({ log });
    const a = addAgent(hub, "eu-west-1");
    const b = addAgent(hub, "eu-west-2");
    const bad = { events: [entry(now(), { multiplier: 0 }), entry(now(), { key: "x", endsAt: "never" }), entry(now(), { multiplier: 1000 }), entry(now())] };
    await report(hub, a, bad);
    advance(15_000);
    await report(hub, a, bad);
    await report(hub, b, bad);
    advance(45_000);
    await report(hub, a, { events: Array.from({ length: 53 }, () => entry(now(), { multiplier: -1 })) });
    const warnings = () => log.lines.filter((l) => l.msg === "an agent's event report had entries that were skipped");
    expect(warnings().map((l) => l.agentId)).toEqual([a.id, b.id, a.id]);
    expect(warnings()[0]).toMatchObject({ level: "warn", skipped: 3, reasons: { multiplier: 2, endsAt: 1 }, first: { index: 0, reason: "multiplier is not a finite number in [1, 100]" } });
    expect(warnings()[2]).toMatchObject({ skipped: 50, unread: 3, skippedSinceLastLine: 56 });
    for (const line of log.lines) expect(JSON.stringify(line)).not.toContain(a.token);
    const metrics = await (await call(hub, "GET", "/metrics", { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toContain('hub_event_entries_skipped_total{reason="multiplier"} 56');
    expect(metrics).toContain('hub_event_entries_skipped_total{reason="endsAt"} 3');
    expect(metrics).toContain('hub_event_entries_skipped_total{reason="unread"} 3');
  });
});

describe("alerts for agent events", () => {
  // A changed payload is pushed at most FLUSH_SPACING_MS after the one before it; what follows from it (judging alerts) right after.
  const settle = () => Bun.sleep(FLUSH_SPACING_MS + 5);
  interface Delivery {
    type: string;
    data: { key: string; platforms: string[] };
  }
  const outbox = (hub: Hub, webhookId: number): Delivery[] =>
    hub.ctx.db.sqlite
      .query<{ type: string; payload: string }, [number]>("SELECT type, payload FROM webhook_deliveries WHERE webhook_id = ? AND type LIKE 'event.%' ORDER BY id")
      .all(webhookId)
      .map((row) => ({ type: row.type, data: (JSON.parse(row.payload) as { data: Delivery["data"] }).data }));

  async function alertWorld() {
    let clock = START;
    const { hub, admin } = await adminHub({ WEBHOOK_ALLOW_PRIVATE: "true" }, () => clock);
    const hook = async (body: Record<string, unknown>) => (await admin.json<{ webhook: { id: number } }>("POST", "/api/v1/admin/webhooks", { url: "https://hooks.example.org/x", format: "json", onEvents: true, ...body })).body.webhook.id;
    return {
      hub,
      all: await hook({}),
      egs: await hook({ platforms: ["EGS"] }),
      advance: (ms: number) => {
        clock += ms;
      },
    };
  }

  test("an event already in force when first reported starts then, once per webhook, however many agents report it, and ends once", async () => {
    const { hub, all, egs, advance } = await alertWorld();
    const agents = [addAgent(hub, "eu-west-1"), addAgent(hub, "eu-west-2", "epic"), addAgent(hub, "eu-central-1", "grdk")];
    for (const agent of agents) {
      expect((await report(hub, agent, { events: [entry(START)] })).status).toBe(204);
      await settle();
    }
    advance(15_000);
    for (const agent of agents) expect((await report(hub, agent, { events: [entry(START, { label: "Bloodhunt (again)" })] })).status).toBe(204);
    await post(hub, agents[1] as TestAgent, reading("EGS", "eu-west-2", START + 15_000, { activeEvent: entry(START) }));
    await settle();
    expect(outbox(hub, all)).toEqual([{ type: "event.started", data: expect.objectContaining({ key: "BPEVENT_Bloodhunt_NAME", platforms: ["Windows", "EGS", "GRDK"] }) }]);
    expect(outbox(hub, egs)).toEqual([{ type: "event.started", data: expect.objectContaining({ key: "BPEVENT_Bloodhunt_NAME", platforms: ["EGS"] }) }]);

    advance(3 * HOUR);
    hub.ctx.live.flush();
    await settle();
    expect(outbox(hub, all).map((d) => [d.type, d.data.platforms])).toEqual([
      ["event.started", ["Windows", "EGS", "GRDK"]],
      ["event.ended", ["Windows", "EGS", "GRDK"]],
    ]);
    expect(outbox(hub, egs).map((d) => d.type)).toEqual(["event.started", "event.ended"]);
  });

  test("an event seen in one platform's reading, then in the schedule for all, has started once", async () => {
    const { hub, all, egs } = await alertWorld();
    const epic = addAgent(hub, "eu-west-2", "epic");
    await post(hub, epic, reading("EGS", "eu-west-2", START, { activeEvent: entry(START) }));
    await settle();
    expect(outbox(hub, all).map((d) => [d.type, d.data.platforms])).toEqual([["event.started", ["EGS"]]]);
    await report(hub, addAgent(hub, "eu-west-1"), { events: [entry(START)] });
    await settle();
    expect(outbox(hub, all).map((d) => d.type)).toEqual(["event.started"]);
    expect(outbox(hub, egs).map((d) => d.type)).toEqual(["event.started"]);
  });
});

describe("the stream and agent events", () => {
  test("a report pushes at once; the event's start and end push on time with no reading", async () => {
    const hub = testHub();
    const agent = addAgent(hub, "eu-west-1");
    const stream = new SseReader(await call(hub, "GET", "/api/v1/platforms/GRDK/incentives/stream"));
    expect(JSON.parse((await stream.nextMessage())?.data ?? "{}").activeEvent).toBeNull();
    hub.start();
    try {
      const now = Date.now();
      // Events last at least 10 minutes (SPEC §16.3): one that began an hour ago ends soon, one begins soon.
      const ending = { key: "ENDING", label: "Ending", multiplier: 3, startsAt: iso(now - HOUR), endsAt: iso(now + 400) };
      const running = { key: "RUNNING", label: "Running", multiplier: 1.5, startsAt: iso(now - HOUR), endsAt: iso(now + HOUR) };
      const starting = { key: "STARTING", label: "Starting", multiplier: 4, startsAt: iso(now + 800), endsAt: iso(now + HOUR) };
      expect((await report(hub, agent, { events: [ending, running, starting] })).status).toBe(204);
      expect(JSON.parse((await stream.nextMessage(500))?.data ?? "{}").activeEvent?.key).toBe("ENDING");
      const ended = JSON.parse((await stream.nextMessage(1500))?.data ?? "{}");
      expect(ended.activeEvent?.key).toBe("RUNNING");
      expect(Date.now()).toBeGreaterThanOrEqual(now + 400);
      const started = JSON.parse((await stream.nextMessage(1500))?.data ?? "{}");
      expect(started.activeEvent?.key).toBe("STARTING");
      expect(Date.now()).toBeGreaterThanOrEqual(now + 800);
    } finally {
      await hub.stop();
    }
  });
});
