import { describe, expect, test } from "bun:test";
import { ACCESS_RULES, type AccessRule } from "../../src/http/access.ts";
import { call, testHub } from "../helpers.ts";

interface RouteInfo {
  readonly method: string;
  readonly path: string;
  readonly access: AccessRule | undefined;
}

function routeTable(): RouteInfo[] {
  const hub = testHub();
  return hub.app.routes.map((route) => {
    const detail = (route.hooks as { detail?: Record<string, unknown> } | undefined)?.detail;
    const access = detail?.["x-access"];
    return { method: route.method, path: route.path, access: typeof access === "string" ? (access as AccessRule) : undefined };
  });
}

/** A concrete URL for a route pattern. */
function sample(path: string): string {
  return path.replace(/:name/g, "init.js").replace(/:[A-Za-z]+/g, "1");
}

describe("route table", () => {
  test("every route declares an access rule the hub knows", () => {
    const routes = routeTable();
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => r.access === undefined || !(ACCESS_RULES as readonly string[]).includes(r.access));
    expect(missing).toEqual([]);
  });

  test("public routes answer without credentials", async () => {
    const hub = testHub();
    for (const route of routeTable().filter((r) => r.access === "public")) {
      const response = await call(hub, route.method, sample(route.path));
      expect({ route: `${route.method} ${route.path}`, status: response.status }).toEqual({ route: `${route.method} ${route.path}`, status: 200 });
    }
  });
});
