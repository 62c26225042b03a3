import { describe, expect, spyOn, test } from "bun:test";
import { Browser } from "../browser.ts";
import { expectProblem, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";

function hub(env: Record<string, string> = {}, now?: () => number) {
  return testHub({ env, now });
}

/** A hub with a first admin who chose no MFA, signed in, and a plain user. */
async function ready(env: Record<string, string> = {}) {
  const h = hub({ MFA_ENFORCED_ROLES: "", ...env });
  const admin = new Browser(h);
  expect((await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD })).status).toBe(201);
  await admin.session();
  const created = await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "Bob", role: "user", password: PASSWORD });
  expect(created.status).toBe(201);
  return { h, admin, bobId: created.body.user.id };
}

describe("first admin", () => {
  test("setup creates one admin, signs it in, and is refused afterwards", async () => {
    const h = hub();
    const browser = new Browser(h);
    expect((await browser.session()).needsSetup).toBe(true);
    const { status, body } = await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD, email: "root@example.org", name: "Root" });
    expect(status).toBe(201);
    expect(body).toEqual({ next: "enroll_mfa", methods: [] });
    expect(browser.cookies.has("hub_session")).toBe(true);
    const session = await browser.session();
    expect(session.needsSetup).toBe(false);
    expect(session.user?.role).toBe("admin");
    const again = await new Browser(h).json("POST", "/api/v1/auth/setup", { username: "other", password: PASSWORD });
    expect(again.status).toBe(409);
    expectProblem(again.response);
  });

  test("two racing setups create exactly one admin", async () => {
    const h = hub();
    const results = await Promise.all(["a", "b", "c"].map((name) => new Browser(h).json("POST", "/api/v1/auth/setup", { username: name, password: PASSWORD })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const admins = h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM users WHERE role = 'admin'").get();
    expect(admins?.n).toBe(1);
  });

  test("bad input is 400 and creates nothing", async () => {
    const h = hub();
    const browser = new Browser(h);
    expect((await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: "short" })).status).toBe(400);
    expect((await browser.json("POST", "/api/v1/auth/setup", { username: "has space", password: PASSWORD })).status).toBe(400);
    expect((await browser.json("POST", "/api/v1/auth/setup", { username: "x".repeat(65), password: PASSWORD })).status).toBe(400);
    expect((await browser.json("POST", "/api/v1/auth/setup", { password: PASSWORD })).status).toBe(400);
    expect((await browser.session()).needsSetup).toBe(true);
  });

  test("ADMIN_BOOTSTRAP_* creates the first admin at boot, once", async () => {
    const h = hub({ ADMIN_BOOTSTRAP_USER: "ops", ADMIN_BOOTSTRAP_PASSWORD: PASSWORD, ADMIN_BOOTSTRAP_EMAIL: "ops@example.org", MFA_ENFORCED_ROLES: "" });
    const browser = new Browser(h);
    expect((await browser.session()).needsSetup).toBe(false);
    expect(await browser.login("OPS", PASSWORD)).toMatchObject({ status: 200, next: "ok" });
    expect((await browser.session()).user?.username).toBe("ops");
  });
});

describe("the session body in each state", () => {
  test("anonymous", async () => {
    const h = hub({ ENABLE_API_KEYS: "true" });
    expect(await new Browser(h).session()).toEqual({
      authenticated: false,
      authLevel: null,
      csrfToken: null,
      enableApiKeys: true,
      requireAuth: false,
      needsSetup: true,
      needsMfaPolicy: false,
      mfa: { required: false, enroll: false, methods: [] },
      user: null,
    });
  });

  test("partial: an admin who must enrol and still has to choose the MFA policy", async () => {
    const h = hub();
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const session = await browser.session();
    expect(session).toMatchObject({ authenticated: false, authLevel: "password", needsSetup: false, needsMfaPolicy: true, mfa: { required: true, enroll: true, methods: [] } });
    expect(session.csrfToken?.length).toBeGreaterThan(20);
    expect(session.user).toMatchObject({ username: "root", role: "admin", enabled: true, totpEnabled: false, hasPasskey: false });
  });

  test("choosing the policy: an admin who then needs no factor becomes fully signed in; 409 after", async () => {
    const h = hub();
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await browser.session();
    expect((await browser.json("POST", "/api/v1/auth/mfa/policy", { roles: ["moderator"] })).status).toBe(400);
    expect((await browser.json("POST", "/api/v1/auth/mfa/policy", { roles: [] })).status).toBe(204);
    const full = await browser.session();
    expect(full).toMatchObject({ authenticated: true, authLevel: "mfa", needsMfaPolicy: false, mfa: { required: false, enroll: false, methods: [] } });
    expect((await browser.json("POST", "/api/v1/auth/mfa/policy", { roles: ["admin"] })).status).toBe(409);
    expect(h.ctx.settings.get().mfaEnforcedRoles).toEqual([]);
  });

  test("an operator-set policy counts as chosen; a non-admin cannot choose", async () => {
    const { h } = await ready();
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    expect((await bob.session()).needsMfaPolicy).toBe(false);
    expect((await bob.json("POST", "/api/v1/auth/mfa/policy", { roles: [] })).status).toBe(403);
  });
});

describe("login", () => {
  test("ok for the right password, case-insensitive username; the same 401 for every wrong case", async () => {
    const { h, admin, bobId } = await ready();
    const bob = new Browser(h);
    expect(await bob.login("BOB", PASSWORD)).toMatchObject({ status: 200, next: "ok", methods: [] });
    expect((await bob.session()).user?.id).toBe(bobId);
    const bodies: string[] = [];
    for (const [username, password] of [["bob", "wrong password!"], ["nobody", PASSWORD]]) {
      const response = await new Browser(h).request("POST", "/api/v1/auth/login", { body: { username, password } });
      expect(response.status).toBe(401);
      expectProblem(response);
      bodies.push(await response.text());
    }
    await admin.json("PATCH", `/api/v1/admin/users/${bobId}`, { enabled: false });
    const disabled = await new Browser(h).request("POST", "/api/v1/auth/login", { body: { username: "bob", password: PASSWORD } });
    expect(disabled.status).toBe(401);
    bodies.push(await disabled.text());
    expect(new Set(bodies).size).toBe(1);
  });

  test("unknown and disabled users still cost a full password verification", async () => {
    const { h } = await ready();
    const verify = spyOn(Bun.password, "verify");
    try {
      await new Browser(h).request("POST", "/api/v1/auth/login", { body: { username: "nobody", password: PASSWORD } });
      expect(verify).toHaveBeenCalledTimes(1);
    } finally {
      verify.mockRestore();
    }
  });

  test("10 failures for a username: the 11th attempt is 429 without checking the password; success clears the count", async () => {
    let now = Date.parse("2026-11-21T18:00:00Z");
    const h = hub({ MFA_ENFORCED_ROLES: "" }, () => now);
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const attacker = new Browser(h, "198.51.100.1");
    for (let i = 0; i < 9; i++) expect((await attacker.login("root", `wrong-${i}-password`)).status).toBe(401);
    expect((await attacker.login("root", PASSWORD)).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      now += 1000;
      expect((await attacker.login("root", `wrong-${i}-password`)).status).toBe(401);
    }
    const refused = await attacker.request("POST", "/api/v1/auth/login", { body: { username: "root", password: PASSWORD } });
    expect(refused.status).toBe(429);
    expectProblem(refused);
    expect(refused.headers.get("retry-after")).toBe(String(15 * 60 - 9));
    const verify = spyOn(Bun.password, "verify");
    try {
      expect((await new Browser(h, "198.51.100.2").login("root", PASSWORD)).status).toBe(429);
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
    now += 15 * 60_000;
    expect((await attacker.login("root", PASSWORD)).status).toBe(200);
  });

  test("50 failures from one IP throttle every username from it", async () => {
    const { h } = await ready();
    const attacker = new Browser(h, "198.51.100.7");
    for (let i = 0; i < 50; i++) expect((await attacker.login(`user${i}`, "wrong password")).status).toBe(401);
    expect((await attacker.login("bob", PASSWORD)).status).toBe(429);
    expect((await new Browser(h, "198.51.100.8").login("bob", PASSWORD)).status).toBe(200);
  }, 60_000);

  test("malformed bodies are 400", async () => {
    const { h } = await ready();
    const browser = new Browser(h);
    expect((await browser.json("POST", "/api/v1/auth/login", { username: "bob" })).status).toBe(400);
    expect((await browser.json("POST", "/api/v1/auth/login", { username: 1, password: PASSWORD })).status).toBe(400);
  });
});

describe("session cookie and CSRF", () => {
  test("the cookie is HttpOnly, SameSite=Lax, Path=/, Secure when cookies are secure", async () => {
    const plain = new Browser(hub({ MFA_ENFORCED_ROLES: "" }));
    const response = await plain.request("POST", "/api/v1/auth/setup", { body: { username: "root", password: PASSWORD } });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("hub_session=")) ?? "";
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${168 * 3600}`);
    expect(cookie).not.toContain("Secure");
    const secureHttp = new Browser(hub({ MFA_ENFORCED_ROLES: "", COOKIE_SECURE: "true" }));
    const secureResponse = await secureHttp.request("POST", "/api/v1/auth/setup", { body: { username: "root", password: PASSWORD } });
    expect(secureResponse.headers.getSetCookie().find((c) => c.startsWith("hub_session="))).toContain("Secure");
  });

  test("on an https origin the cookie is __Host-hub_session: Secure (whatever COOKIE_SECURE says), Path=/, no Domain; the plain name is not read there", async () => {
    // The in-process browser addresses the hub as localhost, which the host check admits only when listed.
    const named = { ORIGIN: "https://hub.example.org", ALLOWED_HOSTS: "localhost" };
    for (const env of [named, { ...named, COOKIE_SECURE: "false" }] as Record<string, string>[]) {
      const h = hub({ MFA_ENFORCED_ROLES: "", ...env });
      const browser = new Browser(h);
      const response = await browser.request("POST", "/api/v1/auth/setup", { body: { username: "root", password: PASSWORD } });
      const cookies = response.headers.getSetCookie();
      expect(cookies.some((c) => c.startsWith("hub_session="))).toBe(false);
      const cookie = cookies.find((c) => c.startsWith("__Host-hub_session=")) ?? "";
      expect(cookie).toContain("Secure");
      expect(cookie).toContain("Path=/;");
      expect(cookie).toContain("HttpOnly");
      expect(cookie.toLowerCase()).not.toContain("domain=");
      expect((await browser.session()).authenticated).toBe(true);

      const token = browser.cookies.get("__Host-hub_session") ?? "";
      const plain = new Browser(h);
      plain.cookies.set("hub_session", token);
      expect((await plain.session()).authenticated).toBe(false);

      const logout = await browser.request("POST", "/api/v1/auth/logout");
      expect(logout.status).toBe(204);
      const cleared = logout.headers.getSetCookie().find((c) => c.startsWith("__Host-hub_session=")) ?? "";
      expect(cleared).toContain("Max-Age=0");
      expect(cleared).toContain("Secure");
      expect(cleared).toContain("Path=/");
    }
  });

  test("the session id is stored only as a hash", async () => {
    const { h, admin } = await ready();
    const raw = admin.cookies.get("hub_session") ?? "";
    const rows = h.ctx.db.sqlite.query<{ id_hash: string }, []>("SELECT id_hash FROM sessions").all();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.id_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.id_hash).not.toBe(raw);
    }
  });

  test("state changes with the cookie need the session's CSRF token", async () => {
    const { admin, bobId } = await ready();
    const without = await admin.request("PATCH", `/api/v1/admin/users/${bobId}`, { body: { name: "B" }, csrf: false });
    expect(without.status).toBe(403);
    expectProblem(without);
    const wrong = await admin.request("PATCH", `/api/v1/admin/users/${bobId}`, { body: { name: "B" }, headers: { "x-csrf-token": "forged" } });
    expect(wrong.status).toBe(403);
    const right = await admin.request("PATCH", `/api/v1/admin/users/${bobId}`, { body: { name: "B" } });
    expect(right.status).toBe(200);
    const read = await admin.request("GET", "/api/v1/admin/users", { csrf: false });
    expect(read.status).toBe(200);
  });

  test("sessions slide and expire", async () => {
    let now = Date.parse("2026-11-21T18:00:00Z");
    const h = hub({ MFA_ENFORCED_ROLES: "", SESSION_TTL_HOURS: "1" }, () => now);
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    now += 50 * 60_000;
    expect((await browser.session()).authenticated).toBe(true);
    now += 50 * 60_000;
    expect((await browser.session()).authenticated).toBe(true);
    now += 61 * 60_000;
    expect((await browser.session()).authenticated).toBe(false);
  });

  test("however often it is used, a session ends 30 days after sign-in", async () => {
    let now = Date.parse("2026-11-21T18:00:00Z");
    const h = hub({ MFA_ENFORCED_ROLES: "" }, () => now);
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const signedInAt = now;
    for (let day = 6; day < 30; day += 6) {
      now = signedInAt + day * 86_400_000;
      expect({ day, authenticated: (await browser.session()).authenticated }).toEqual({ day, authenticated: true });
    }
    now = signedInAt + 30 * 86_400_000 - 1000;
    expect((await browser.session()).authenticated).toBe(true);
    const expiry = h.ctx.db.sqlite.query<{ expires_at: number }, []>("SELECT expires_at FROM sessions").get()?.expires_at;
    expect(expiry).toBe(signedInAt + 30 * 86_400_000);
    now = signedInAt + 30 * 86_400_000;
    expect((await browser.session()).authenticated).toBe(false);
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n).toBe(0);
  });

  test("a sliding lifetime longer than 30 days is cut to 30 days, and sessions stored with a later expiry end at 30 days too", async () => {
    let now = Date.parse("2026-11-21T18:00:00Z");
    const h = hub({ MFA_ENFORCED_ROLES: "", SESSION_TTL_HOURS: String(90 * 24) }, () => now);
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const other = new Browser(h);
    await other.login("root", PASSWORD);
    const signedInAt = now;
    const sessionCount = () => h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n;
    expect(h.ctx.db.sqlite.query<{ expires_at: number }, []>("SELECT MAX(expires_at) AS expires_at FROM sessions").get()?.expires_at).toBe(signedInAt + 30 * 86_400_000);
    now = signedInAt + 29 * 86_400_000;
    expect((await browser.session()).authenticated).toBe(true);
    h.ctx.db.sqlite.run("UPDATE sessions SET expires_at = ?", [signedInAt + 90 * 86_400_000]);
    now = signedInAt + 30 * 86_400_000;
    expect((await browser.session()).authenticated).toBe(false);
    expect(sessionCount()).toBe(1);
    h.ctx.accounts.sessions.pruneExpired();
    expect(sessionCount()).toBe(0);
  });

  test("logout ends the session and clears the cookie", async () => {
    const { h, admin } = await ready();
    const response = await admin.request("POST", "/api/v1/auth/logout");
    expect(response.status).toBe(204);
    expect(admin.cookies.has("hub_session")).toBe(false);
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n).toBe(0);
    expect((await admin.request("POST", "/api/v1/auth/logout")).status).toBe(401);
  });
});

describe("what a password-level session may do", () => {
  test("read the session, log out, enrol; nothing else", async () => {
    const h = hub({ REQUIRE_AUTH: "true" });
    const browser = new Browser(h);
    await browser.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await browser.session();
    expect((await browser.request("GET", "/api/v1/auth/session")).status).toBe(200);
    expect((await browser.request("POST", "/api/v1/auth/mfa/totp")).status).toBe(200);
    for (const [method, path] of [
      ["GET", "/api/v1/platforms/Windows/incentives"],
      ["GET", "/api/v1/admin/users"],
      ["GET", "/api/v1/auth/api-keys"],
      ["GET", "/api/v1/auth/mfa/passkeys"],
      ["DELETE", "/api/v1/auth/trusted-devices"],
    ] as const) {
      expect({ path, status: (await browser.request(method, path)).status }).toEqual({ path, status: 401 });
    }
    expect((await browser.json("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "another long one" })).status).toBe(401);
    expect((await browser.request("POST", "/api/v1/auth/logout")).status).toBe(204);
  });
});

describe("password change", () => {
  test("ends the user's other sessions and remembered devices, keeps this one", async () => {
    const { h } = await ready();
    const first = new Browser(h);
    const second = new Browser(h);
    await first.login("bob", PASSWORD);
    await second.login("bob", PASSWORD);
    const bobId = (await first.session()).user?.id ?? 0;
    h.ctx.accounts.devices.remember(bobId);
    expect((await first.json("POST", "/api/v1/auth/password", { currentPassword: "not it at all", newPassword: "a brand new password" })).status).toBe(403);
    expect((await first.json("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "short" })).status).toBe(400);
    expect((await first.json("POST", "/api/v1/auth/password", { currentPassword: PASSWORD, newPassword: "a brand new password" })).status).toBe(204);
    expect((await first.session()).authenticated).toBe(true);
    expect((await second.session()).authenticated).toBe(false);
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM trusted_devices").get()?.n).toBe(0);
    expect((await new Browser(h).login("bob", PASSWORD)).status).toBe(401);
    expect((await new Browser(h).login("bob", "a brand new password")).status).toBe(200);
  });
});

describe("validation never echoes a secret", () => {
  /** Wrong values for a password field: of the wrong type, too short, too long, nested; and how each could show up in a reply. */
  const SECRETS: readonly { value: unknown; needles: string[] }[] = [
    { value: 98765432109876, needles: ["98765432109876"] },
    { value: 4.25e-7, needles: ["4.25e-7", "4.25e-07", "0.000000425"] },
    { value: "Sh0rtS3c", needles: ["Sh0rtS3c"] },
    { value: `L0ngS3cret${"z".repeat(5000)}`, needles: ["L0ngS3cret", "zzzzzzzzzz"] },
    { value: { nested: "0bjS3cret" }, needles: ["0bjS3cret"] },
    { value: ["4rrS3cret"], needles: ["4rrS3cret"] },
  ];

  test("setup, login, admin user create and edit, and password change: no 400 repeats the password, whatever its type", async () => {
    const { h, admin, bobId } = await ready();
    const bob = new Browser(h);
    await bob.login("bob", PASSWORD);
    const cases: { who: Browser; method: string; path: string; body: (secret: unknown) => Record<string, unknown> }[] = [
      { who: new Browser(h), method: "POST", path: "/api/v1/auth/setup", body: (password) => ({ username: "other", password }) },
      { who: new Browser(h), method: "POST", path: "/api/v1/auth/login", body: (password) => ({ username: "bob", password }) },
      { who: admin, method: "POST", path: "/api/v1/admin/users", body: (password) => ({ username: "carol", role: "user", password }) },
      { who: admin, method: "PATCH", path: `/api/v1/admin/users/${bobId}`, body: (password) => ({ password }) },
      { who: bob, method: "POST", path: "/api/v1/auth/password", body: (currentPassword) => ({ currentPassword, newPassword: "a brand new password" }) },
      { who: bob, method: "POST", path: "/api/v1/auth/password", body: (newPassword) => ({ currentPassword: PASSWORD, newPassword }) },
      { who: bob, method: "POST", path: "/api/v1/auth/password", body: (secret) => ({ currentPassword: secret, newPassword: secret }) },
    ];
    let invalid = 0;
    for (const { who, method, path, body } of cases) {
      for (const { value, needles } of SECRETS) {
        const response = await who.request(method, path, { body: body(value) });
        const text = await response.text();
        // A short string is a valid (wrong) password to sign in with: refused, but not as invalid.
        expect([400, 401, 403]).toContain(response.status);
        if (response.status === 400) invalid++;
        for (const needle of needles) expect({ path, needle, echoed: text.includes(needle) }).toEqual({ path, needle, echoed: false });
        const problem = JSON.parse(text) as { errors?: { location: string; value?: unknown }[] };
        expect(problem.errors?.some((e) => /password/i.test(e.location) && "value" in e) ?? false).toBe(false);
      }
    }
    // Every case but the short string sent to login and as the current password is a 400.
    expect(invalid).toBe(cases.length * SECRETS.length - 2);
  });
});
