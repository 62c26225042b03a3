import { describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/auth/tokens.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";

async function setup(env: Record<string, string> = { ENABLE_API_KEYS: "true" }) {
  let now = Date.parse("2026-11-21T18:00:00Z");
  const h = testHub({ env: { MFA_ENFORCED_ROLES: "", ...env }, now: () => now });
  const admin = new Browser(h);
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  const bob = await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "bob", role: "user", password: PASSWORD });
  return { h, admin, bobId: bob.body.user.id, advance: (ms: number) => (now += ms) };
}

/** A script: no cookies, just the key. */
const script = (h: ReturnType<typeof testHub>, token: string, header: "bearer" | "x-api-key" = "bearer") => (method: string, path: string, body?: unknown) =>
  call(h, method, path, { body, headers: header === "bearer" ? { authorization: `Bearer ${token}` } : { "x-api-key": token } });

describe("API keys", () => {
  test("create shows the token once; only the hash is stored; list shows the prefix", async () => {
    const { h, admin } = await setup();
    const created = await admin.json<{ key: { id: number; prefix: string; label: string; enabled: boolean; expiresAt: number | null }; token: string }>("POST", "/api/v1/auth/api-keys", {
      label: "grafana",
      expiresInDays: 30,
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^hub_[A-Za-z0-9_-]{43}$/);
    expect(created.body.key).toMatchObject({ label: "grafana", enabled: true, prefix: created.body.token.slice(0, 12) });
    expect(created.body.key.expiresAt).toBe(Date.parse("2026-11-21T18:00:00Z") + 30 * 86_400_000);
    const stored = h.ctx.db.sqlite.query<{ key_hash: string }, []>("SELECT key_hash FROM api_keys").get();
    expect(stored?.key_hash).toBe(sha256Hex(created.body.token));
    const listed = await admin.json<{ keys: Record<string, unknown>[] }>("GET", "/api/v1/auth/api-keys");
    expect(listed.body.keys).toEqual([created.body.key]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
  });

  test("a key acts as its owner with the owner's current role, by Bearer or X-API-Key, without CSRF", async () => {
    const { h, admin, bobId } = await setup();
    const { body } = await admin.json<{ token: string }>("POST", "/api/v1/auth/api-keys", {});
    for (const style of ["bearer", "x-api-key"] as const) {
      const as = script(h, body.token, style);
      expect((await as("GET", "/api/v1/admin/users")).status).toBe(200);
      expect((await as("PATCH", `/api/v1/admin/users/${bobId}`, { name: "Bobby" })).status).toBe(200);
    }
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const bobKey = (await bob.json<{ token: string }>("POST", "/api/v1/auth/api-keys", { label: "bob" })).body.token;
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(403);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { role: "admin" });
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(200);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { role: "user" });
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(403);
  });

  test("keys cannot manage keys or change passwords: those need a session", async () => {
    const { h, admin } = await setup();
    const { body } = await admin.json<{ token: string }>("POST", "/api/v1/auth/api-keys", {});
    const as = script(h, body.token);
    expect((await as("GET", "/api/v1/auth/api-keys")).status).toBe(403);
    expect((await as("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "something long enough" })).status).toBe(403);
  });

  test("disabled, deleted, expired keys and keys of disabled users do not authenticate", async () => {
    const { h, admin, bobId, advance } = await setup();
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const made = await bob.json<{ key: { id: number }; token: string }>("POST", "/api/v1/auth/api-keys", { expiresInDays: 1 });
    const as = script(h, made.body.token);
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(403);
    expect((await bob.json("PATCH", `/api/v1/auth/api-keys/${made.body.key.id}`, { enabled: false, label: "off" })).body).toMatchObject({ key: { enabled: false, label: "off" } });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    await bob.json("PATCH", `/api/v1/auth/api-keys/${made.body.key.id}`, { enabled: true });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(403);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { enabled: false });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { enabled: true });
    advance(86_400_001);
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    const root = await admin.json<{ key: { id: number }; token: string }>("POST", "/api/v1/auth/api-keys", {});
    expect((await admin.request("DELETE", `/api/v1/auth/api-keys/${root.body.key.id}`)).status).toBe(204);
    expect((await script(h, root.body.token)("GET", "/api/v1/admin/users")).status).toBe(401);
    expect((await script(h, "hub_not-a-real-key")("GET", "/api/v1/admin/users")).status).toBe(401);
  });

  test("one user cannot see or touch another's keys", async () => {
    const { h, admin } = await setup();
    const root = await admin.json<{ key: { id: number } }>("POST", "/api/v1/auth/api-keys", {});
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    expect((await bob.json<{ keys: unknown[] }>("GET", "/api/v1/auth/api-keys")).body.keys).toEqual([]);
    expect((await bob.json("PATCH", `/api/v1/auth/api-keys/${root.body.key.id}`, { enabled: false })).status).toBe(404);
    expect((await bob.request("DELETE", `/api/v1/auth/api-keys/${root.body.key.id}`)).status).toBe(404);
  });

  test("while keys are off: management is 403 and no key authenticates", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "false" });
    expect((await admin.request("GET", "/api/v1/auth/api-keys")).status).toBe(403);
    const refused = await admin.json("POST", "/api/v1/auth/api-keys", {});
    expect(refused.status).toBe(403);
    expectProblem(refused.response);
    const made = h.ctx.accounts.apiKeys.create(1, null, null);
    expect((await script(h, made.token)("GET", "/api/v1/admin/users")).status).toBe(401);
  });

  test("bad input is 400", async () => {
    const { admin } = await setup();
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { expiresInDays: 0 })).status).toBe(400);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { label: "x".repeat(121) })).status).toBe(400);
    expect((await admin.json("PATCH", "/api/v1/auth/api-keys/abc", { enabled: true })).status).toBe(400);
  });
});

describe("the read gate", () => {
  test("with requireAuth on, reads need a full session or a key; health, docs, auth and agent routes stay open", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true", REQUIRE_AUTH: "true" });
    const { body } = await admin.json<{ token: string }>("POST", "/api/v1/auth/api-keys", {});
    const reads = ["/api/v1/meta", "/api/v1/platforms/Windows/incentives", "/api/v1/platforms/Windows/coverage"];
    for (const path of reads) {
      expect((await call(h, "GET", path)).status).toBe(401);
      const signedIn = await admin.request("GET", path);
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.get("cache-control")).toBe("no-store");
      expect((await script(h, body.token)("GET", path)).status).toBe(200);
    }
    const stream = await script(h, body.token)("GET", "/api/v1/platforms/Windows/incentives/stream");
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
    for (const path of ["/healthz", "/openapi.json", "/docs", "/api/v1/auth/session"]) expect((await call(h, "GET", path)).status).toBe(200);
    expect((await call(h, "GET", "/api/v1/agent/assignment")).status).toBe(401);
  });
});
