/**
 * JSON nested deeper than 32 levels is a 400 on every kind of route that
 * takes a body (agent, sign-in, admin), before it is parsed or validated,
 * and nothing stored changes.
 */
import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH } from "../../src/http/errors.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";

const deep = (levels: number): string => `{"region":${"[".repeat(levels)}${"]".repeat(levels)}}`;

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
      const response = await call(hub, method, path, { rawBody: deep(MAX_JSON_DEPTH + 1), headers: { ...headers, "content-type": "application/json" } });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expectProblem(response);
      expect((await json<{ detail: string }>(response)).detail).toContain(`${MAX_JSON_DEPTH} levels`);
    }
    for (const [method, path] of [["POST", "/api/v1/admin/agents"], ["PATCH", "/api/v1/admin/agents/1"], ["POST", "/api/v1/admin/webhooks"]] as const) {
      const response = await admin.request(method, path, { headers: { "content-type": "application/json" }, body: JSON.parse(deep(MAX_JSON_DEPTH + 1)) as unknown });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect((await json<{ detail: string }>(response)).detail).toContain(`${MAX_JSON_DEPTH} levels`);
    }
    expect((await admin.json("GET", "/api/v1/admin/agents")).body).toEqual(before.body);
  });
});
