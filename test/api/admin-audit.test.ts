import { describe, expect, test } from "bun:test";
import { audit, CLI_ACTOR } from "../../src/db/audit.ts";
import { AUDIT_VIA } from "../../src/domain/provenance.ts";
import { adminHub, PASSWORD } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, json, testHub } from "../helpers.ts";

const NOW = Date.parse("2026-11-21T18:00:00.000Z");

interface Entry {
  id: number;
  at: number;
  actorId: number | null;
  actorName: string | null;
  via: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
}

interface Page {
  entries: Entry[];
  next: number | null;
}

/** An admin hub where root made a few changes and a second admin, ada, made one. */
async function setup() {
  let now = NOW;
  const { hub, admin } = await adminHub({}, () => now);
  const rootId = (await admin.session()).user?.id ?? 0;
  const agents: number[] = [];
  for (const region of ["eu-west-1", "eu-west-2", "us-east-1"]) {
    now += 1000;
    agents.push((await admin.json<{ agent: { id: number } }>("POST", "/api/v1/admin/agents", { region, provider: "steam" })).body.agent.id);
  }
  now += 1000;
  await admin.json("POST", `/api/v1/admin/agents/${agents[0]}/token`);
  const ada = (await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "ada", role: "admin", password: PASSWORD })).body.user.id;
  const adaBrowser = new Browser(hub, "203.0.113.20");
  await adaBrowser.login("ada", PASSWORD);
  now += 1000;
  await adaBrowser.json("PATCH", "/api/v1/admin/settings", { requireAuth: true });
  return { hub, admin, rootId, ada, agents };
}

async function page(browser: Browser, query = ""): Promise<Page> {
  const { status, body } = await browser.json<Page>("GET", `/api/v1/admin/audit${query}`);
  expect(status).toBe(200);
  return body;
}

describe("GET /api/v1/admin/audit", () => {
  test("newest first, with who, how, what, the target and the recorded detail", async () => {
    const { admin, rootId, ada, agents } = await setup();
    const { entries, next } = await page(admin);
    expect(next).toBeNull();
    expect(entries.map((e) => e.action)).toEqual(["settings.update", "user.create", "agent.rotateToken", "agent.create", "agent.create", "agent.create", "setup"]);
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    expect(entries[0]).toMatchObject({ actorId: ada, actorName: "ada", via: "session", target: "settings", detail: { requireAuth: true } });
    expect(entries[2]).toMatchObject({ actorId: rootId, actorName: "root", via: "session", target: `agent:${agents[0]}`, detail: null });
    expect(entries[5]).toEqual({
      id: entries[5]?.id ?? 0,
      at: NOW + 1000,
      actorId: rootId,
      actorName: "root",
      via: "session",
      action: "agent.create",
      target: `agent:${agents[0]}`,
      detail: { region: "eu-west-1", provider: "steam" },
    });
  });

  test("pages follow `next` until it is null, each entry exactly once", async () => {
    const { admin } = await setup();
    const all = (await page(admin)).entries.map((e) => e.id);
    const seen: number[] = [];
    const sizes: number[] = [];
    let before: number | null = null;
    for (let i = 0; i < 10; i++) {
      const current: Page = await page(admin, `?limit=3${before === null ? "" : `&before=${before}`}`);
      sizes.push(current.entries.length);
      seen.push(...current.entries.map((e) => e.id));
      if (current.next === null) break;
      expect(current.next).toBe(current.entries.at(-1)?.id ?? 0);
      before = current.next;
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(all);
    const exact = await page(admin, `?limit=${all.length}`);
    expect(exact.next).toBeNull();
    expect((await page(admin, `?before=${all.at(-1)}`)).entries).toEqual([]);
  });

  test("`action` keeps the actions starting with it; `actor` the changes of one user", async () => {
    const { admin, rootId, ada } = await setup();
    expect((await page(admin, "?action=agent.")).entries.map((e) => e.action)).toEqual(["agent.rotateToken", "agent.create", "agent.create", "agent.create"]);
    expect((await page(admin, "?action=agent.create")).entries.map((e) => e.action)).toEqual(["agent.create", "agent.create", "agent.create"]);
    expect((await page(admin, "?action=agent.creat")).entries).toHaveLength(3);
    expect((await page(admin, "?action=%25")).entries).toEqual([]);
    expect((await page(admin, "?action=agent_")).entries).toEqual([]);
    expect((await page(admin, `?actor=${ada}`)).entries.map((e) => e.action)).toEqual(["settings.update"]);
    expect((await page(admin, `?actor=${rootId}`)).entries).toHaveLength(6);
    expect((await page(admin, "?actor=999")).entries).toEqual([]);
    const both = await page(admin, `?actor=${rootId}&action=agent.create&limit=2`);
    expect(both.entries.map((e) => e.action)).toEqual(["agent.create", "agent.create"]);
    expect(both.next).not.toBeNull();
    const rest = await page(admin, `?actor=${rootId}&action=agent.create&limit=2&before=${both.next}`);
    expect(rest.entries).toHaveLength(1);
    expect(rest.next).toBeNull();
  });

  test("actorName is the user's current name, the recorded one once deleted, and null without a user", async () => {
    const { hub, admin, ada, rootId } = await setup();
    hub.ctx.db.sqlite.query("UPDATE users SET username = 'rooted', username_key = 'rooted' WHERE id = ?").run(rootId);
    await admin.json("PATCH", `/api/v1/admin/users/${ada}`, { role: "user" });
    await admin.request("DELETE", `/api/v1/admin/users/${ada}`);
    audit(hub.ctx.db.orm, CLI_ACTOR, "user.passwordReset", `user:${rootId}`, { username: "rooted" }, NOW);
    audit(hub.ctx.db.orm, { userId: rootId, name: "rooted", via: "api-key" }, "apikey.create", "apikey:1", { label: null }, NOW);
    const { entries } = await page(admin);
    const byAction = (action: string) => entries.filter((e) => e.action === action);
    expect(byAction("apikey.create")[0]).toMatchObject({ actorId: rootId, actorName: "rooted", via: "api-key" });
    expect(byAction("user.passwordReset")[0]).toMatchObject({ actorId: null, actorName: null, via: "cli" });
    expect(byAction("settings.update")[0]).toMatchObject({ actorId: ada, actorName: "ada", via: "session" });
    expect(byAction("user.delete")[0]).toMatchObject({ actorId: rootId, actorName: "rooted" });
  });

  test("the first admin made from the configuration is audited as the configuration's doing", async () => {
    const hub = testHub({ env: { ADMIN_BOOTSTRAP_USER: "boot", ADMIN_BOOTSTRAP_PASSWORD: PASSWORD, MFA_ENFORCED_ROLES: "" } });
    const boot = new Browser(hub);
    expect((await boot.login("boot", PASSWORD)).next).toBe("ok");
    const { entries } = await page(boot);
    expect(entries).toEqual([expect.objectContaining({ action: "user.create", actorId: null, actorName: null, via: "config", detail: { username: "boot", role: "admin" } })]);
  });

  test("bad query values are a 400 naming the parameter", async () => {
    const { admin } = await setup();
    const cases: [string, string][] = [
      ["limit=0", "query.limit"],
      ["limit=201", "query.limit"],
      ["limit=-5", "query.limit"],
      ["limit=abc", "query.limit"],
      ["limit=1.5", "query.limit"],
      ["limit=1e2", "query.limit"],
      ["before=0", "query.before"],
      ["before=x", "query.before"],
      ["actor=-1", "query.actor"],
      ["actor=99999999999999999999", "query.actor"],
      ["action=", "query.action"],
      [`action=${"a".repeat(65)}`, "query.action"],
    ];
    for (const [query, location] of cases) {
      const response = await admin.request("GET", `/api/v1/admin/audit?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expectProblem(response);
      const body = await json<{ errors?: { location: string }[] }>(response);
      expect({ query, location: body.errors?.[0]?.location }).toEqual({ query, location });
    }
    expect((await admin.request("GET", "/api/v1/admin/audit?limit=1")).status).toBe(200);
    expect((await admin.request("GET", "/api/v1/admin/audit?limit=200")).status).toBe(200);
  });

  test("admins only: 401 without credentials, 403 for a non-admin", async () => {
    const { hub, admin } = await setup();
    const anonymous = await call(hub, "GET", "/api/v1/admin/audit");
    expect(anonymous.status).toBe(401);
    expectProblem(anonymous);
    await admin.json("POST", "/api/v1/admin/users", { username: "gus", role: "user", password: PASSWORD });
    const gus = new Browser(hub, "203.0.113.30");
    await gus.login("gus", PASSWORD);
    const refused = await gus.request("GET", "/api/v1/admin/audit");
    expect(refused.status).toBe(403);
    expectProblem(refused);
  });

  test("a change made with an API key is recorded as made through it", async () => {
    const { hub, admin } = await adminHub({ ENABLE_API_KEYS: "true" });
    const { key } = (await admin.json<{ key: string }>("POST", "/api/v1/auth/api-keys", { label: "script" })).body;
    const created = await call(hub, "POST", "/api/v1/admin/agents", { body: { region: "eu-west-1", provider: "steam" }, headers: { authorization: `Bearer ${key}` } });
    expect(created.status).toBe(201);
    const entries = (await page(admin, "?action=agent.create")).entries;
    expect(entries).toEqual([expect.objectContaining({ actorName: "root", via: "api-key" })]);
    expect((await page(admin, "?action=apikey.create")).entries).toEqual([expect.objectContaining({ actorName: "root", via: "session" })]);
  });

  test("the OpenAPI description lists exactly the `via` values the hub writes, the four of SPEC §11.5b", async () => {
    const doc = await json<{ components: { schemas: { AuditEntry: { properties: { via: { anyOf: unknown[] } } }; AuditVia: { enum: string[] } } } }>(
      await call(testHub(), "GET", "/openapi.json"),
    );
    expect(doc.components.schemas.AuditEntry.properties.via.anyOf).toEqual([expect.objectContaining({ $ref: "#/components/schemas/AuditVia" }), { type: "null" }]);
    expect(doc.components.schemas.AuditVia.enum).toEqual([...AUDIT_VIA]);
    expect([...AUDIT_VIA]).toEqual(["session", "api-key", "cli", "config"]);
  });
});
