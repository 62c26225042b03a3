import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { addAgent, post, reading, SseReader } from "../live-helpers.ts";

const iso = (ms: number) => new Date(ms).toISOString();

describe("admin: events", () => {
  test("create, list, change, delete; activeEvent follows the selection rule", async () => {
    const now = Date.now();
    const { hub, admin } = await adminHub();
    const body = { key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: iso(now - 3_600_000), endsAt: iso(now + 3_600_000) };
    const created = await admin.json<{ event: { id: number } & typeof body & { platforms: string[] | null; source: string; agentId: number | null; hidden: boolean } }>("POST", "/api/v1/admin/events", body);
    expect(created.status).toBe(201);
    expect(created.body.event).toEqual({ id: created.body.event.id, ...body, platforms: null, source: "admin", agentId: null, hidden: false });
    expect((await admin.json<{ events: unknown[] }>("GET", "/api/v1/admin/events")).body.events).toEqual([created.body.event]);
    const active = async (platform: string) => (await json<{ activeEvent: Record<string, unknown> | null }>(await call(hub, "GET", `/api/v1/platforms/${platform}/incentives`))).activeEvent;
    expect(await active("Windows")).toEqual({ key: "double-bp", label: "Double Bloodpoints", multiplier: 2, startsAt: body.startsAt, endsAt: body.endsAt });

    const agent = addAgent(hub, "eu-west-1");
    await post(hub, agent, reading("Windows", "eu-west-1", now, { activeEvent: { key: "agent-3x", label: "Triple", multiplier: 3, startsAt: body.startsAt, endsAt: body.endsAt } }));
    expect((await active("Windows"))?.key).toBe("agent-3x");
    const raised = await admin.json("PATCH", `/api/v1/admin/events/${created.body.event.id}`, { multiplier: 3 });
    expect(raised.status).toBe(200);
    expect((await active("Windows"))?.key).toBe("double-bp");
    await admin.json("PATCH", `/api/v1/admin/events/${created.body.event.id}`, { platforms: ["EGS"] });
    expect((await active("Windows"))?.key).toBe("agent-3x");
    expect((await active("EGS"))?.key).toBe("double-bp");
    expect((await admin.request("DELETE", `/api/v1/admin/events/${created.body.event.id}`)).status).toBe(204);
    expect(await active("EGS")).toBeNull();
    expect((await admin.request("DELETE", `/api/v1/admin/events/${created.body.event.id}`)).status).toBe(404);
    expect((await admin.json("PATCH", "/api/v1/admin/events/999", { label: "x" })).status).toBe(404);
    const audited = hub.ctx.db.sqlite.query<{ action: string }, []>("SELECT action FROM audit_log WHERE action LIKE 'event.%' ORDER BY id").all();
    expect(audited.map((a) => a.action)).toEqual(["event.create", "event.update", "event.update", "event.delete"]);
  });

  test("validation: key, label, multiplier, times and platforms", async () => {
    const { admin } = await adminHub();
    const good = { key: "bp", label: "BP", multiplier: 1.5, startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-02T00:00:00Z" };
    for (const bad of [
      { ...good, key: "Has Caps" },
      { ...good, key: "x".repeat(65) },
      { ...good, label: "" },
      { ...good, label: "l".repeat(121) },
      { ...good, multiplier: 0 },
      { ...good, multiplier: -2 },
      { ...good, startsAt: "tomorrow" },
      { ...good, endsAt: "2026-11-30T00:00:00Z" },
      { ...good, endsAt: good.startsAt },
      { ...good, platforms: ["PS5"] },
      { ...good, platforms: [] },
      { key: "bp" },
    ]) {
      const response = await admin.json("POST", "/api/v1/admin/events", bad);
      expect({ bad, status: response.status }).toEqual({ bad, status: 400 });
      expectProblem(response.response);
    }
    const made = await admin.json<{ event: { id: number } }>("POST", "/api/v1/admin/events", { ...good, platforms: ["Windows", "GRDK"] });
    expect(made.status).toBe(201);
    expect((await admin.json("PATCH", `/api/v1/admin/events/${made.body.event.id}`, { endsAt: "2026-11-01T00:00:00Z" })).status).toBe(400);
  });

  test("the stream pushes an event starting and ending on time", async () => {
    const { hub, admin } = await adminHub();
    const now = Date.now();
    await admin.json("POST", "/api/v1/admin/events", { key: "flash", label: "Flash", multiplier: 2, startsAt: iso(now + 200), endsAt: iso(now + 500) });
    const stream = new SseReader(await call(hub, "GET", "/api/v1/platforms/GRDK/incentives/stream"));
    expect(JSON.parse((await stream.nextMessage())?.data ?? "{}").activeEvent).toBeNull();
    hub.start();
    try {
      const started = JSON.parse((await stream.nextMessage(1500))?.data ?? "{}");
      expect(started.activeEvent?.key).toBe("flash");
      expect(Date.now()).toBeGreaterThanOrEqual(now + 200);
      const ended = JSON.parse((await stream.nextMessage(1500))?.data ?? "{}");
      expect(ended.activeEvent).toBeNull();
    } finally {
      await hub.stop();
    }
  });

  test("the next event rides in the payload: scheduling, changing or hiding one pushes every open stream at once", async () => {
    const now = Date.now();
    const { hub, admin } = await adminHub();
    const agent = addAgent(hub, "eu-west-1");
    const stream = new SseReader(await call(hub, "GET", "/api/v1/platforms/Windows/incentives/stream"));
    const nextOf = async () => JSON.parse((await stream.nextMessage(1500))?.data ?? "{}").nextEvent as Record<string, unknown> | null | undefined;
    try {
      expect(await nextOf()).toBeNull();
      const body = { key: "surprise-hunt", label: "Surprise Bloodhunt", multiplier: 2, startsAt: iso(now + 86_400_000), endsAt: iso(now + 2 * 86_400_000) };
      const made = await admin.json<{ event: { id: number } }>("POST", "/api/v1/admin/events", body);
      expect(made.status).toBe(201);
      expect(await nextOf()).toEqual(body);
      await admin.json("PATCH", `/api/v1/admin/events/${made.body.event.id}`, { multiplier: 3 });
      expect((await nextOf())?.multiplier).toBe(3);
      // An agent's schedule entry starting sooner is next; hidden by an admin, the admin's event is next again.
      const sooner = { key: "BPEVENT_Soon", label: "Soon", multiplier: 1.5, startsAt: iso(now + 3_600_000), endsAt: iso(now + 7_200_000) };
      const reported = await call(hub, "POST", "/api/v1/agent/events", { body: { events: [sooner] }, headers: { authorization: `Bearer ${agent.token}` } });
      expect(reported.status).toBe(204);
      expect((await nextOf())?.key).toBe("BPEVENT_Soon");
      const listed = await admin.json<{ events: { id: number; key: string }[] }>("GET", "/api/v1/admin/events");
      const soonId = listed.body.events.find((e) => e.key === "BPEVENT_Soon")?.id;
      expect((await admin.json("PATCH", `/api/v1/admin/events/${soonId}`, { hidden: true })).status).toBe(200);
      expect((await nextOf())?.key).toBe("surprise-hunt");
      // An event on another platform only is not this platform's next one.
      await admin.json("PATCH", `/api/v1/admin/events/${made.body.event.id}`, { platforms: ["EGS"] });
      expect(await nextOf()).toBeNull();
      expect((await json<{ nextEvent: { key: string } | null }>(await call(hub, "GET", "/api/v1/platforms/EGS/incentives"))).nextEvent?.key).toBe("surprise-hunt");
    } finally {
      await stream.close();
    }
  });

  test("agent events: listed with source, agentId and hidden; hidden or shown, never edited or deleted (409)", async () => {
    const now = Date.now();
    let clock = now;
    const { hub, admin } = await adminHub({}, () => clock);
    const agent = addAgent(hub, "eu-west-1");
    const bloodhunt = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(now - 3_600_000), endsAt: iso(now + 3_600_000) };
    const report = (events: unknown[]) => call(hub, "POST", "/api/v1/agent/events", { body: { events }, headers: { authorization: `Bearer ${agent.token}` } });
    expect((await report([bloodhunt])).status).toBe(204);
    const mine = await admin.json<{ event: { id: number } }>("POST", "/api/v1/admin/events", { key: "mine", label: "Mine", multiplier: 1.5, startsAt: bloodhunt.startsAt, endsAt: bloodhunt.endsAt });
    type Listed = { id: number; key: string; platforms: string[] | null; source: string; agentId: number | null; hidden: boolean };
    const list = async () => (await admin.json<{ events: Listed[] }>("GET", "/api/v1/admin/events")).body.events;
    const reported = (await list()).find((e) => e.source === "agent");
    expect(reported).toEqual({ id: reported?.id ?? -1, ...bloodhunt, platforms: null, source: "agent", agentId: agent.id, hidden: false });
    const id = reported?.id ?? -1;
    const active = async () => (await json<{ activeEvent: { key: string } | null }>(await call(hub, "GET", "/api/v1/platforms/EGS/incentives"))).activeEvent?.key ?? null;
    const publicKeys = async () => (await json<{ events: { key: string }[] }>(await call(hub, "GET", "/api/v1/events"))).events.map((e) => e.key);
    expect(await active()).toBe("BPEVENT_Bloodhunt_NAME");

    for (const change of [{ label: "Mine now" }, { multiplier: 5 }, { endsAt: iso(now + 7_200_000) }, { platforms: ["EGS"] }, { label: "x", hidden: true }, {}]) {
      const refused = await admin.json("PATCH", `/api/v1/admin/events/${id}`, change);
      expect({ change, status: refused.status }).toEqual({ change, status: 409 });
      expectProblem(refused.response);
    }
    const deleted = await admin.request("DELETE", `/api/v1/admin/events/${id}`);
    expect(deleted.status).toBe(409);
    expectProblem(deleted);
    expect((await admin.json("PATCH", `/api/v1/admin/events/${mine.body.event.id}`, { hidden: true })).status).toBe(409);
    expect((await list()).map((e) => [e.key, e.hidden])).toEqual([
      ["BPEVENT_Bloodhunt_NAME", false],
      ["mine", false],
    ]);

    const hidden = await admin.json<{ event: Listed }>("PATCH", `/api/v1/admin/events/${id}`, { hidden: true });
    expect(hidden.status).toBe(200);
    expect(hidden.body.event).toMatchObject({ id, source: "agent", hidden: true });
    expect(await active()).toBe("mine");
    expect(await publicKeys()).toEqual(["mine"]);

    // Reported again, as it is, changed, and after a report that left it out: it stays hidden.
    for (const events of [[bloodhunt], [{ ...bloodhunt, label: "Bloodhunt 2" }], [{ ...bloodhunt, key: "OTHER" }], [bloodhunt]]) {
      clock += 15_000;
      expect((await report(events)).status).toBe(204);
    }
    expect((await list()).find((e) => e.key === "BPEVENT_Bloodhunt_NAME")?.hidden).toBe(true);
    expect(await active()).toBe("mine");
    // The same event seen in a reading is hidden too.
    expect((await post(hub, agent, reading("Windows", "eu-west-1", clock, { activeEvent: bloodhunt }))).status).toBe(201);
    expect((await json<{ activeEvent: { key: string } | null }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).activeEvent?.key).toBe("mine");

    const shownAgain = (await list()).find((e) => e.key === "BPEVENT_Bloodhunt_NAME")?.id ?? -1;
    expect((await admin.json("PATCH", `/api/v1/admin/events/${shownAgain}`, { hidden: false })).status).toBe(200);
    expect(await active()).toBe("BPEVENT_Bloodhunt_NAME");
    expect(await publicKeys()).toEqual(["BPEVENT_Bloodhunt_NAME", "mine"]);
    const audited = hub.ctx.db.sqlite.query<{ action: string }, []>("SELECT action FROM audit_log WHERE action IN ('event.hide', 'event.show') ORDER BY id").all();
    expect(audited.map((a) => a.action)).toEqual(["event.hide", "event.show"]);
  });

  test("events agents name only in readings are listed per platform and can be hidden, not changed or deleted", async () => {
    const now = Date.now();
    const { hub, admin } = await adminHub();
    const steam = addAgent(hub, "eu-west-1");
    const epic = addAgent(hub, "eu-west-1", "epic");
    const bogus = { key: "FREE_BP", label: "Free BP", multiplier: 100, startsAt: iso(now - 3_600_000), endsAt: iso(now + 3_600_000) };
    expect((await post(hub, steam, reading("Windows", "eu-west-1", now, { activeEvent: bogus }))).status).toBe(201);
    expect((await post(hub, epic, reading("EGS", "eu-west-1", now, { activeEvent: { ...bogus, label: "Free BP!" } }))).status).toBe(201);
    type Listed = { id: number; key: string; label: string; platforms: string[] | null; source: string; agentId: number | null; hidden: boolean };
    const listed = (await admin.json<{ events: Listed[] }>("GET", "/api/v1/admin/events")).body.events;
    expect(listed.map(({ key, label, platforms, source, agentId, hidden }) => ({ key, label, platforms, source, agentId, hidden }))).toEqual([
      { key: "FREE_BP", label: "Free BP", platforms: ["Windows"], source: "agent", agentId: steam.id, hidden: false },
      { key: "FREE_BP", label: "Free BP!", platforms: ["EGS"], source: "agent", agentId: epic.id, hidden: false },
    ]);
    const id = listed[0]?.id ?? -1;
    expect((await admin.json("PATCH", `/api/v1/admin/events/${id}`, { multiplier: 2 })).status).toBe(409);
    expect((await admin.request("DELETE", `/api/v1/admin/events/${id}`)).status).toBe(409);
    expect((await admin.json("PATCH", `/api/v1/admin/events/${id}`, { hidden: true })).status).toBe(200);
    const active = async (platform: string) => (await json<{ activeEvent: { key: string } | null }>(await call(hub, "GET", `/api/v1/platforms/${platform}/incentives`))).activeEvent;
    expect(await active("Windows")).toBeNull();
    expect(await active("EGS")).toBeNull();
    expect((await json<{ events: unknown[] }>(await call(hub, "GET", "/api/v1/events"))).events).toEqual([]);
    // Named again in a reading, it stays hidden, and is recorded once per platform with the newest values; a schedule report leaves it be.
    const other = addAgent(hub, "eu-west-2");
    expect((await post(hub, other, reading("Windows", "eu-west-2", now, { activeEvent: { ...bogus, label: "Free BP v2" } }))).status).toBe(201);
    expect(await active("Windows")).toBeNull();
    const scheduled = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(now + 3_600_000), endsAt: iso(now + 7_200_000) };
    expect((await call(hub, "POST", "/api/v1/agent/events", { body: { events: [scheduled] }, headers: { authorization: `Bearer ${other.token}` } })).status).toBe(204);
    const again = (await admin.json<{ events: Listed[] }>("GET", "/api/v1/admin/events")).body.events;
    expect(again.map((e) => [e.key, e.label, e.platforms, e.agentId, e.hidden])).toEqual([
      ["FREE_BP", "Free BP v2", ["Windows"], other.id, true],
      ["FREE_BP", "Free BP!", ["EGS"], epic.id, true],
      ["BPEVENT_Bloodhunt_NAME", "Bloodhunt", null, other.id, false],
    ]);
  });
});
