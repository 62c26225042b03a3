import { describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/domain/tokens.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { post, reading, SseReader } from "../live-helpers.ts";

interface AgentView {
  id: number;
  enabled: boolean;
  label: string | null;
  platform: string;
  region: string;
  provider: string;
  provisionId: string | null;
  source: string;
  pollMin: string | null;
  pollMax: string | null;
  readings: number;
  lastReadingAt: number | null;
}

async function setup() {
  let now = Date.now();
  const { hub, admin } = await adminHub({}, () => now);
  const create = async (region: string, provider: string, label?: string) => {
    const made = await admin.json<{ agent: AgentView; token: string }>("POST", "/api/v1/admin/agents", { region, provider, label });
    expect(made.status).toBe(201);
    return { ...made.body.agent, token: made.body.token };
  };
  return { hub, admin, create, advance: (ms: number) => (now += ms), now: () => now };
}

describe("admin: agents", () => {
  test("create: the token is shown once, works at once, and only its hash is stored", async () => {
    const { hub, create } = await setup();
    const agent = await create("eu-west-1", "STEAM", "Attic");
    expect(agent).toMatchObject({ enabled: true, label: "Attic", platform: "Windows", region: "eu-west-1", provider: "steam", source: "manual", provisionId: null, readings: 0, lastReadingAt: null });
    expect(agent.token).toMatch(/^[A-Za-z0-9_-]{86}$/);
    const stored = hub.ctx.db.sqlite.query<{ token_hash: string }, [number]>("SELECT token_hash FROM agents WHERE id = ?").get(agent.id);
    expect(stored?.token_hash).toBe(sha256Hex(agent.token));
    const assignment = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } });
    expect(assignment.status).toBe(200);
    const meta = await json<{ platforms: string[] }>(await call(hub, "GET", "/api/v1/meta"));
    expect(meta.platforms).toEqual(["Windows"]);
  });

  test("create: unknown region or provider is 400", async () => {
    const { admin } = await setup();
    for (const body of [{ region: "mars-north-1", provider: "steam" }, { region: "eu-west-1", provider: "xbox" }, { region: "eu-west-1" }]) {
      const response = await admin.json("POST", "/api/v1/admin/agents", body);
      expect(response.status).toBe(400);
      expectProblem(response.response);
    }
  });

  test("list: reading counts and newest reading per agent", async () => {
    const { hub, admin, create, now, advance } = await setup();
    const a = await create("eu-west-1", "steam");
    const b = await create("eu-west-2", "epic");
    await post(hub, { id: a.id, token: a.token }, reading("Windows", "eu-west-1", now() - 5000));
    advance(300_000);
    await post(hub, { id: a.id, token: a.token }, reading("Windows", "eu-west-1", now() - 1000));
    const { body } = await admin.json<{ agents: AgentView[] }>("GET", "/api/v1/admin/agents");
    expect(body.agents.map((x) => [x.id, x.readings, x.lastReadingAt])).toEqual([
      [a.id, 2, now() - 1000],
      [b.id, 0, null],
    ]);
  });

  test("patch: label, cadence (validated, null clears), enabled; agents see the new assignment", async () => {
    const { hub, admin, create } = await setup();
    const agent = await create("eu-west-1", "steam");
    const changed = await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${agent.id}`, { label: "Cellar", pollMin: "%refreshTime% * 2", pollMax: 900 });
    expect(changed.status).toBe(200);
    expect(changed.body.agent).toMatchObject({ label: "Cellar", pollMin: "%refreshTime% * 2", pollMax: "900" });
    const assignment = await json(await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } }));
    expect(assignment).toMatchObject({ pollMinSeconds: 600, pollMaxSeconds: 900 });
    const bad = await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { pollMin: "%refresh% * 2" });
    expect(bad.status).toBe(400);
    expectProblem(bad.response);
    expect((await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${agent.id}`, { pollMin: null, pollMax: null })).body.agent).toMatchObject({ pollMin: null, pollMax: null });
    expect((await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { enabled: false })).status).toBe(200);
    expect((await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } })).status).toBe(403);
    expect((await admin.json("PATCH", "/api/v1/admin/agents/999", { label: "x" })).status).toBe(404);
    expect((await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { dataMode: "shred" })).status).toBe(400);
    expect((await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { region: "mars-north-1" })).status).toBe(400);
  });

  test("a cadence that is zero, negative or not a number or expression is a 400 and changes nothing", async () => {
    const { admin, create } = await setup();
    const agent = await create("eu-west-1", "steam");
    expect((await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { pollMin: "600", pollMax: "900" })).status).toBe(200);
    const refused: unknown[] = [-5, 0, -0.5, "-5", "0", " 0 ", "%refreshTime% - 1000", "%refreshTime% * 0", "1e-7", 1e-7, "abc", "", Number.MAX_VALUE * 0];
    for (const field of ["pollMin", "pollMax"]) {
      for (const value of refused) {
        const response = await admin.json<{ errors?: { location: string }[] }>("PATCH", `/api/v1/admin/agents/${agent.id}`, { [field]: value });
        expect({ field, value, status: response.status }).toEqual({ field, value, status: 400 });
        expectProblem(response.response);
        expect(response.body.errors?.some((e) => e.location.startsWith(`body.${field}`))).toBe(true);
      }
    }
    const list = await admin.json<{ agents: AgentView[] }>("GET", "/api/v1/admin/agents");
    expect(list.body.agents.find((a) => a.id === agent.id)).toMatchObject({ pollMin: "600", pollMax: "900" });
  });

  test("move with dataMode keep, orphan or delete; the old slot's live value is rebuilt from what remains", async () => {
    for (const mode of ["keep", "orphan", "delete"] as const) {
      const { hub, admin, create, now, advance } = await setup();
      const mover = await create("eu-west-1", "steam");
      const stayer = await create("eu-west-1", "steam");
      await post(hub, { id: stayer.id, token: stayer.token }, reading("Windows", "eu-west-1", now() - 60_000, { killer: 25 }));
      advance(10);
      await post(hub, { id: mover.id, token: mover.token }, reading("Windows", "eu-west-1", now() - 1000, { killer: 150 }));
      const stream = new SseReader(await call(hub, "GET", "/api/v1/platforms/EGS/incentives/stream"));
      await stream.nextMessage();
      const moved = await admin.json<{ agent: AgentView }>("PATCH", `/api/v1/admin/agents/${mover.id}`, { provider: "epic", region: "us-east-1", dataMode: mode });
      expect(moved.body.agent).toMatchObject({ platform: "EGS", provider: "epic", region: "us-east-1", readings: mode === "keep" ? 1 : 0 });
      const pushed = JSON.parse((await stream.nextMessage(200))?.data ?? "{}");
      expect(pushed.regions.map((r: { region: string }) => r.region)).toEqual(["us-east-1"]);
      await stream.close();
      const windows = await json<{ regions: { region: string; killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
      expect(windows.regions[0]?.killer).toBe(mode === "delete" ? 25 : 150);
      const attribution = await admin.json<{ attribution: { agentId: number | null; readings: number }[] }>("GET", "/api/v1/admin/platforms/Windows/regions/eu-west-1/attribution");
      const expected =
        mode === "keep" ? [{ agentId: mover.id, readings: 1 }, { agentId: stayer.id, readings: 1 }] : mode === "orphan" ? [{ agentId: null, readings: 1 }, { agentId: stayer.id, readings: 1 }] : [{ agentId: stayer.id, readings: 1 }];
      expect(attribution.body.attribution.map(({ agentId, readings }) => ({ agentId, readings }))).toEqual(expected);
    }
  });

  test("delete with dataMode orphan (default) or delete; the token stops working", async () => {
    for (const mode of ["orphan", "delete"] as const) {
      const { hub, admin, create, now } = await setup();
      const agent = await create("eu-west-1", "steam");
      await post(hub, { id: agent.id, token: agent.token }, reading("Windows", "eu-west-1", now()));
      const query = mode === "orphan" ? "" : "?dataMode=delete";
      expect((await admin.request("DELETE", `/api/v1/admin/agents/${agent.id}${query}`)).status).toBe(204);
      expect((await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } })).status).toBe(401);
      const left = hub.ctx.db.sqlite.query<{ n: number; attributed: number }, []>("SELECT COUNT(*) AS n, COUNT(agent_id) AS attributed FROM readings").get();
      expect(left).toEqual(mode === "orphan" ? { n: 1, attributed: 0 } : { n: 0, attributed: 0 });
      const payload = await json<{ status: string; regions: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
      expect(payload.status).toBe("error");
      expect(payload.regions.length).toBe(mode === "orphan" ? 1 : 0);
      expect((await admin.request("DELETE", `/api/v1/admin/agents/${agent.id}`)).status).toBe(404);
    }
    const { admin, create } = await setup();
    const agent = await create("eu-west-1", "steam");
    expect((await admin.request("DELETE", `/api/v1/admin/agents/${agent.id}?dataMode=burn`)).status).toBe(400);
  });

  test("token rotation: the old token is refused at once, the new one works", async () => {
    const { hub, admin, create } = await setup();
    const agent = await create("eu-west-1", "steam");
    const rotated = await admin.json<{ token: string }>("POST", `/api/v1/admin/agents/${agent.id}/token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).not.toBe(agent.token);
    expect((await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${agent.token}` } })).status).toBe(401);
    expect((await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${rotated.body.token}` } })).status).toBe(200);
    expect((await admin.json("POST", "/api/v1/admin/agents/999/token")).status).toBe(404);
  });

  test("export never carries a raw token; import upserts by tokenHash and skips bad rows with reasons", async () => {
    const { hub, admin, create } = await setup();
    const agent = await create("eu-west-1", "steam", "Original");
    const exported = await admin.json<{ agents: Record<string, unknown>[] }>("GET", "/api/v1/admin/agents/export");
    expect(exported.body.agents).toEqual([
      { provisionId: null, tokenHash: sha256Hex(agent.token), region: "eu-west-1", provider: "steam", platform: "Windows", label: "Original", enabled: true, source: "manual", pollMin: null, pollMax: null },
    ]);
    expect(JSON.stringify(exported.body)).not.toContain(agent.token);

    const newToken = "imported-token-value-1234567890";
    const result = await admin.json<{ imported: number; skipped: { index: number; provisionId: string | null; reason: string }[] }>("POST", "/api/v1/admin/agents/import", {
      agents: [
        { ...exported.body.agents[0], label: "Renamed", pollMin: "600" },
        { tokenHash: sha256Hex(newToken), region: "ap-south-1", provider: "grdk", provisionId: "far-away" },
        { tokenHash: "abc", region: "eu-west-1", provider: "steam", provisionId: "short-hash" },
        { tokenHash: sha256Hex("x-1"), region: "mars-north-1", provider: "steam" },
        { tokenHash: sha256Hex("x-2"), region: "eu-west-1", provider: "steam", platform: "EGS" },
        { tokenHash: sha256Hex("x-3"), region: "eu-west-1", provider: "steam", pollMin: "1 +" },
        { tokenHash: sha256Hex("x-4"), region: "eu-west-1", provider: "steam", provisionId: "far-away" },
        "not an object",
      ],
    });
    expect(result.status).toBe(200);
    expect(result.body.imported).toBe(2);
    expect(result.body.skipped.map((s) => [s.index, s.provisionId])).toEqual([
      [2, "short-hash"],
      [3, null],
      [4, null],
      [5, null],
      [6, "far-away"],
      [7, null],
    ]);
    expect(result.body.skipped[0]?.reason).toContain("tokenHash");
    expect(result.body.skipped[1]?.reason).toContain("region");
    expect(result.body.skipped[2]?.reason).toContain("platform");
    expect(result.body.skipped[3]?.reason).toContain("pollMin");
    expect(result.body.skipped[4]?.reason).toContain("belongs to agent");
    const list = await admin.json<{ agents: AgentView[] }>("GET", "/api/v1/admin/agents");
    expect(list.body.agents.map((a) => [a.id, a.label, a.source, a.pollMin])).toEqual([
      [agent.id, "Renamed", "manual", "600"],
      [agent.id + 1, null, "imported", null],
    ]);
    const imported = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${newToken}` } });
    expect(imported.status).toBe(200);
    expect((await json(imported)).platform).toBe("GRDK");
    expect((await admin.json("POST", "/api/v1/admin/agents/import", { agents: "nope" })).status).toBe(400);
  });
});

describe("admin: data", () => {
  test("filtered deletion of one agent's readings rebuilds the live value", async () => {
    const { hub, admin, create, now, advance } = await setup();
    const agent = await create("eu-west-1", "steam");
    const base = now();
    for (const [i, killer] of [100, 50, 150].entries()) {
      await post(hub, { id: agent.id, token: agent.token }, reading("Windows", "eu-west-1", base + i * 300_000 - 5000, { killer }));
      advance(300_000);
    }
    expect((await json<{ regions: { killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions[0]?.killer).toBe(150);
    const dry = await admin.json<{ removed: number }>("DELETE", `/api/v1/admin/agents/${agent.id}/readings?killerMin=40&platform=Windows&dryRun=true`);
    expect(dry.body.removed).toBe(3);
    expect((await json<{ regions: { killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions[0]?.killer).toBe(150);
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${agent.id}/readings?dryRun=maybe`)).status).toBe(400);
    const removed = await admin.json<{ removed: number }>("DELETE", `/api/v1/admin/agents/${agent.id}/readings?killerMin=120&platform=Windows`);
    expect(removed.body.removed).toBe(1);
    expect((await json<{ regions: { killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions[0]?.killer).toBe(50);
    const byTime = await admin.json<{ removed: number }>("DELETE", `/api/v1/admin/agents/${agent.id}/readings?from=${base + 100_000}&to=${base + 400_000}`);
    expect(byTime.body.removed).toBe(1);
    expect((await json<{ regions: { killer: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions[0]?.killer).toBe(100);
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${agent.id}/readings?platform=PS5`)).status).toBe(400);
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${agent.id}/readings?region=nowhere-1`)).status).toBe(400);
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${agent.id}/readings?from=yesterday`)).status).toBe(400);
    expect((await admin.json("DELETE", "/api/v1/admin/agents/999/readings")).status).toBe(404);
  });

  test("deleting orphans removes only detached readings", async () => {
    const { hub, admin, create, now } = await setup();
    const gone = await create("eu-west-1", "steam");
    const kept = await create("eu-west-2", "steam");
    await post(hub, { id: gone.id, token: gone.token }, reading("Windows", "eu-west-1", now()));
    await post(hub, { id: kept.id, token: kept.token }, reading("Windows", "eu-west-2", now()));
    await admin.request("DELETE", `/api/v1/admin/agents/${gone.id}`);
    expect((await json<{ regions: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions.length).toBe(2);
    expect((await admin.json<{ removed: number }>("DELETE", "/api/v1/admin/readings/orphans?dryRun=true")).body.removed).toBe(1);
    expect((await json<{ regions: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions.length).toBe(2);
    expect((await admin.json<{ removed: number }>("DELETE", "/api/v1/admin/readings/orphans")).body.removed).toBe(1);
    expect((await json<{ regions: { region: string }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions.map((r) => r.region)).toEqual(["eu-west-2"]);
    expect((await admin.json<{ removed: number }>("DELETE", "/api/v1/admin/readings/orphans")).body.removed).toBe(0);
  });

  test("attribution: 404 for unknown platform or region", async () => {
    const { admin } = await setup();
    expect((await admin.json("GET", "/api/v1/admin/platforms/PS5/regions/eu-west-1/attribution")).status).toBe(404);
    expect((await admin.json("GET", "/api/v1/admin/platforms/Windows/regions/nowhere-9/attribution")).status).toBe(404);
    expect((await admin.json<{ attribution: unknown[] }>("GET", "/api/v1/admin/platforms/Windows/regions/eu-west-1/attribution")).body.attribution).toEqual([]);
  });

  test("every admin change of agents and data is audited, but not a new label alone (SPEC §16.1)", async () => {
    const { hub, admin, create } = await setup();
    const agent = await create("eu-west-1", "steam");
    await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { label: "x" });
    await admin.json("PATCH", `/api/v1/admin/agents/${agent.id}`, { label: "y", enabled: false });
    await admin.json("POST", `/api/v1/admin/agents/${agent.id}/token`);
    await admin.json("POST", "/api/v1/admin/agents/import", { agents: [] });
    await admin.json("DELETE", `/api/v1/admin/agents/${agent.id}/readings`);
    await admin.json("DELETE", "/api/v1/admin/readings/orphans");
    await admin.request("DELETE", `/api/v1/admin/agents/${agent.id}`);
    const actions = hub.ctx.db.sqlite.query<{ action: string }, []>("SELECT action FROM audit_log WHERE action LIKE 'agent.%' OR action LIKE 'readings.%' ORDER BY id").all();
    expect(actions.map((a) => a.action)).toEqual(["agent.create", "agent.update", "agent.rotateToken", "agent.import", "readings.delete", "readings.deleteOrphans", "agent.delete"]);
  });
});
