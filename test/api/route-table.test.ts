/**
 * Walks the whole route table: every route must declare an access rule, and
 * each rule is checked in both directions (allowed and refused) on every
 * route that uses it.
 */
import { describe, expect, test } from "bun:test";
import { ACCESS_RULES, type AccessRule } from "../../src/http/access.ts";
import type { Hub } from "../../src/hub.ts";
import { call, testHub } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";

interface RouteInfo {
  readonly method: string;
  readonly path: string;
  readonly access: AccessRule | undefined;
}

function routeTable(hub: Hub): RouteInfo[] {
  return hub.app.routes.map((route) => {
    const detail = (route.hooks as { detail?: Record<string, unknown> } | undefined)?.detail;
    const access = detail?.["x-access"];
    return { method: route.method, path: route.path, access: typeof access === "string" ? (access as AccessRule) : undefined };
  });
}

const SAMPLES: Record<string, string> = { platform: "Windows", region: "eu-west-1", name: "init.js", id: "1" };

function sample(path: string): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => SAMPLES[name] ?? "1");
}

type Probe = (hub: Hub, route: RouteInfo) => Promise<Response>;

/** For each rule: a request that must get through, and requests that must be refused with their status. */
const RULES: Record<AccessRule, { allowed: Probe; refused: { status: number; probe: Probe; env?: Record<string, string> }[] }> = {
  public: {
    allowed: (hub, route) => call(hub, route.method, sample(route.path)),
    refused: [],
  },
  "public-read": {
    allowed: (hub, route) => call(hub, route.method, sample(route.path)),
    refused: [{ status: 401, env: { REQUIRE_AUTH: "true" }, probe: (hub, route) => call(hub, route.method, sample(route.path)) }],
  },
  agent: {
    allowed: (hub, route) => {
      const agent = addAgent(hub, "eu-west-1");
      return call(hub, route.method, sample(route.path), { headers: { authorization: `Bearer ${agent.token}` }, body: route.method === "GET" ? undefined : {} });
    },
    refused: [
      { status: 401, probe: (hub, route) => call(hub, route.method, sample(route.path)) },
      { status: 401, probe: (hub, route) => call(hub, route.method, sample(route.path), { headers: { authorization: "Bearer unknown-token-value" } }) },
      {
        status: 403,
        probe: (hub, route) => {
          const agent = addAgent(hub, "eu-west-1", "steam", { enabled: false });
          return call(hub, route.method, sample(route.path), { headers: { authorization: `Bearer ${agent.token}` } });
        },
      },
    ],
  },
};

describe("route table", () => {
  const routes = routeTable(testHub());

  test("every route declares an access rule the hub knows", () => {
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => r.access === undefined || !(ACCESS_RULES as readonly string[]).includes(r.access));
    expect(missing).toEqual([]);
  });

  test("every rule is used and tested", () => {
    expect(Object.keys(RULES).sort()).toEqual([...ACCESS_RULES].sort());
  });

  for (const route of routes) {
    const rule = route.access;
    if (!rule) continue;
    const { allowed, refused } = RULES[rule];
    test(`${route.method} ${route.path} (${rule}): allowed`, async () => {
      const hub = testHub();
      const response = await allowed(hub, route);
      await response.body?.cancel();
      expect({ route: route.path, status: response.status }).not.toEqual({ route: route.path, status: 401 });
      expect(response.status).not.toBe(403);
      expect(response.status).toBeLessThan(500);
    });
    for (const { status, probe, env } of refused) {
      test(`${route.method} ${route.path} (${rule}): refused with ${status}${env ? ` when ${JSON.stringify(env)}` : ""}`, async () => {
        const hub = testHub({ env });
        const response = await probe(hub, route);
        expect(response.status).toBe(status);
      });
    }
  }
});
