/**
 * SPEC §10.1, the session findings of the second security review: the
 * session token is replaced at every change of level (a token seen before the
 * second factor is worth nothing after it); the first MFA policy is chosen by
 * a fully signed-in admin or the session setup issued, never by a login that
 * passed only the password; adding or removing a factor and creating an API
 * key need a password or factor check from the last 10 minutes.
 */
import { describe, expect, test } from "bun:test";
import * as OTPAuth from "otpauth";
import { SoftwareAuthenticator } from "../authenticator.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, json, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";
const ORIGIN = "http://localhost:3000";
const START = Date.parse("2026-11-21T18:00:00Z");
const TEN_MINUTES = 10 * 60_000;

type Hub = ReturnType<typeof testHub>;
type Problem = { status: number; detail: string; reauth?: boolean };

function code(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at });
}

function clocked(env: Record<string, string> = {}) {
  let now = START;
  const h = testHub({ env, now: () => now });
  return { h, now: () => now, advance: (ms: number) => (now += ms) };
}

/** What the hub makes of a session token presented on its own: the level it still grants, or null. */
async function levelOf(h: Hub, token: string | undefined): Promise<string | null> {
  const browser = new Browser(h);
  browser.cookies.set("hub_session", token ?? "");
  return (await browser.session()).authLevel;
}

const sessionRows = (h: Hub) => h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n;

describe("the session token is replaced at every change of level", () => {
  test("enrolling TOTP during setup, then passing it at a later sign-in: each time a new token and CSRF token, and the old token is dead", async () => {
    const { h, now, advance } = clocked();
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const setupToken = admin.cookies.get("hub_session");
    const setupCsrf = (await admin.session()).csrfToken;
    expect(await levelOf(h, setupToken)).toBe("password");

    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    const activation = await admin.request("POST", "/api/v1/auth/mfa/totp/activation", { body: { code: code(body.secret, now()) } });
    expect(activation.status).toBe(204);
    const fullToken = admin.cookies.get("hub_session");
    expect(fullToken).toBeDefined();
    expect(fullToken).not.toBe(setupToken);
    expect(await levelOf(h, setupToken)).toBeNull();
    expect(await levelOf(h, fullToken)).toBe("mfa");
    // The old CSRF token belongs to the ended session: a change sent with it is refused.
    expect((await admin.request("DELETE", "/api/v1/auth/trusted-devices", { headers: { "x-csrf-token": setupCsrf ?? "" } })).status).toBe(403);
    const fullCsrf = (await admin.session()).csrfToken;
    expect(fullCsrf).not.toBe(setupCsrf);
    expect((await admin.request("DELETE", "/api/v1/auth/trusted-devices")).status).toBe(204);

    advance(30_000);
    const laptop = new Browser(h);
    expect((await laptop.login("root", PASSWORD)).next).toBe("mfa");
    const passwordToken = laptop.cookies.get("hub_session");
    expect(await levelOf(h, passwordToken)).toBe("password");
    expect((await laptop.json("POST", "/api/v1/auth/mfa/totp/verification", { code: code(body.secret, now()) })).status).toBe(200);
    expect(laptop.cookies.get("hub_session")).not.toBe(passwordToken);
    expect(await levelOf(h, passwordToken)).toBeNull();
    expect(await levelOf(h, laptop.cookies.get("hub_session"))).toBe("mfa");
    expect(sessionRows(h)).toBe(2);
  });

  test("registering a passkey during enrolment, then passing it at a later sign-in, replaces the token too", async () => {
    const { h } = clocked();
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const setupToken = admin.cookies.get("hub_session");
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const options = await admin.json<{ publicKey: { challenge: string; rp: { id?: string } } }>("POST", "/api/v1/auth/mfa/passkeys/registration");
    expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: await authenticator.create(options.body) })).status).toBe(201);
    expect(await levelOf(h, setupToken)).toBeNull();
    expect(await levelOf(h, admin.cookies.get("hub_session"))).toBe("mfa");

    const laptop = new Browser(h);
    expect((await laptop.login("root", PASSWORD)).next).toBe("mfa");
    const passwordToken = laptop.cookies.get("hub_session");
    const challenge = await laptop.json<{ publicKey: { challenge: string; rpId: string; allowCredentials: { id: string }[] } }>("POST", "/api/v1/auth/mfa/passkeys/challenge");
    expect((await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification", await authenticator.get(challenge.body))).status).toBe(200);
    expect(await levelOf(h, passwordToken)).toBeNull();
    expect(await levelOf(h, laptop.cookies.get("hub_session"))).toBe("mfa");
  });

  test("choosing a policy that needs no factor replaces setup's session; the 30-day lifetime still counts from sign-in", async () => {
    const { h, advance } = clocked();
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const setupToken = admin.cookies.get("hub_session");
    advance(60_000);
    expect((await admin.json("POST", "/api/v1/auth/mfa/policy", { roles: [] })).status).toBe(204);
    expect(await levelOf(h, setupToken)).toBeNull();
    expect(await levelOf(h, admin.cookies.get("hub_session"))).toBe("mfa");
    expect(h.ctx.db.sqlite.query("SELECT created_at AS createdAt FROM sessions").all()).toEqual([{ createdAt: START }]);
  });

  test("signing in again ends the session the browser held before, so a planted token does not survive a sign-in", async () => {
    const { h } = clocked({ MFA_ENFORCED_ROLES: "" });
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    const before = admin.cookies.get("hub_session");
    expect((await admin.login("root", PASSWORD)).status).toBe(200);
    expect(admin.cookies.get("hub_session")).not.toBe(before);
    expect(await levelOf(h, before)).toBeNull();
    expect(sessionRows(h)).toBe(1);
  });
});

describe("the first MFA policy", () => {
  test("a bootstrapped admin who passed only the password cannot choose it; once enrolled, they can", async () => {
    const { h, now } = clocked({ ADMIN_BOOTSTRAP_USER: "ops", ADMIN_BOOTSTRAP_PASSWORD: PASSWORD });
    const ops = new Browser(h);
    expect((await ops.login("ops", PASSWORD)).next).toBe("enroll_mfa");
    expect((await ops.session()).needsMfaPolicy).toBe(true);
    const refused = await ops.request("POST", "/api/v1/auth/mfa/policy", { body: { roles: [] } });
    expect(refused.status).toBe(401);
    expectProblem(refused);
    expect(await ops.session()).toMatchObject({ needsMfaPolicy: true, authLevel: "password" });
    expect(h.ctx.settings.get().mfaEnforcedRoles).toEqual(["admin"]);

    const { body } = await ops.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    expect((await ops.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, now()) })).status).toBe(204);
    await ops.session();
    expect((await ops.json("POST", "/api/v1/auth/mfa/policy", { roles: ["admin", "user"] })).status).toBe(204);
    expect(h.ctx.settings.get().mfaEnforcedRoles).toEqual(["admin", "user"]);
  });

  test("only the session setup issued may choose it at password level, not a second sign-in of the same admin", async () => {
    const { h } = clocked();
    const creator = new Browser(h);
    await creator.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await creator.session();
    const other = new Browser(h, "198.51.100.20");
    expect((await other.login("root", PASSWORD)).next).toBe("enroll_mfa");
    expect((await other.json("POST", "/api/v1/auth/mfa/policy", { roles: [] })).status).toBe(401);
    expect(h.ctx.settings.mfaPolicyChosen()).toBe(false);
    expect((await creator.json("POST", "/api/v1/auth/mfa/policy", { roles: ["admin"] })).status).toBe(204);
    expect(h.ctx.settings.mfaPolicyChosen()).toBe(true);
  });
});

describe("changes that need a recent sign-in", () => {
  /** A fully signed-in admin (no factor required) on a hub with API keys, and its clock. */
  async function signedIn() {
    const clock = clocked({ MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true" });
    const admin = new Browser(clock.h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    return { ...clock, admin };
  }

  async function expectReauth(response: Response): Promise<void> {
    expect(response.status).toBe(403);
    expectProblem(response);
    const problem = await json<Problem>(response);
    expect(problem.reauth).toBe(true);
    expect(problem.detail).toContain("/api/v1/auth/reauth");
  }

  const keyCount = (h: Hub) => h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM api_keys").get()?.n;

  test("creating an API key: allowed within 10 minutes of signing in, then 403 with reauth: true until the password is confirmed", async () => {
    const { h, admin, advance } = await signedIn();
    advance(TEN_MINUTES);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { label: "at ten minutes" })).status).toBe(201);
    advance(1);
    await expectReauth(await admin.request("POST", "/api/v1/auth/api-keys", { body: { label: "too late" } }));
    expect(keyCount(h)).toBe(1);

    const wrong = await admin.request("POST", "/api/v1/auth/reauth", { body: { password: "not the password" } });
    expect(wrong.status).toBe(403);
    expect((await json<Problem>(wrong)).reauth).toBeUndefined();
    await expectReauth(await admin.request("POST", "/api/v1/auth/api-keys", { body: {} }));

    expect((await admin.request("POST", "/api/v1/auth/reauth", { body: { password: PASSWORD } })).status).toBe(204);
    expect((await admin.json("POST", "/api/v1/auth/api-keys", { label: "confirmed" })).status).toBe(201);
    expect(keyCount(h)).toBe(2);
  });

  test("switching a key back on needs it too; renaming or switching one off does not", async () => {
    const { admin, advance } = await signedIn();
    const made = await admin.json<{ apiKey: { id: number } }>("POST", "/api/v1/auth/api-keys", {});
    advance(TEN_MINUTES + 1);
    const path = `/api/v1/auth/api-keys/${made.body.apiKey.id}`;
    expect((await admin.json("PATCH", path, { label: "renamed", enabled: false })).status).toBe(200);
    await expectReauth(await admin.request("PATCH", path, { body: { enabled: true } }));
    expect((await admin.json<{ apiKey: { enabled: boolean } }>("PATCH", path, {})).body.apiKey.enabled).toBe(false);
    await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD });
    expect((await admin.json<{ apiKey: { enabled: boolean } }>("PATCH", path, { enabled: true })).body.apiKey.enabled).toBe(true);
  });

  test("adding TOTP (start and activation) and removing it; a TOTP verification counts as a fresh sign-in", async () => {
    const { h, admin, now, advance } = await signedIn();
    advance(TEN_MINUTES + 1);
    await expectReauth(await admin.request("POST", "/api/v1/auth/mfa/totp"));
    await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD });
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    advance(TEN_MINUTES + 1);
    await expectReauth(await admin.request("POST", "/api/v1/auth/mfa/totp/activation", { body: { code: code(body.secret, now()) } }));
    await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD });
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, now()) })).status).toBe(204);

    advance(TEN_MINUTES + 1);
    await expectReauth(await admin.request("DELETE", "/api/v1/auth/mfa/totp"));
    expect((await admin.session()).user?.totpEnabled).toBe(true);
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/verification", { code: code(body.secret, now()) })).status).toBe(200);
    expect((await admin.request("DELETE", "/api/v1/auth/mfa/totp")).status).toBe(204);
    expect(h.ctx.db.sqlite.query("SELECT totp_enabled AS on_ FROM users").get()).toEqual({ on_: 0 });
  });

  test("adding a passkey (options and registration) and removing one", async () => {
    const { h, admin, advance } = await signedIn();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    advance(TEN_MINUTES - 60_000);
    const options = await admin.json<{ publicKey: { challenge: string; rp: { id?: string } } }>("POST", "/api/v1/auth/mfa/passkeys/registration");
    const response = await authenticator.create(options.body);
    advance(2 * 60_000);
    await expectReauth(await admin.request("POST", "/api/v1/auth/mfa/passkeys", { body: { response } }));
    await expectReauth(await admin.request("POST", "/api/v1/auth/mfa/passkeys/registration"));
    await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD });
    // The refused registration did not use up the pending challenge.
    const added = await admin.json<{ passkey: { id: number } }>("POST", "/api/v1/auth/mfa/passkeys", { response });
    expect(added.status).toBe(201);

    advance(TEN_MINUTES + 1);
    await expectReauth(await admin.request("DELETE", `/api/v1/auth/mfa/passkeys/${added.body.passkey.id}`));
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM passkeys").get()?.n).toBe(1);
    await admin.json("POST", "/api/v1/auth/reauth", { password: PASSWORD });
    expect((await admin.request("DELETE", `/api/v1/auth/mfa/passkeys/${added.body.passkey.id}`)).status).toBe(204);
  });

  test("an API key can neither mint keys nor confirm a password, however fresh", async () => {
    const { h, admin } = await signedIn();
    const { key } = (await admin.json<{ key: string }>("POST", "/api/v1/auth/api-keys", {})).body;
    const headers = { authorization: `Bearer ${key}` };
    expect((await call(h, "POST", "/api/v1/auth/api-keys", { headers, body: {} })).status).toBe(403);
    expect((await call(h, "POST", "/api/v1/auth/reauth", { headers, body: { password: PASSWORD } })).status).toBe(403);
    expect((await call(h, "POST", "/api/v1/auth/mfa/totp", { headers })).status).toBe(403);
    expect(keyCount(h)).toBe(1);
  });

  test("wrong passwords at /auth/reauth are throttled as sign-ins are: 10 × 403, then 429 with Retry-After, the right one included", async () => {
    const { admin } = await signedIn();
    for (let i = 0; i < 10; i++) expect((await admin.request("POST", "/api/v1/auth/reauth", { body: { password: `guess number ${i}` } })).status).toBe(403);
    const refused = await admin.request("POST", "/api/v1/auth/reauth", { body: { password: PASSWORD } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // Password changes guess the same secret, so they share the count.
    expect((await admin.request("POST", "/api/v1/auth/password", { body: { currentPassword: PASSWORD, newPassword: "a brand new password" } })).status).toBe(429);
  });

  test("a session stored before the hub kept the time of the last check must confirm the password first", async () => {
    const { h, admin } = await signedIn();
    h.ctx.db.sqlite.run("UPDATE sessions SET authenticated_at = 0");
    await expectReauth(await admin.request("POST", "/api/v1/auth/api-keys", { body: {} }));
  });
});
