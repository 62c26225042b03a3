import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { call, expectProblem, json, scratchDirs, testHub } from "../helpers.ts";
import { htmlCsp } from "../../src/http/security.ts";
import { storeReadings } from "../history-helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const scratch = scratchDirs();
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
      pushEnabled: true,
      latencyHosts: hub.ctx.config.catalogue.regions.map((r) => ({ region: r.id, host: `gamelift.${r.id}.amazonaws.com` })),
    });
  });

  test("an operator's region is timed at its own latencyHost, or at its GameLift host when it names none", async () => {
    const config = join(scratch(), "hub.yaml");
    writeFileSync(config, "regions:\n  - { id: me-south-1, name: Bahrain, tz: Asia/Bahrain }\n  - { id: xx-own-1, name: Own, tz: UTC, latencyHost: ping.example.net }\n");
    const { hub } = setup({ HUB_CONFIG: config });
    const { latencyHosts } = await json<{ latencyHosts: { region: string; host: string }[] }>(await call(hub, "GET", "/api/v1/meta"));
    expect(latencyHosts.length).toBe(BUILT_IN_REGIONS.length + 2);
    expect(latencyHosts.slice(-2)).toEqual([
      { region: "me-south-1", host: "gamelift.me-south-1.amazonaws.com" },
      { region: "xx-own-1", host: "ping.example.net" },
    ]);
  });

  test("latencyHosts is empty with LATENCY_PROBES off, and the page's CSP then allows no other origin", async () => {
    const { hub } = setup({ LATENCY_PROBES: "false" });
    expect((await json<{ latencyHosts: unknown[] }>(await call(hub, "GET", "/api/v1/meta"))).latencyHosts).toEqual([]);
    expect(htmlCsp([])).toContain("connect-src 'self';");
    const csp = htmlCsp(["gamelift.eu-west-1.amazonaws.com", "gamelift.us-east-1.amazonaws.com"]);
    expect(csp).toContain("connect-src 'self' https://gamelift.eu-west-1.amazonaws.com https://gamelift.us-east-1.amazonaws.com;");
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
    expect(body.regions.length).toBe(BUILT_IN_REGIONS.length);
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

describe("since (SPEC §7): from when the current values have held", () => {
  type Since = { regions: { region: string; since: string | null; lastUpdated: string | null }[] };
  const iso = (t: number) => new Date(t).toISOString();

  test("null without a reading; carried by unchanged readings, reset by a change", async () => {
    const { hub, now, advance } = setup();
    const agent = addAgent(hub, "eu-west-1", "steam", { pollMin: "60", pollMax: "600" });
    addAgent(hub, "us-east-1");
    const get = async () => (await json<Since>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions;
    expect((await get()).map((r) => r.since)).toEqual([null, null]);
    const first = now();
    await post(hub, agent, reading("Windows", "eu-west-1", first, { killer: 50 }));
    advance(600_000);
    await post(hub, agent, reading("Windows", "eu-west-1", now(), { killer: 50 }));
    expect((await get())[0]).toMatchObject({ since: iso(first), lastUpdated: iso(now()) });
    advance(600_000);
    const changed = now();
    await post(hub, agent, reading("Windows", "eu-west-1", changed, { killer: 75 }));
    advance(600_000);
    await post(hub, agent, reading("Windows", "eu-west-1", now(), { killer: 75 }));
    expect((await get())[0]).toMatchObject({ since: iso(changed), lastUpdated: iso(now()) });
    expect((await get())[1]?.since).toBeNull();
  });

  test("rebuilt from the stored readings at start-up", async () => {
    const { hub, now } = setup();
    addAgent(hub, "eu-west-1");
    const t = now();
    storeReadings(hub.ctx.db, [
      { t: t - 50 * 60_000, killer: 50 },
      { t: t - 40 * 60_000, killer: 75 },
      { t: t - 30 * 60_000, survivor: 25, killer: 0 },
      { t: t - 20 * 60_000, survivor: 25, killer: 0 },
      { t: t - 10 * 60_000, survivor: 25, killer: 0 },
    ]);
    hub.ctx.live.rebuildAll();
    const region = (await json<Since>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions[0];
    expect(region).toMatchObject({ since: iso(t - 30 * 60_000), lastUpdated: iso(t - 10 * 60_000) });
    storeReadings(hub.ctx.db, [{ t: t - 5 * 60_000, platform: "Windows", region: "eu-west-1", survivor: 25, killer: 0 }]);
    storeReadings(hub.ctx.db, [{ t: t - 60 * 60_000, platform: "Windows", region: "us-east-1", killer: 10 }]);
    hub.ctx.live.rebuildAll();
    const again = (await json<Since>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).regions;
    expect(again.find((r) => r.region === "us-east-1")?.since).toBe(iso(t - 60 * 60_000));
    expect(again.find((r) => r.region === "eu-west-1")?.since).toBe(iso(t - 30 * 60_000));
  });
});
