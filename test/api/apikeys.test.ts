import { describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/domain/tokens.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, json, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";
const START = Date.parse("2026-11-21T18:00:00Z");
/** SPEC §16: keys one user may hold. */
const MAX_KEYS = 50;

interface ApiKeyView {
  id: number;
  label: string | null;
  prefix: string;
  enabled: boolean;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

interface NewKey {
  key: string;
  apiKey: ApiKeyView;
}

async function setup(env: Record<string, string> = { ENABLE_API_KEYS: "true" }) {
  let now = START;
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
  test("create shows the key once as { key, apiKey }; only the hash is stored; list is { apiKeys } with the prefix", async () => {
    const { h, admin } = await setup();
    const created = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: "grafana", expiresInDays: 30 });
    expect(created.status).toBe(201);
    expect(created.response.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(created.body).sort()).toEqual(["apiKey", "key"]);
    expect(created.body.key).toMatch(/^hub_[A-Za-z0-9_-]{43}$/);
    expect(created.body.apiKey).toEqual({
      id: expect.any(Number),
      label: "grafana",
      prefix: created.body.key.slice(0, 12),
      enabled: true,
      createdAt: START,
      lastUsedAt: null,
      expiresAt: START + 30 * 86_400_000,
    });
    const stored = h.ctx.db.sqlite.query<{ key_hash: string }, []>("SELECT key_hash FROM api_keys").get();
    expect(stored?.key_hash).toBe(sha256Hex(created.body.key));
    const listed = await admin.json<{ apiKeys: ApiKeyView[] }>("GET", "/api/v1/auth/api-keys");
    expect(listed.body).toEqual({ apiKeys: [created.body.apiKey] });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
  });

  test("expiresAt in epoch ms, or expiresInDays; never both, never in the past; none means never", async () => {
    const { admin } = await setup();
    const at = START + 7 * 86_400_000;
    const dated = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: "week", expiresAt: at });
    expect(dated.status).toBe(201);
    expect(dated.body.apiKey.expiresAt).toBe(at);
    const forever = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    expect(forever.body.apiKey).toMatchObject({ label: null, expiresAt: null });
    expect((await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { expiresAt: null, expiresInDays: 2 })).body.apiKey.expiresAt).toBe(START + 2 * 86_400_000);
    for (const expiresAt of [START, START - 1]) {
      const past = await admin.json<{ detail: string; errors: { location: string }[] }>("POST", "/api/v1/auth/api-keys", { expiresAt });
      expect(past.status).toBe(400);
      expectProblem(past.response);
      expect(past.body.detail).toContain("expiresAt must be in the future");
      expect(past.body.errors[0]?.location).toBe("body.expiresAt");
    }
    const both = await admin.json<{ detail: string }>("POST", "/api/v1/auth/api-keys", { expiresAt: at, expiresInDays: 7 });
    expect(both.status).toBe(400);
    expect(both.body.detail).toBe("Send expiresAt or expiresInDays, not both.");
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { expiresAt: "tomorrow" })).status).toBe(400);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { expiresAt: at + 0.5 })).status).toBe(400);
    expect((await admin.json<{ apiKeys: unknown[] }>("GET", "/api/v1/auth/api-keys")).body.apiKeys).toHaveLength(3);
  });

  test("an expired key authenticates no more, by either header, and says it expired", async () => {
    const { h, admin, advance } = await setup();
    const made = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { expiresAt: START + 60_000 });
    for (const style of ["bearer", "x-api-key"] as const) expect((await script(h, made.body.key, style)("GET", "/api/v1/admin/users")).status).toBe(200);
    advance(60_000);
    for (const style of ["bearer", "x-api-key"] as const) {
      const refused = await script(h, made.body.key, style)("GET", "/api/v1/admin/users");
      expect(refused.status).toBe(401);
      expectProblem(refused);
      const { detail } = await json<{ detail: string }>(refused);
      expect(detail).toBe(`The key in ${style === "bearer" ? "Authorization: Bearer" : "X-API-Key"} expired at 2026-11-21T18:01:00.000Z; create a new one.`);
    }
    expect((await admin.json<{ apiKeys: ApiKeyView[] }>("GET", "/api/v1/auth/api-keys")).body.apiKeys[0]).toMatchObject({ expiresAt: START + 60_000 });
  });

  test("lastUsedAt records when a key last authenticated", async () => {
    const { h, admin, advance } = await setup();
    const made = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    advance(5000);
    await script(h, made.body.key)("GET", "/api/v1/admin/users");
    expect((await admin.json<{ apiKeys: ApiKeyView[] }>("GET", "/api/v1/auth/api-keys")).body.apiKeys[0]?.lastUsedAt).toBe(START + 5000);
  });

  test("a key acts as its owner with the owner's current role, by Bearer or X-API-Key, without CSRF", async () => {
    const { h, admin, bobId } = await setup();
    const { body } = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    for (const style of ["bearer", "x-api-key"] as const) {
      const as = script(h, body.key, style);
      expect((await as("GET", "/api/v1/admin/users")).status).toBe(200);
      expect((await as("PATCH", `/api/v1/admin/users/${bobId}`, { name: "Bobby" })).status).toBe(200);
    }
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const bobKey = (await bob.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: "bob" })).body.key;
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(403);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { role: "admin" });
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(200);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { role: "user" });
    expect((await script(h, bobKey)("GET", "/api/v1/admin/users")).status).toBe(403);
  });

  test("keys cannot manage keys or change passwords: those need a session", async () => {
    const { h, admin } = await setup();
    const { body } = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    const as = script(h, body.key);
    expect((await as("GET", "/api/v1/auth/api-keys")).status).toBe(403);
    expect((await as("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "something long enough" })).status).toBe(403);
  });

  test("disabled, deleted, expired keys and keys of disabled users do not authenticate", async () => {
    const { h, admin, bobId, advance } = await setup();
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const made = await bob.json<NewKey>("POST", "/api/v1/auth/api-keys", { expiresInDays: 1 });
    const as = script(h, made.body.key);
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(403);
    const patched = await bob.json<{ apiKey: ApiKeyView }>("PATCH", `/api/v1/auth/api-keys/${made.body.apiKey.id}`, { enabled: false, label: "off" });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ apiKey: { ...made.body.apiKey, enabled: false, label: "off", lastUsedAt: START } });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    await bob.json("PATCH", `/api/v1/auth/api-keys/${made.body.apiKey.id}`, { enabled: true });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(403);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { enabled: false });
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { enabled: true });
    advance(86_400_001);
    expect((await as("GET", "/api/v1/admin/users")).status).toBe(401);
    // A day after signing in, a new key needs the password confirmed again.
    expect((await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD })).status).toBe(204);
    const root = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    expect((await admin.request("DELETE", `/api/v1/auth/api-keys/${root.body.apiKey.id}`)).status).toBe(204);
    expect((await script(h, root.body.key)("GET", "/api/v1/admin/users")).status).toBe(401);
    expect((await script(h, "hub_not-a-real-key")("GET", "/api/v1/admin/users")).status).toBe(401);
  });

  test("one user cannot see or touch another's keys", async () => {
    const { h, admin } = await setup();
    const root = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    expect((await bob.json<{ apiKeys: unknown[] }>("GET", "/api/v1/auth/api-keys")).body.apiKeys).toEqual([]);
    expect((await bob.json("PATCH", `/api/v1/auth/api-keys/${root.body.apiKey.id}`, { enabled: false })).status).toBe(404);
    expect((await bob.request("DELETE", `/api/v1/auth/api-keys/${root.body.apiKey.id}`)).status).toBe(404);
  });

  test("while keys are off: management is 403 and no key authenticates", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "false" });
    expect((await admin.request("GET", "/api/v1/auth/api-keys")).status).toBe(403);
    const refused = await admin.json("POST", "/api/v1/auth/api-keys", {});
    expect(refused.status).toBe(403);
    expectProblem(refused.response);
    const made = h.ctx.accounts.apiKeys.create(1, null, null);
    expect((await script(h, made.key)("GET", "/api/v1/admin/users")).status).toBe(401);
  });

  test("a password change switches the user's keys off (kept, and listed), unless revokeApiKeys is false", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true", REQUIRE_AUTH: "true" });
    const rootKey = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {})).body.key;
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const made = await Promise.all(["one", "two"].map(async (label) => (await bob.json<NewKey>("POST", "/api/v1/auth/api-keys", { label })).body));
    for (const { key } of made) expect((await script(h, key)("GET", "/api/v1/meta")).status).toBe(200);

    expect((await bob.json("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "second password here", revokeApiKeys: false })).status).toBe(204);
    for (const { key } of made) expect((await script(h, key)("GET", "/api/v1/meta")).status).toBe(200);

    expect((await bob.json("POST", "/api/v1/auth/password", { currentPassword: "second password here", newPassword: "third password here" })).status).toBe(204);
    for (const { key } of made) {
      const refused = await script(h, key)("GET", "/api/v1/meta");
      expect(refused.status).toBe(401);
      expect((await json<{ detail: string }>(refused)).detail).toContain("switched off");
    }
    const listed = await bob.json<{ apiKeys: ApiKeyView[] }>("GET", "/api/v1/auth/api-keys");
    expect(listed.body.apiKeys.map((k) => [k.label, k.enabled])).toEqual([["one", false], ["two", false]]);
    expect((await script(h, rootKey)("GET", "/api/v1/admin/users")).status).toBe(200);

    await bob.json("PATCH", `/api/v1/auth/api-keys/${made[0]?.apiKey.id}`, { enabled: true });
    expect((await script(h, made[0]?.key ?? "")("GET", "/api/v1/meta")).status).toBe(200);
    expect((await bob.json("POST", "/api/v1/auth/password", { currentPassword: "third password here", newPassword: "fourth password here", revokeApiKeys: true })).status).toBe(204);
    expect((await script(h, made[0]?.key ?? "")("GET", "/api/v1/meta")).status).toBe(401);
    expect((await bob.json("POST", "/api/v1/auth/password", { currentPassword: "fourth password here", newPassword: "fifth password here", revokeApiKeys: "no" })).status).toBe(400);
  });

  test(`a user holds at most ${MAX_KEYS} keys: the next is a 409 until one is deleted`, async () => {
    const { h, admin } = await setup();
    const made: NewKey[] = [];
    for (let i = 0; i < MAX_KEYS; i++) {
      const created = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: `key ${i}` });
      expect(created.status).toBe(201);
      made.push(created.body);
    }
    await admin.json("PATCH", `/api/v1/auth/api-keys/${made[0]?.apiKey.id}`, { enabled: false });
    const refused = await admin.json<{ detail: string }>("POST", "/api/v1/auth/api-keys", { label: "one too many" });
    expect(refused.status).toBe(409);
    expectProblem(refused.response);
    expect(refused.body.detail).toContain(`the most one user may have (${MAX_KEYS})`);
    expect(refused.body.detail).toContain("delete one");
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    expect((await bob.json("POST", "/api/v1/auth/api-keys", {})).status).toBe(201);
    expect((await admin.request("DELETE", `/api/v1/auth/api-keys/${made[0]?.apiKey.id}`)).status).toBe(204);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { label: "in its place" })).status).toBe(201);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", {})).status).toBe(409);
  });

  test("parallel creates cannot go past the limit", async () => {
    const { h, admin } = await setup();
    const burst = await Promise.all(Array.from({ length: 120 }, (_, i) => admin.request("POST", "/api/v1/auth/api-keys", { body: { label: `burst ${i}` } })));
    expect(burst.filter((r) => r.status === 201)).toHaveLength(MAX_KEYS);
    expect(burst.filter((r) => r.status === 409)).toHaveLength(120 - MAX_KEYS);
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM api_keys").get()?.n).toBe(MAX_KEYS);
  });

  test("bad input is 400", async () => {
    const { admin } = await setup();
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { expiresInDays: 0 })).status).toBe(400);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { label: "x".repeat(121) })).status).toBe(400);
    expect((await admin.json("PATCH", "/api/v1/auth/api-keys/abc", { enabled: true })).status).toBe(400);
  });
});

describe("a key in each header", () => {
  const both = (h: ReturnType<typeof testHub>, xApiKey: string, bearer: string) => call(h, "GET", "/api/v1/admin/users", { headers: { "x-api-key": xApiKey, authorization: `Bearer ${bearer}` } });
  const refusal = async (response: Response) => {
    expect(response.status).toBe(401);
    expectProblem(response);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="hub"');
    return (await json<{ detail: string }>(response)).detail;
  };

  test("a bad key beside a good one is a 401 naming the header that was wrong", async () => {
    const { h, admin, advance } = await setup();
    const good = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {})).body.key;
    const off = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    await admin.json("PATCH", `/api/v1/auth/api-keys/${off.body.apiKey.id}`, { enabled: false });
    const brief = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { expiresAt: START + 1000 })).body.key;
    const unknown = `hub_${"A".repeat(43)}`;
    expect(await refusal(await both(h, unknown, good))).toBe("The key in X-API-Key is not valid.");
    expect(await refusal(await both(h, good, unknown))).toBe("The key in Authorization: Bearer is not valid.");
    expect(await refusal(await both(h, "hub_typo", good))).toBe("The key in X-API-Key is not valid.");
    expect(await refusal(await both(h, "", good))).toBe("The key in X-API-Key is not valid.");
    expect(await refusal(await both(h, off.body.key, good))).toBe("The key in X-API-Key is switched off; its owner can switch it on again.");
    expect(await refusal(await both(h, unknown, unknown))).toBe("The key in X-API-Key is not valid. The key in Authorization: Bearer is not valid.");
    advance(1000);
    expect(await refusal(await both(h, good, brief))).toBe("The key in Authorization: Bearer expired at 2026-11-21T18:00:01.000Z; create a new one.");
    expect((await both(h, good, good)).status).toBe(200);
  });

  test("two different valid keys are ambiguous: 401, whoever owns them", async () => {
    const { h, admin } = await setup();
    const first = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: "first" })).body.key;
    const second = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", { label: "second" })).body.key;
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const bobs = (await bob.json<NewKey>("POST", "/api/v1/auth/api-keys", {})).body.key;
    const ambiguous = "X-API-Key and Authorization: Bearer carry two different API keys; send one key, in one header (or the same key in both).";
    expect(await refusal(await both(h, first, second))).toBe(ambiguous);
    expect(await refusal(await both(h, bobs, first))).toBe(ambiguous);
    expect(await refusal(await both(h, first, bobs))).toBe(ambiguous);
  });

  test("the same rules hold on the read gate; a bearer credential that is not an API key is left alone", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true", REQUIRE_AUTH: "true" });
    const good = (await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {})).body.key;
    const read = (headers: Record<string, string>) => call(h, "GET", "/api/v1/platforms/Windows/incentives", { headers });
    expect(await refusal(await read({ "x-api-key": "hub_nope", authorization: `Bearer ${good}` }))).toBe("The key in X-API-Key is not valid.");
    expect((await read({ "x-api-key": good, authorization: `Bearer ${good}` })).status).toBe(200);
    expect((await read({ "x-api-key": good, authorization: "Bearer some-metrics-token" })).status).toBe(200);
  });
});

describe("the read gate", () => {
  test("with requireAuth on, reads need a full session or a key; health, docs, auth and agent routes stay open", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true", REQUIRE_AUTH: "true" });
    const { body } = await admin.json<NewKey>("POST", "/api/v1/auth/api-keys", {});
    const reads = ["/api/v1/meta", "/api/v1/platforms/Windows/incentives", "/api/v1/platforms/Windows/coverage"];
    for (const path of reads) {
      expect((await call(h, "GET", path)).status).toBe(401);
      const signedIn = await admin.request("GET", path);
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.get("cache-control")).toBe("no-store");
      expect((await script(h, body.key)("GET", path)).status).toBe(200);
    }
    const stream = await script(h, body.key)("GET", "/api/v1/platforms/Windows/incentives/stream");
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
    for (const path of ["/healthz", "/openapi.json", "/docs", "/api/v1/auth/session"]) expect((await call(h, "GET", path)).status).toBe(200);
    expect((await call(h, "GET", "/api/v1/agent/assignment")).status).toBe(401);
  });
});
