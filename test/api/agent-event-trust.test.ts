/**
 * What an admin can do about an agent's event reports (SPEC §16.3):
 * disabling or deleting an agent withdraws the schedule entries only it
 * reported, and its reports can be marked as ignored.
 */
import { describe, expect, test } from "bun:test";
import type { Hub } from "../../src/hub.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { post, reading, type ListedEvent, type TestAgent } from "../live-helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.parse("2026-11-27T12:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

interface AgentView {
  id: number;
  enabled: boolean;
  eventReports: string;
}

/** The review's event, as far as the bounds let it go: ×100 for 31 days. */
const flood = { key: "HUNDREDFOLD", label: "×100", multiplier: 100, startsAt: iso(START - HOUR), endsAt: iso(START - HOUR + 31 * DAY) };
const shared = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(START - HOUR), endsAt: iso(START + 3 * DAY) };

async function setup() {
  let clock = START;
  const { hub, admin } = await adminHub({}, () => clock);
  const create = async (region: string): Promise<TestAgent> => {
    const made = await admin.json<{ agent: AgentView; token: string }>("POST", "/api/v1/admin/agents", { region, provider: "steam" });
    expect(made.status).toBe(201);
    return { id: made.body.agent.id, token: made.body.token };
  };
  const adminEvent = await admin.json("POST", "/api/v1/admin/events", { key: "admin-set", label: "Set by an admin", multiplier: 1.5, startsAt: iso(START - HOUR), endsAt: iso(START + DAY) });
  expect(adminEvent.status).toBe(201);
  return { hub, admin, create, advance: (ms: number) => (clock += ms) };
}

const report = (hub: Hub, agent: TestAgent, events: unknown[]) => call(hub, "POST", "/api/v1/agent/events", { body: { events }, headers: { authorization: `Bearer ${agent.token}` } });
const listedKeys = async (hub: Hub) => (await json<{ events: ListedEvent[] }>(await call(hub, "GET", "/api/v1/events"))).events.map((event) => event.key).sort();
const activeKey = async (hub: Hub) => (await json<{ activeEvent: { key: string } | null }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).activeEvent?.key ?? null;

describe("disabling or deleting an agent withdraws the schedule entries only it reported", () => {
  test("disabled: its own entry goes at once (payload too); one another agent also reported, and an admin's, stay", async () => {
    const { hub, admin, create, advance } = await setup();
    const rogue = await create("eu-west-1");
    const honest = await create("eu-west-2");
    expect((await report(hub, honest, [shared])).status).toBe(204);
    advance(1_000);
    expect((await report(hub, rogue, [flood, shared])).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "HUNDREDFOLD", "admin-set"]);
    expect(await activeKey(hub)).toBe("HUNDREDFOLD");

    const disabled = await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${rogue.id}`, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "admin-set"]);
    expect(await activeKey(hub)).toBe("BPEVENT_Bloodhunt_NAME");
    const audit = hub.ctx.db.sqlite.query<{ detail: string }, []>("SELECT detail FROM audit_log WHERE action = 'agent.update' ORDER BY id DESC").get();
    expect(JSON.parse(audit?.detail ?? "{}")).toMatchObject({ enabled: false, withdrawnEvents: 1 });

    // The withdrawn agent no longer vouches for what stayed: once the other reporter goes too, so does the entry.
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${honest.id}`)).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["admin-set"]);
  });

  test("deleted: its entries go with it, whatever becomes of its readings", async () => {
    const { hub, admin, create } = await setup();
    const rogue = await create("eu-west-1");
    expect((await report(hub, rogue, [flood])).status).toBe(204);
    expect(await activeKey(hub)).toBe("HUNDREDFOLD");
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${rogue.id}?dataMode=orphan`)).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["admin-set"]);
    expect(await activeKey(hub)).toBe("admin-set");
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM events WHERE source = 'agent'").get()?.n).toBe(0);
  });

  test("an event planted in a reading's activeEvent goes with its agent too: disabled, ignored or deleted", async () => {
    for (const change of ["disable", "ignore", "delete"] as const) {
      const { hub, admin, create } = await setup();
      const rogue = await create("eu-west-1");
      expect((await post(hub, rogue, reading("Windows", "eu-west-1", START, { activeEvent: flood }))).status).toBe(201);
      expect(await activeKey(hub)).toBe("HUNDREDFOLD");
      if (change === "delete") expect((await admin.json("DELETE", `/api/v1/admin/agents/${rogue.id}`)).status).toBe(204);
      else expect((await admin.json("PATCH", `/api/v1/admin/agents/${rogue.id}`, change === "disable" ? { enabled: false } : { eventReports: "ignored" })).status).toBe(200);
      expect({ change, active: await activeKey(hub), listed: await listedKeys(hub) }).toEqual({ change, active: "admin-set", listed: ["admin-set"] });
    }
  });

  test("an agent re-enabled reports again like any other", async () => {
    const { hub, admin, create, advance } = await setup();
    const agent = await create("eu-west-1");
    await report(hub, agent, [shared]);
    await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { enabled: false });
    expect(await listedKeys(hub)).toEqual(["admin-set"]);
    await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { enabled: true });
    advance(15_000);
    expect((await report(hub, agent, [shared])).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "admin-set"]);
  });
});

describe("an admin can mark an agent's event reports as ignored", () => {
  test("the agent answer shows eventReports; ignored withdraws its entries, and its reports answer 204 and schedule nothing until accepted again", async () => {
    const { hub, admin, create, advance } = await setup();
    const rogue = await create("eu-west-1");
    const listed = await admin.json<{ agents: AgentView[] }>("GET", "/api/v1/admin/agents");
    expect(listed.body.agents.find((agent) => agent.id === rogue.id)?.eventReports).toBe("accepted");
    expect((await report(hub, rogue, [flood])).status).toBe(204);

    const ignored = await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${rogue.id}`, { eventReports: "ignored" });
    expect(ignored.status).toBe(200);
    expect(ignored.body.agent).toMatchObject({ enabled: true, eventReports: "ignored" });
    expect(await listedKeys(hub)).toEqual(["admin-set"]);

    advance(15_000);
    expect((await report(hub, rogue, [flood, shared])).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["admin-set"]);
    // Still one report per 15 s, ignored or not.
    expect((await report(hub, rogue, [flood])).status).toBe(429);

    const accepted = await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${rogue.id}`, { eventReports: "accepted" });
    expect(accepted.body.agent.eventReports).toBe("accepted");
    advance(15_000);
    expect((await report(hub, rogue, [shared])).status).toBe(204);
    expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "admin-set"]);
  });

  test("a value other than ignored or accepted is a 400 problem and changes nothing", async () => {
    const { hub, admin, create } = await setup();
    const agent = await create("eu-west-1");
    await report(hub, agent, [shared]);
    for (const eventReports of ["IGNORED", "off", null, true]) {
      const response = await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { eventReports });
      expect({ eventReports, status: response.status }).toEqual({ eventReports, status: 400 });
      expectProblem(response.response);
    }
    expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "admin-set"]);
  });

  test("the OpenAPI document declares eventReports on the agent and its PATCH", async () => {
    const { hub } = await setup();
    type Schema = { properties?: Record<string, Schema>; $ref?: string; enum?: string[]; anyOf?: Schema[]; required?: string[] };
    const doc = await json<{ components: { schemas: Record<string, Schema> }; paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Schema }> } }>> }>(
      await call(hub, "GET", "/openapi.json"),
    );
    const values = (schema: Schema | undefined): string[] => {
      const resolved = schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop() ?? ""] : schema;
      return resolved?.enum ?? resolved?.anyOf?.flatMap((part) => values(part)) ?? [(resolved as { const?: string } | undefined)?.const ?? ""];
    };
    expect(values(doc.components.schemas.Agent?.properties?.eventReports).sort()).toEqual(["accepted", "ignored"]);
    expect(doc.components.schemas.Agent?.required).toContain("eventReports");
    const patch = doc.paths["/api/v1/admin/agents/{id}"]?.patch?.requestBody.content["application/json"]?.schema;
    expect(values(patch?.properties?.eventReports).sort()).toEqual(["accepted", "ignored"]);
  });
});
