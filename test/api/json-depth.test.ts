/**
 * JSON nested deeper than 32 levels is a 400 on every kind of route that
 * takes a body (agent, sign-in, admin), before it is parsed or validated,
 * and nothing stored changes.
 */
import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";

/** SPEC §16.1: deeper than 32 levels is refused. */
const SPEC_DEPTH = 32;
/** An object holding arrays, `levels` deep in all. */
const deep = (levels: number): string => `{"region":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;

describe("deeply nested JSON bodies", () => {
  test("are refused with 400 on agent, sign-in and admin routes, and change nothing", async () => {
    const { hub, admin } = await adminHub();
    const agent = addAgent(hub, "eu-west-1");
    const before = await admin.json<{ agents: unknown[] }>("GET", "/api/v1/admin/agents");
    const cases: { method: string; path: string; headers: Record<string, string> }[] = [
      { method: "POST", path: "/api/v1/agent/readings", headers: { authorization: `Bearer ${agent.token}` } },
      { method: "POST", path: "/api/v1/auth/login", headers: {} },
      { method: "POST", path: "/api/v1/auth/setup", headers: {} },
    ];
    for (const { method, path, headers } of cases) {
      const response = await call(hub, method, path, { rawBody: deep(SPEC_DEPTH + 1), headers: { ...headers, "content-type": "application/json" } });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expectProblem(response);
      expect((await json<{ detail: string }>(response)).detail).toContain(`${SPEC_DEPTH} levels`);
    }
    for (const [method, path] of [["POST", "/api/v1/admin/agents"], ["PATCH", "/api/v1/admin/agents/1"], ["POST", "/api/v1/admin/webhooks"]] as const) {
      const response = await admin.request(method, path, { headers: { "content-type": "application/json" }, body: JSON.parse(deep(SPEC_DEPTH + 1)) as unknown });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect((await json<{ detail: string }>(response)).detail).toContain(`${SPEC_DEPTH} levels`);
    }
    expect((await admin.json("GET", "/api/v1/admin/agents")).body).toEqual(before.body);
    // At the limit the body is parsed and meets the route's own rules instead.
    const atLimit = await call(hub, "POST", "/api/v1/auth/login", { rawBody: deep(SPEC_DEPTH), headers: { "content-type": "application/json" } });
    expect(atLimit.status).toBe(400);
    expect((await json<{ detail: string }>(atLimit)).detail).not.toContain("levels");
  });
});
