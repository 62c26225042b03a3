import { describe, expect, test } from "bun:test";
import { call, expectProblem, json, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const T0 = Date.parse("2026-11-21T18:00:00.000Z");

function setup(env: Record<string, string> = {}) {
  let now = T0;
  const hub = testHub({ now: () => now, env });
  return { hub, advance: (ms: number) => (now += ms), now: () => now };
}

describe("GET /api/v1/meta", () => {
  test("platforms with enabled agents in display order, and the site settings", async () => {
    const { hub } = setup({ CONTACT_EMAIL: "ops@example.org", DISCORD_URL: "https://discord.gg/abc", CONTRIBUTE_ENABLED: "true", PAGE_SIZE: "12" });
    addAgent(hub, "eu-west-1", "grdk");
    addAgent(hub, "eu-west-1", "steam");
    addAgent(hub, "us-east-1", "epic", { enabled: false });
    const response = await call(hub, "GET", "/api/v1/meta");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=120, stale-while-revalidate=480");
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await response.json()).toEqual({
      platforms: ["Windows", "GRDK"],
      contactEmail: "ops@example.org",
      discordUrl: "https://discord.gg/abc",
      matrixUrl: null,
      agentSetupUrl: "http://localhost:3000/contribute/agents",
      contributeEnabled: true,
      pageSize: 12,
    });
  });
});

describe("GET /api/v1/platforms/{platform}/incentives", () => {
  test("unknown platform is 404; platform ids are case-sensitive", async () => {
    const { hub } = setup();
    for (const platform of ["PS5", "windows"]) {
      const response = await call(hub, "GET", `/api/v1/platforms/${platform}/incentives`);
      expect(response.status).toBe(404);
      expectProblem(response);
    }
  });

  test("status moves error → initializing → ok → degraded, and back to error when agents go", async () => {
    const { hub, now, advance } = setup();
    const get = async () => json<{ status: string; statusReason: string | null }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(await get()).toMatchObject({ status: "error", statusReason: "no agents are configured for this platform" });
    const agent = addAgent(hub, "eu-west-1");
    expect(await get()).toMatchObject({ status: "initializing", statusReason: null });
    await post(hub, agent, reading("Windows", "eu-west-1", now()));
    expect(await get()).toMatchObject({ status: "ok", statusReason: null });
    advance(900_001);
    expect(await get()).toMatchObject({ status: "degraded", statusReason: "agents have not reported fresh data recently" });
    hub.ctx.db.sqlite.query("UPDATE agents SET enabled = 0").run();
    hub.reloadExternal();
    const payload = await json<{ status: string; regions: { region: string; isReal: boolean }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(payload.status).toBe("error");
    expect(payload.regions).toEqual([expect.objectContaining({ region: "eu-west-1", isReal: true })]);
  });

  test("ETag and If-None-Match; the same bytes until the content changes", async () => {
    const { hub, now, advance } = setup();
    const agent = addAgent(hub, "eu-west-1");
    const first = await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^"\d+"$/);
    expect(first.headers.get("cache-control")).toBe("public, max-age=15, stale-while-revalidate=60");
    const text = await first.text();
    advance(5000);
    const again = await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe(text);
    const notModified = await call(hub, "GET", "/api/v1/platforms/Windows/incentives", { headers: { "if-none-match": `W/"1", ${etag}` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    expect(await notModified.text()).toBe("");
    await post(hub, agent, reading("Windows", "eu-west-1", now()));
    const changed = await call(hub, "GET", "/api/v1/platforms/Windows/incentives", { headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(Number((changed.headers.get("etag") ?? "").replaceAll('"', ""))).toBeGreaterThan(Number(etag.replaceAll('"', "")));
  });

  test("the read gate: 401 and no-store while requireAuth is on; never on health or docs", async () => {
    const { hub } = setup({ REQUIRE_AUTH: "true" });
    for (const path of ["/api/v1/meta", "/api/v1/platforms/Windows/incentives", "/api/v1/platforms/Windows/coverage", "/api/v1/platforms/Windows/incentives/stream"]) {
      const response = await call(hub, "GET", path);
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
      expectProblem(response);
    }
    expect((await call(hub, "GET", "/healthz")).status).toBe(200);
    expect((await call(hub, "GET", "/openapi.json")).status).toBe(200);
  });
});

describe("GET /api/v1/platforms/{platform}/coverage", () => {
  test("one element per catalogue region with agents and fresh agents", async () => {
    const { hub, now, advance } = setup();
    const a = addAgent(hub, "eu-west-1");
    const b = addAgent(hub, "eu-west-1");
    addAgent(hub, "eu-west-1", "steam", { enabled: false });
    addAgent(hub, "us-east-1", "epic");
    await post(hub, a, reading("Windows", "eu-west-1", now() - 60_000));
    advance(10);
    await post(hub, b, reading("Windows", "eu-west-1", now() - 890_000));
    advance(20_000);
    const response = await call(hub, "GET", "/api/v1/platforms/Windows/coverage");
    expect(response.headers.get("cache-control")).toBe("public, max-age=30, stale-while-revalidate=120");
    const body = await json<{ platform: string; regions: { region: string; agents: number; freshAgents: number; displayName: string; flag: string }[] }>(response);
    expect(body.platform).toBe("Windows");
    expect(body.regions.length).toBe(15);
    expect(body.regions[0]).toEqual({ region: "eu-west-1", displayName: "EU West (Ireland)", flag: "🇮🇪", agents: 2, freshAgents: 1 });
    expect(body.regions.find((r) => r.region === "us-east-1")).toMatchObject({ agents: 0, freshAgents: 0 });
    expect((await call(hub, "GET", "/api/v1/platforms/Xbox/coverage")).status).toBe(404);
  });
});

describe("the Bun-native incentives route", () => {
  test("answers the plain public case itself, and hands everything else to the app", async () => {
    const { IncentivesReplies, incentivesFastRoute, forElysia } = await import("../../src/http/incentives.ts");
    const { hub } = setup();
    const replies = new IncentivesReplies(hub.ctx);
    const handedOver: string[] = [];
    const route = incentivesFastRoute(hub.ctx, replies, (request) => {
      handedOver.push(request.url);
      return new Response("from the app");
    });
    const server = { requestIP: () => ({ address: "198.51.100.20" }) } as never;
    const request = (platform: string, headers: Record<string, string> = {}, url = `http://localhost/api/v1/platforms/${platform}/incentives`) =>
      Object.assign(new Request(url, { headers }), { params: { platform }, cookies: new Map() }) as never;
    const direct = await route.GET(request("Windows"), server);
    const viaApp = await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    expect(direct.status).toBe(200);
    expect(await direct.text()).toBe(await viaApp.text());
    for (const name of ["etag", "cache-control", "content-type", "x-content-type-options", "x-frame-options", "referrer-policy"]) expect(direct.headers.get(name)).toBe(viaApp.headers.get(name));
    expect(hub.ctx.accounts.presence.online([])).toBe(2);
    const conditional = await route.GET(request("Windows", { "if-none-match": direct.headers.get("etag") ?? "" }), server);
    expect(conditional.status).toBe(304);
    expect(handedOver).toEqual([]);
    await route.GET(request("PS5"), server);
    hub.ctx.settings.update({ requireAuth: true });
    await route.GET(request("Windows"), server);
    await route.GET(request("Windows", {}, "http://hub/api/v1/platforms/Windows/incentives"), server);
    expect(handedOver).toEqual([
      "http://localhost/api/v1/platforms/PS5/incentives",
      "http://localhost/api/v1/platforms/Windows/incentives",
      "http://hub.invalid/api/v1/platforms/Windows/incentives",
    ]);
    expect(forElysia(new Request("http://example.org:3000/x")).url).toBe("http://example.org:3000/x");
  });
});
