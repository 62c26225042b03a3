import { describe, expect, test } from "bun:test";
import type { BunRequest, Server } from "bun";
import { rememberSocketAddress } from "../../src/http/client-ip.ts";
import { INCENTIVES_ROUTE } from "../../src/http/incentives.ts";
import type { Hub } from "../../src/hub.ts";
import { PASSWORD } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { testHub } from "../helpers.ts";

/**
 * A read of the incentives through the Bun-native route, as a running server
 * makes it: the server knows the address of the request it received, and of
 * no copy of it (as Bun's `requestIP` does).
 */
async function nativeRead(hub: Hub, browser: Browser, host = "localhost"): Promise<Response> {
  const headers = new Headers();
  if (browser.cookies.size > 0) headers.set("cookie", [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
  const request = Object.assign(new Request(`http://${host}/api/v1/platforms/Windows/incentives`, { headers }), { params: { platform: "Windows" }, cookies: new Map() });
  const server = { requestIP: (asked: Request) => (asked === request ? { address: browser.ip } : null) };
  // In-process the app has no server of its own, so it is told which one holds the request.
  rememberSocketAddress(request, server);
  const route = hub.nativeRoutes[INCENTIVES_ROUTE];
  if (!route) throw new Error("no native incentives route");
  return await route.GET(request as unknown as BunRequest<string>, server as unknown as Server<unknown>);
}

async function setup(env: Record<string, string> = {}) {
  const hub = testHub({ env: { MFA_ENFORCED_ROLES: "", ...env } });
  const admin = new Browser(hub, "192.0.2.1");
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  await admin.json("POST", "/api/v1/admin/users", { username: "viewer", role: "user", password: PASSWORD });
  const online = async () => (await admin.json<{ online: number }>("GET", "/api/v1/admin/presence")).body.online;
  return { hub, admin, online };
}

describe("presence counts people once", () => {
  test("one machine reading natively and through the app, signing in and streaming is one viewer; a second machine makes two", async () => {
    const { hub, admin, online } = await setup();
    const viewer = new Browser(hub, "198.51.100.7");
    expect((await nativeRead(hub, viewer)).status).toBe(200);
    expect((await viewer.request("GET", "/api/v1/meta")).status).toBe(200);
    expect(await online()).toBe(1);

    expect((await viewer.login("viewer", PASSWORD)).next).toBe("ok");
    await admin.json("PATCH", "/api/v1/admin/settings", { requireAuth: true });
    expect((await nativeRead(hub, viewer)).status).toBe(200);
    expect((await nativeRead(hub, viewer, "hub")).status).toBe(200);
    const stream = await viewer.request("GET", "/api/v1/platforms/Windows/incentives/stream");
    expect(stream.status).toBe(200);
    expect(await online()).toBe(1);

    const laptop = new Browser(hub, "198.51.100.8");
    await laptop.login("viewer", PASSWORD);
    expect((await nativeRead(hub, laptop, "hub")).status).toBe(200);
    expect(await online()).toBe(2);
    await stream.body?.cancel();
  });

  test("an IPv4 client is one viewer whether a dual-stack socket or a proxy names it", async () => {
    const { hub, online } = await setup({ TRUSTED_PROXIES: "10.0.0.0/8" });
    await new Browser(hub, "10.0.0.2").request("GET", "/api/v1/meta", { headers: { "x-forwarded-for": "198.51.100.7" } });
    const stream = await new Browser(hub, "::FFFF:198.51.100.7").request("GET", "/api/v1/platforms/Windows/incentives/stream");
    expect(stream.status).toBe(200);
    expect(await online()).toBe(1);
    await new Browser(hub, "::ffff:198.51.100.9").request("GET", "/api/v1/meta");
    expect(await online()).toBe(2);
    await stream.body?.cancel();
  });
});
