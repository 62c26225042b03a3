import { describe, expect, test } from "bun:test";
import { call, expectProblem, json, memoryDb, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const T0 = Date.parse("2026-11-21T18:00:00.000Z");

function setup() {
  let now = T0;
  const hub = testHub({ now: () => now });
  return { hub, advance: (ms: number) => (now += ms), now: () => now };
}

describe("agent authentication", () => {
  test("401 without a token or with an unknown one, 403 for a disabled agent", async () => {
    const { hub } = setup();
    const disabled = addAgent(hub, "eu-west-1", "steam", { enabled: false });
    for (const path of ["/api/v1/agent/assignment", "/api/v1/agent/readings"]) {
      const method = path.endsWith("readings") ? "POST" : "GET";
      const none = await call(hub, method, path, { body: method === "POST" ? {} : undefined });
      expect(none.status).toBe(401);
      expectProblem(none);
      expect(none.headers.get("www-authenticate")).toContain("Bearer");
      const unknown = await call(hub, method, path, { headers: { authorization: "Bearer nope-not-a-token" } });
      expect(unknown.status).toBe(401);
      const off = await call(hub, method, path, { headers: { authorization: `Bearer ${disabled.token}` } });
      expect(off.status).toBe(403);
      expectProblem(off);
    }
  });

  test("session cookies and API-key headers are not agent credentials", async () => {
    const { hub } = setup();
    const response = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { cookie: "hub_session=abc", "x-api-key": "hub_x" } });
    expect(response.status).toBe(401);
  });
});

describe("GET /api/v1/agent/assignment", () => {
  test("the agent's region, platform and cadence, never cached", async () => {
    const { hub } = setup();
    const a = addAgent(hub, "eu-west-1", "epic");
    const b = addAgent(hub, "eu-west-1", "epic");
    const response = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${b.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ region: "eu-west-1", platform: "EGS", pollMinSeconds: 300, pollMaxSeconds: 375, phaseOffsetSeconds: 169, probeImmediately: false });
    const first = await json(await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${a.token}` } }));
    expect(first.probeImmediately).toBe(true);
  });
});

describe("POST /api/v1/agent/readings", () => {
  test("201 with the assignment and whether it became live; stored and visible at once", async () => {
    const { hub, now } = setup();
    const agent = addAgent(hub, "eu-west-1");
    const response = await post(hub, agent, reading("Windows", "eu-west-1", now() - 5000, { survivor: 25, killer: 0, ratio: 0.6, version: "9.3.0" }));
    expect(response.status).toBe(201);
    const body = await json<{ assignment: Record<string, unknown>; live: boolean }>(response);
    expect(body.live).toBe(true);
    expect(body.assignment).toMatchObject({ region: "eu-west-1", platform: "Windows", pollMinSeconds: 300 });
    const stored = hub.ctx.db.sqlite.query<{ n: number; agent_id: number }, []>("SELECT COUNT(*) AS n, agent_id FROM readings").get();
    expect(stored).toEqual({ n: 1, agent_id: agent.id });
    const incentives = await json<{ status: string; version: string; regions: { survivor: number; isReal: boolean }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(incentives.status).toBe("ok");
    expect(incentives.version).toBe("9.3.0");
    expect(incentives.regions[0]).toMatchObject({ survivor: 25, isReal: true });
  });

  test("the newest reading wins: an older one is stored but does not become live", async () => {
    const { hub, now, advance } = setup();
    const a = addAgent(hub, "eu-west-1");
    const b = addAgent(hub, "eu-west-1");
    expect((await json(await post(hub, a, reading("Windows", "eu-west-1", now() - 1000, { killer: 100 })))).live).toBe(true);
    advance(10);
    const older = await json(await post(hub, b, reading("Windows", "eu-west-1", now() - 60_000, { killer: 25 })));
    expect(older.live).toBe(false);
    const incentives = await json<{ regions: { killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(incentives.regions[0]?.killer).toBe(100);
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n).toBe(2);
  });

  test("every rule refused with a problem naming it, and nothing stored", async () => {
    const { hub, now } = setup();
    const agent = addAgent(hub, "eu-west-1");
    const cases: [Record<string, unknown>, number][] = [
      [{ region: "eu-west-2" }, 1],
      [{ isReal: false }, 2],
      [{ measuredAt: new Date(now() + 61_000).toISOString() }, 3],
      [{ measuredAt: "not a time" }, 3],
      [{ survivor: 1001 }, 4],
      [{ killer: "75" }, 4],
      [{ ratio: 0 }, 4],
      [{ version: "x".repeat(65) }, 6],
      [{ category: 42 }, 6],
    ];
    for (const [overrides, rule] of cases) {
      const response = await post(hub, agent, reading("Windows", "eu-west-1", now(), overrides));
      expect({ overrides, status: response.status }).toEqual({ overrides, status: 400 });
      expectProblem(response);
      const body = await json<{ detail: string; errors: { location: string }[] }>(response);
      expect(body.detail).toStartWith(`Rule ${rule}:`);
      expect(body.errors[0]?.location).toStartWith("body");
    }
    const bad = await call(hub, "POST", "/api/v1/agent/readings", { rawBody: "{oops", headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n).toBe(0);
    expect(hub.ctx.ingest.counters.rejected.get("rule4")).toBe(3);
  });

  test("rule 5: too fast is 429 with Retry-After, and accepted again once the spacing passed", async () => {
    const { hub, now, advance } = setup();
    addAgent(hub, "eu-west-1");
    // The group's second agent never probes, so its second reading has no exception.
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now()))).status).toBe(201);
    advance(60_000);
    const fast = await post(hub, agent, reading("Windows", "eu-west-1", now()));
    expect(fast.status).toBe(429);
    expectProblem(fast);
    expect(fast.headers.get("retry-after")).toBe("180");
    expect((await json(fast)).detail).toStartWith("Rule 5:");
    advance(180_000);
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now()))).status).toBe(201);
  });

  test("rule 5 remembers readings stored before a restart", async () => {
    const { hub, now } = setup();
    addAgent(hub, "eu-west-1");
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now()))).status).toBe(201);
    hub.ctx.ingest.forget();
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now(), { killer: 80 }))).status).toBe(429);
  });

  test("rule 5 probe exception: after a first reading that was a probe, the second may come sooner, once", async () => {
    const { hub, now, advance } = setup();
    const agent = addAgent(hub, "eu-west-1");
    const assignment = await json(await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } }));
    expect(assignment.probeImmediately).toBe(true);
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now(), { refreshTimeSeconds: 300 }))).status).toBe(201);
    advance(207_000);
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now()))).status).toBe(201);
    advance(207_000);
    const third = await post(hub, agent, reading("Windows", "eu-west-1", now()));
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("33");
    expect(hub.ctx.db.sqlite.query<{ probe: number }, []>("SELECT probe FROM readings ORDER BY id").all()).toEqual([{ probe: 1 }, { probe: 0 }]);
  });

  test("rule 5 probe exception survives a restart between the probe and the second reading", async () => {
    let now = T0;
    const db = memoryDb();
    const before = testHub({ db, now: () => now });
    const agent = addAgent(before, "eu-west-1");
    expect((await post(before, agent, reading("Windows", "eu-west-1", now))).status).toBe(201);
    await before.stop();
    const after = testHub({ db, now: () => now });
    now += 207_000;
    expect((await post(after, agent, reading("Windows", "eu-west-1", now))).status).toBe(201);
    now += 207_000;
    expect((await post(after, agent, reading("Windows", "eu-west-1", now))).status).toBe(429);
    const again = testHub({ db, now: () => now });
    expect((await post(again, agent, reading("Windows", "eu-west-1", now))).status).toBe(429);
  });

  test("rule 5 probe exception: a first reading that was not a probe gives none", async () => {
    const { hub, now, advance } = setup();
    addAgent(hub, "eu-west-1");
    const second = addAgent(hub, "eu-west-1");
    const assignment = await json(await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${second.token}` } }));
    expect(assignment.probeImmediately).toBe(false);
    expect((await post(hub, second, reading("Windows", "eu-west-1", now()))).status).toBe(201);
    advance(207_000);
    const refused = await post(hub, second, reading("Windows", "eu-west-1", now()));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("33");
  });

  test("rule 5 probe exception: once the refresh time is known nobody probes, so nobody is exempt", async () => {
    const { hub, now, advance } = setup();
    const first = addAgent(hub, "eu-west-1");
    expect((await post(hub, first, reading("Windows", "eu-west-1", now(), { refreshTimeSeconds: 300 }))).status).toBe(201);
    const later = addAgent(hub, "eu-west-1");
    hub.ctx.db.sqlite.query("DELETE FROM readings").run();
    hub.ctx.ingest.forget();
    expect((await post(hub, later, reading("Windows", "eu-west-1", now()))).status).toBe(201);
    advance(207_000);
    expect((await post(hub, later, reading("Windows", "eu-west-1", now()))).status).toBe(429);
  });

  test("a reported refresh time is learned per group: probeImmediately ends and the cadence follows it", async () => {
    const { hub, now } = setup();
    const first = addAgent(hub, "eu-west-1", "steam", { pollMin: "%refreshTime% * 2" });
    const response = await json<{ assignment: { probeImmediately: boolean; pollMinSeconds: number } }>(
      await post(hub, first, reading("Windows", "eu-west-1", now(), { refreshTimeSeconds: 240 })),
    );
    expect(response.assignment.probeImmediately).toBe(false);
    expect(response.assignment.pollMinSeconds).toBe(480);
    expect(hub.ctx.db.sqlite.query<{ refresh_time_seconds: number }, []>("SELECT refresh_time_seconds FROM slot_state").get()?.refresh_time_seconds).toBe(240);
    const other = addAgent(hub, "eu-west-2", "steam");
    const elsewhere = await json(await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${other.token}` } }));
    expect(elsewhere.probeImmediately).toBe(true);
  });

  test("an agent-reported event shows in the payload while in force", async () => {
    const { hub, now } = setup();
    const agent = addAgent(hub, "eu-west-1");
    const activeEvent = { key: "bp-2x", label: "Double Bloodpoints", multiplier: 2, startsAt: new Date(now() - 3_600_000).toISOString(), endsAt: new Date(now() + 3_600_000).toISOString() };
    await post(hub, agent, reading("Windows", "eu-west-1", now(), { activeEvent }));
    const payload = await json(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(payload.activeEvent).toEqual(activeEvent);
    const egs = await json(await call(hub, "GET", "/api/v1/platforms/EGS/incentives"));
    expect(egs.activeEvent).toBeNull();
  });

  test("storage failure is a 503 problem and the live value is untouched", async () => {
    const { hub, now } = setup();
    const agent = addAgent(hub, "eu-west-1");
    hub.ctx.db.sqlite.exec("PRAGMA query_only = ON");
    const response = await post(hub, agent, reading("Windows", "eu-west-1", now()));
    expect(response.status).toBe(503);
    expectProblem(response);
    expect(response.headers.get("retry-after")).not.toBeNull();
    expect(await response.text()).not.toContain("SQLITE");
    const payload = await json<{ status: string }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(payload.status).toBe("initializing");
  });
});
