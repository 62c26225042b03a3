import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, json, tempDir, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";

async function setup(env: Record<string, string> = {}) {
  const h = testHub({ env: { MFA_ENFORCED_ROLES: "", ...env } });
  const admin = new Browser(h);
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  const rootId = (await admin.session()).user?.id ?? 0;
  return { h, admin, rootId };
}

type UserView = { id: number; username: string; role: string; enabled: boolean; hasPassword: boolean; email: string | null; name: string | null };

describe("admin: users", () => {
  test("create, list, change, delete", async () => {
    const { h, admin } = await setup();
    const created = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "Alice", role: "user", password: PASSWORD, email: "a@example.org", name: "Alice" });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ username: "Alice", role: "user", enabled: true, hasPassword: true, email: "a@example.org", name: "Alice" });
    expect((await admin.json("POST", "/api/v1/admin/users", { username: "alice", role: "user" })).status).toBe(409);
    const noPassword = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "carol", role: "admin" });
    expect(noPassword.body.user.hasPassword).toBe(false);
    expect((await new Browser(h).login("carol", "")).status).toBe(401);
    expect((await new Browser(h).login("carol", PASSWORD)).status).toBe(401);
    const list = await admin.json<{ users: UserView[] }>("GET", "/api/v1/admin/users");
    expect(list.body.users.map((u) => u.username)).toEqual(["root", "Alice", "carol"]);
    const id = created.body.user.id;
    const changed = await admin.json<{ user: UserView }>("PATCH", `/api/v1/admin/users/${id}`, { role: "admin", name: null, email: "new@example.org" });
    expect(changed.body.user).toMatchObject({ role: "admin", name: null, email: "new@example.org" });
    expect((await admin.request("DELETE", `/api/v1/admin/users/${id}`)).status).toBe(204);
    expect((await admin.request("DELETE", `/api/v1/admin/users/${id}`)).status).toBe(404);
    expect((await admin.json("PATCH", "/api/v1/admin/users/999", { enabled: false })).status).toBe(404);
  });

  test("validation: 400 with a location", async () => {
    const { admin } = await setup();
    for (const body of [
      { username: "x y", role: "user" },
      { username: "ok", role: "superuser" },
      { username: "ok", role: "user", password: "short" },
      { username: "ok", role: "user", email: "not-an-email" },
    ]) {
      const response = await admin.json<{ errors?: { location: string }[] }>("POST", "/api/v1/admin/users", body);
      expect(response.status).toBe(400);
      expectProblem(response.response);
    }
  });

  test("the last enabled admin cannot be demoted, disabled or deleted", async () => {
    const { admin, rootId } = await setup();
    for (const [method, body] of [["PATCH", { role: "user" }], ["PATCH", { enabled: false }], ["DELETE", undefined]] as const) {
      const response = await admin.json(method, `/api/v1/admin/users/${rootId}`, body);
      expect(response.status).toBe(409);
      expectProblem(response.response);
    }
    const second = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "second", role: "admin", password: PASSWORD });
    expect((await admin.json("PATCH", `/api/v1/admin/users/${second.body.user.id}`, { enabled: false })).status).toBe(200);
    expect((await admin.json("PATCH", `/api/v1/admin/users/${rootId}`, { role: "user" })).status).toBe(409);
    expect((await admin.json("PATCH", `/api/v1/admin/users/${second.body.user.id}`, { enabled: true })).status).toBe(200);
    expect((await admin.json("PATCH", `/api/v1/admin/users/${rootId}`, { enabled: false })).status).toBe(200);
  });

  test("disabling a user or resetting their password ends their sessions at once", async () => {
    const { h, admin } = await setup();
    const made = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "dave", role: "user", password: PASSWORD });
    const dave = new Browser(h);
    await dave.login("dave", PASSWORD);
    expect((await dave.session()).authenticated).toBe(true);
    await admin.json("PATCH", `/api/v1/admin/users/${made.body.user.id}`, { enabled: false });
    expect((await dave.session()).authenticated).toBe(false);
    await admin.json("PATCH", `/api/v1/admin/users/${made.body.user.id}`, { enabled: true });
    await dave.login("dave", PASSWORD);
    await admin.json("PATCH", `/api/v1/admin/users/${made.body.user.id}`, { password: "the admin's new one" });
    expect((await dave.session()).authenticated).toBe(false);
    expect((await dave.login("dave", "the admin's new one")).status).toBe(200);
  });

  test("an admin's password reset ends the user's sessions and remembered devices and switches their API keys off", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true" });
    const made = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "kim", role: "user", password: PASSWORD });
    const kim = new Browser(h);
    await kim.login("kim", PASSWORD);
    const created = await kim.json<{ key: string }>("POST", "/api/v1/auth/api-keys", { label: "script" });
    expect(created.status).toBe(201);
    const keyUser = async () => (await json<{ user: { username: string } | null }>(await call(h, "GET", "/api/v1/auth/session", { headers: { authorization: `Bearer ${created.body.key}` } }))).user;
    expect((await keyUser())?.username).toBe("kim");
    h.ctx.db.sqlite.run("INSERT INTO trusted_devices (token_hash, user_id, created_at, expires_at) VALUES (?, ?, 0, 9999999999999)", ["a".repeat(64), made.body.user.id]);

    expect((await admin.json("PATCH", `/api/v1/admin/users/${made.body.user.id}`, { password: "the admin's new one" })).status).toBe(200);
    expect((await kim.session()).authenticated).toBe(false);
    expect(await keyUser()).toBeNull();
    expect(h.ctx.db.sqlite.query("SELECT enabled FROM api_keys").all()).toEqual([{ enabled: 0 }]);
    expect(h.ctx.db.sqlite.query("SELECT COUNT(*) AS n FROM trusted_devices").get()).toEqual({ n: 0 });
  });

  test("MFA reset removes TOTP and passkeys", async () => {
    const { h, admin } = await setup();
    const made = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "erin", role: "user", password: PASSWORD });
    h.ctx.db.sqlite.query("UPDATE users SET totp_enabled = 1, totp_secret = 'JBSWY3DPEHPK3PXP' WHERE id = ?").run(made.body.user.id);
    h.ctx.db.sqlite.query("INSERT INTO passkeys (user_id, credential_id, public_key, created_at) VALUES (?, 'cred', x'00', 0)").run(made.body.user.id);
    expect((await new Browser(h).login("erin", PASSWORD)).next).toBe("mfa");
    expect((await admin.request("DELETE", `/api/v1/admin/users/${made.body.user.id}/mfa`)).status).toBe(204);
    expect((await new Browser(h).login("erin", PASSWORD)).next).toBe("ok");
    expect((await admin.request("DELETE", "/api/v1/admin/users/999/mfa")).status).toBe(404);
  });

  test("every change writes an audit row naming who, what and the target", async () => {
    const { h, admin, rootId } = await setup();
    const made = await admin.json<{ user: UserView }>("POST", "/api/v1/admin/users", { username: "fay", role: "user", password: PASSWORD });
    await admin.json("PATCH", `/api/v1/admin/users/${made.body.user.id}`, { password: "another long password" });
    await admin.request("DELETE", `/api/v1/admin/users/${made.body.user.id}/mfa`);
    await admin.request("DELETE", `/api/v1/admin/users/${made.body.user.id}`);
    await admin.json("PATCH", "/api/v1/admin/settings", { requireAuth: true });
    const rows = h.ctx.db.sqlite.query<{ actor: string; actor_user_id: number; action: string; target: string; detail: string | null; at: number }, []>("SELECT * FROM audit_log ORDER BY id").all();
    expect(rows.map((r) => r.action)).toEqual(["setup", "user.create", "user.update", "user.mfaReset", "user.delete", "settings.update"]);
    for (const row of rows.slice(1)) {
      expect(row.actor).toBe("root");
      expect(row.actor_user_id).toBe(rootId);
      expect(row.at).toBeGreaterThan(0);
    }
    expect(rows[1]?.target).toBe(`user:${made.body.user.id}`);
    expect(JSON.stringify(rows)).not.toContain("another long password");
  });

  test("401 without admin credentials, 403 for a non-admin", async () => {
    const { h, admin } = await setup();
    await admin.json("POST", "/api/v1/admin/users", { username: "gus", role: "user", password: PASSWORD });
    expect((await call(h, "GET", "/api/v1/admin/users")).status).toBe(401);
    const gus = new Browser(h);
    await gus.login("gus", PASSWORD);
    const refused = await gus.request("GET", "/api/v1/admin/users");
    expect(refused.status).toBe(403);
    expectProblem(refused);
  });
});

describe("admin: settings", () => {
  test("read and change; unknown roles are 400; takes effect on the next request", async () => {
    const { h, admin } = await setup({ ENABLE_API_KEYS: "true" });
    const read = await admin.json("GET", "/api/v1/admin/settings");
    expect(read.body).toEqual({ requireAuth: false, enableApiKeys: true, mfaEnforcedRoles: [], locked: ["enableApiKeys", "mfaEnforcedRoles"] });
    expect((await call(h, "GET", "/api/v1/platforms/Windows/incentives")).status).toBe(200);
    const changed = await admin.json("PATCH", "/api/v1/admin/settings", { requireAuth: true });
    expect(changed.body).toMatchObject({ requireAuth: true });
    expect((await call(h, "GET", "/api/v1/platforms/Windows/incentives")).status).toBe(401);
    expect((await admin.json("PATCH", "/api/v1/admin/settings", { requireAuth: "yes" })).status).toBe(400);
  });

  test("a locked field is refused with 409 naming its variable", async () => {
    const { admin } = await setup({ REQUIRE_AUTH: "false" });
    const refused = await admin.json<{ detail: string }>("PATCH", "/api/v1/admin/settings", { requireAuth: true });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("REQUIRE_AUTH");
  });

  test("unknown roles are 400", async () => {
    const h = testHub();
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    await admin.json("POST", "/api/v1/auth/mfa/policy", { roles: [] });
    // The choice replaced the session by a full one, with its own CSRF token.
    await admin.session();
    expect((await admin.json("PATCH", "/api/v1/admin/settings", { mfaEnforcedRoles: ["admin", "root"] })).status).toBe(400);
    expect((await admin.json("PATCH", "/api/v1/admin/settings", { mfaEnforcedRoles: ["user"] })).body).toMatchObject({ mfaEnforcedRoles: ["user"], locked: [] });
  });

  test("seeded from the configuration on first boot; explicit values win at every boot; others keep the admin's choice", () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "hub.db");
      const boot = (env: Record<string, string>) => {
        const h = testHub({ db: openDatabase(path), env });
        const values = { ...h.ctx.settings.get(), locked: h.ctx.settings.locked() };
        return { h, values };
      };
      const first = boot({});
      expect(first.values).toEqual({ requireAuth: false, enableApiKeys: false, mfaEnforcedRoles: ["admin"], locked: [] });
      first.h.ctx.settings.update({ requireAuth: true, enableApiKeys: true });
      first.h.ctx.db.sqlite.close();
      const second = boot({ ENABLE_API_KEYS: "false" });
      expect(second.values).toEqual({ requireAuth: true, enableApiKeys: false, mfaEnforcedRoles: ["admin"], locked: ["enableApiKeys"] });
      second.h.ctx.db.sqlite.close();
      // The configuration guide: once the variable is removed, the last explicit value stays, unlocked.
      const third = boot({});
      expect(third.values).toEqual({ requireAuth: true, enableApiKeys: false, mfaEnforcedRoles: ["admin"], locked: [] });
      third.h.ctx.db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  });
});

describe("admin: presence", () => {
  test("unique viewers with an open stream or a read in the last 45 s", async () => {
    let now = Date.parse("2026-11-21T18:00:00Z");
    const h = testHub({ env: { MFA_ENFORCED_ROLES: "" }, now: () => now });
    const admin = new Browser(h, "192.0.2.1");
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const online = async () => (await admin.json<{ online: number }>("GET", "/api/v1/admin/presence")).body.online;
    expect(await online()).toBe(0);
    await new Browser(h, "198.51.100.1").request("GET", "/api/v1/platforms/Windows/incentives");
    await new Browser(h, "198.51.100.1").request("GET", "/api/v1/meta");
    await new Browser(h, "198.51.100.2").request("GET", "/api/v1/platforms/EGS/coverage");
    const stream = await new Browser(h, "198.51.100.3").request("GET", "/api/v1/platforms/GRDK/incentives/stream");
    expect(await online()).toBe(3);
    now += 46_000;
    expect(await online()).toBe(1);
    await stream.body?.cancel();
    await Bun.sleep(0);
    expect(await online()).toBe(0);
  });
});
