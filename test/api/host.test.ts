/**
 * The DNS-rebinding guard: a state-changing request addressed to a name that
 * is not the hub's is refused with 421 and changes nothing; reads, agents and
 * the names an operator allows are unaffected.
 */
import { describe, expect, test } from "bun:test";
import { addAgent, reading } from "../live-helpers.ts";
import { call, expectProblem, json, testHub } from "../helpers.ts";

const SETUP = { username: "root", password: "correct horse battery" };
const PUBLIC = { ORIGIN: "https://hub.example.org", MFA_ENFORCED_ROLES: "" };

async function needsSetup(hub: ReturnType<typeof testHub>): Promise<boolean> {
  return (await json<{ needsSetup: boolean }>(await call(hub, "GET", "/api/v1/auth/session"))).needsSetup;
}

describe("state-changing requests at another host name", () => {
  test("a rebinding page cannot claim a hub that still needs setup", async () => {
    const hub = testHub({ env: PUBLIC });
    for (const host of ["attacker.example", "attacker.example:443", "hub.example.org.attacker.example", "localhost", "127.0.0.1:3000", "[::1]"]) {
      const refused = await call(hub, "POST", "/api/v1/auth/setup", { body: SETUP, headers: { host } });
      expect(refused.status).toBe(421);
      expectProblem(refused);
      const problem = await json<{ title: string; detail: string }>(refused);
      expect(problem.title).toBe("Misdirected Request");
      expect(problem.detail).toContain("ALLOWED_HOSTS");
      expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(await needsSetup(hub)).toBe(true);
    const own = await call(hub, "POST", "/api/v1/auth/setup", { body: SETUP, headers: { host: "HUB.example.org:443" } });
    expect(own.status).toBe(201);
    expect(await needsSetup(hub)).toBe(false);
  });

  test("every method but GET, HEAD and OPTIONS is checked; reads are not", async () => {
    const hub = testHub({ env: PUBLIC });
    const host = { host: "attacker.example" };
    for (const [method, path] of [["POST", "/api/v1/auth/logout"], ["PATCH", "/api/v1/admin/settings"], ["DELETE", "/api/v1/admin/users/1"]] as const) {
      expect((await call(hub, method, path, { headers: host })).status).toBe(421);
    }
    expect((await call(hub, "GET", "/api/v1/meta", { headers: host })).status).toBe(200);
    expect((await call(hub, "HEAD", "/healthz", { headers: host })).status).toBe(200);
    expect((await call(hub, "OPTIONS", "/api/v1/auth/setup", { headers: host })).status).not.toBe(421);
  });

  test("ALLOWED_HOSTS adds names, with or without a port in Host", async () => {
    const hub = testHub({ env: { ...PUBLIC, ALLOWED_HOSTS: "10.0.0.5, hub.lan" } });
    expect((await call(hub, "POST", "/api/v1/auth/setup", { body: SETUP, headers: { host: "hub.other" } })).status).toBe(421);
    expect(await needsSetup(hub)).toBe(true);
    expect((await call(hub, "POST", "/api/v1/auth/setup", { body: SETUP, headers: { host: "10.0.0.5:3000" } })).status).toBe(201);
    expect((await call(hub, "POST", "/api/v1/auth/logout", { headers: { host: "hub.lan" } })).status).not.toBe(421);
  });

  test("while the origin is a loopback address, every loopback name is the hub's", async () => {
    const hub = testHub({ env: { ORIGIN: "http://127.0.0.1:3000", MFA_ENFORCED_ROLES: "" } });
    for (const host of ["localhost:3000", "127.0.0.2", "[::1]:3000"]) {
      expect((await call(hub, "POST", "/api/v1/auth/logout", { headers: { host } })).status).not.toBe(421);
    }
    expect((await call(hub, "POST", "/api/v1/auth/setup", { body: SETUP, headers: { host: "rebound.example:3000" } })).status).toBe(421);
    expect(await needsSetup(hub)).toBe(true);
  });

  test("agents may post by any address the hub is reached at, with their token", async () => {
    const hub = testHub({ env: PUBLIC });
    const agent = addAgent(hub, "eu-west-1");
    const posted = await call(hub, "POST", "/api/v1/agent/readings", {
      body: reading("Windows", "eu-west-1", Date.now()),
      headers: { host: "10.0.0.5:3000", authorization: `Bearer ${agent.token}` },
    });
    expect(posted.status).toBe(201);
    const forged = await call(hub, "POST", "/api/v1/agent/readings", { body: reading("Windows", "eu-west-1", Date.now()), headers: { host: "attacker.example" } });
    expect(forged.status).toBe(401);
  });
});
