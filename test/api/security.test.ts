import { describe, expect, test } from "bun:test";
import { clientIp, rememberSocketAddress } from "../../src/http/client-ip.ts";
import { parseTrustedProxies } from "../../src/domain/net.ts";
import { call, memoryLog, testHub } from "../helpers.ts";

describe("security headers", () => {
  test("on every response, success or error", async () => {
    const hub = testHub();
    const refusedBeforeRouting: [string, string, Record<string, string>][] = [
      ["POST", "/api/v1/auth/login", { "content-length": String(2 * 1024 * 1024), "content-type": "application/json" }],
      ["OPTIONS", "/api/v1/meta", { origin: "https://elsewhere.example", "access-control-request-method": "GET" }],
      ["DELETE", "/api/v1/admin/agents/export", {}],
    ];
    const answered: [string, string, Record<string, string>][] = [
      ["GET", "/healthz", {}],
      ["GET", "/nowhere", {}],
      ["POST", "/healthz", {}],
      ["GET", "/openapi.json", {}],
    ];
    for (const [method, path, headers] of [...answered, ...refusedBeforeRouting]) {
      const response = await call(hub, method, path, { headers });
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("strict-transport-security")).toBeNull();
    }
  });

  test("HSTS when the origin is https", async () => {
    const hub = testHub({ env: { ORIGIN: "https://hub.example.org" } });
    const response = await call(hub, "GET", "/healthz");
    expect(response.headers.get("strict-transport-security")).toContain("max-age=");
  });

  test("a strict Content-Security-Policy on HTML", async () => {
    const hub = testHub();
    const response = await call(hub, "GET", "/docs");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toContain("*");
  });
});

describe("CORS", () => {
  const preflight = { origin: "https://app.example.org", "access-control-request-method": "GET" };

  test("none configured: no CORS headers, preflights refused", async () => {
    const hub = testHub();
    const simple = await call(hub, "GET", "/healthz", { headers: { origin: "https://app.example.org" } });
    expect(simple.headers.get("access-control-allow-origin")).toBeNull();
    const pre = await call(hub, "OPTIONS", "/healthz", { headers: preflight });
    expect(pre.status).toBe(403);
    expect(pre.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("a listed origin gets credentials; others get nothing", async () => {
    const hub = testHub({ env: { CORS_ALLOWED_ORIGINS: "https://app.example.org,https://other.example.org" } });
    const simple = await call(hub, "GET", "/healthz", { headers: { origin: "https://app.example.org" } });
    expect(simple.headers.get("access-control-allow-origin")).toBe("https://app.example.org");
    expect(simple.headers.get("access-control-allow-credentials")).toBe("true");
    expect(simple.headers.get("vary")).toContain("Origin");
    const pre = await call(hub, "OPTIONS", "/healthz", { headers: preflight });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(pre.headers.get("access-control-allow-headers")).toContain("X-CSRF-Token");
    const stranger = await call(hub, "GET", "/healthz", { headers: { origin: "https://evil.example.org" } });
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
    const strangerPre = await call(hub, "OPTIONS", "/healthz", { headers: { ...preflight, origin: "https://evil.example.org" } });
    expect(strangerPre.status).toBe(403);
  });

  test("* never comes with credentials", async () => {
    const hub = testHub({ env: { CORS_ALLOWED_ORIGINS: "*" } });
    const simple = await call(hub, "GET", "/healthz", { headers: { origin: "https://anyone.example.org" } });
    expect(simple.headers.get("access-control-allow-origin")).toBe("*");
    expect(simple.headers.get("access-control-allow-credentials")).toBeNull();
  });
});

describe("client IP", () => {
  test("socket address unless a trusted proxy forwarded the request", () => {
    const trust = parseTrustedProxies("10.0.0.0/8");
    if (!trust) throw new Error("rule");
    const direct = new Request("http://localhost/", { headers: { "x-forwarded-for": "6.6.6.6" } });
    rememberSocketAddress(direct, "198.51.100.4");
    expect(clientIp(direct, trust, null)).toBe("198.51.100.4");
    const proxied = new Request("http://localhost/", { headers: { "x-forwarded-for": "198.51.100.9, 10.1.1.1" } });
    rememberSocketAddress(proxied, "10.0.0.5");
    expect(clientIp(proxied, trust, null)).toBe("198.51.100.9");
    expect(clientIp(proxied, { kind: "none" }, null)).toBe("10.0.0.5");
  });
});

describe("request log", () => {
  test("one JSON line per request at debug, without the query string", async () => {
    const { log, lines } = memoryLog("debug");
    const hub = testHub({ log, env: { LOG_LEVEL: "debug" } });
    await call(hub, "GET", "/healthz?token=supersecret");
    await call(hub, "GET", "/nowhere");
    await Bun.sleep(10);
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.length).toBe(2);
    expect(requests[0]).toMatchObject({ level: "debug", method: "GET", path: "/healthz", status: 200 });
    expect(requests[1]).toMatchObject({ path: "/nowhere", status: 404 });
    expect(typeof requests[0]?.ms).toBe("number");
    expect(typeof requests[0]?.time).toBe("string");
    expect(JSON.stringify(lines)).not.toContain("supersecret");
  });

  test("nothing per request above debug", async () => {
    const { log, lines } = memoryLog("info");
    const hub = testHub({ log });
    await call(hub, "GET", "/healthz");
    await Bun.sleep(10);
    expect(lines.filter((l) => l.msg === "request")).toEqual([]);
  });
});
