import { describe, expect, test } from "bun:test";
import * as OTPAuth from "otpauth";
import { SoftwareAuthenticator } from "../authenticator.ts";
import { Browser } from "../browser.ts";
import { testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";
const ORIGIN = "http://localhost:3000";

function code(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at });
}

/** A hub with the default policy (admins need MFA), its first admin signed in at password level. */
async function enrolling() {
  let now = Date.parse("2026-11-21T18:00:00Z");
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const h = testHub({ now: clock.now });
  const admin = new Browser(h);
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  return { h, admin, clock };
}

describe("TOTP", () => {
  test("enrol, activate (upgrading the session), then log in with it", async () => {
    const { h, admin, clock } = await enrolling();
    const enrol = await admin.json<{ secret: string; uri: string; qr: string }>("POST", "/api/v1/auth/mfa/totp");
    expect(enrol.status).toBe(200);
    expect(enrol.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrol.body.uri).toStartWith("otpauth://totp/");
    expect(enrol.body.uri).toContain(`secret=${enrol.body.secret}`);
    expect(enrol.body.qr).toStartWith("data:image/svg+xml;base64,");
    expect(Buffer.from(enrol.body.qr.split(",")[1] ?? "", "base64").toString()).toContain("<svg");
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: "000000" })).status).toBe(401);
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(enrol.body.secret, clock.now()) })).status).toBe(204);
    expect(await admin.session()).toMatchObject({ authenticated: true, authLevel: "mfa", mfa: { required: false, methods: ["totp"] }, user: { totpEnabled: true } });

    clock.advance(60_000);
    const again = new Browser(h);
    expect(await again.login("root", PASSWORD)).toMatchObject({ status: 200, next: "mfa", methods: ["totp"] });
    expect(await again.session()).toMatchObject({ authenticated: false, authLevel: "password", mfa: { required: true, enroll: false, methods: ["totp"] } });
    expect((await again.request("GET", "/api/v1/admin/users")).status).toBe(401);
    expect((await again.request("POST", "/api/v1/auth/mfa/totp")).status).toBe(403);
    const current = code(enrol.body.secret, clock.now());
    const verified = await again.json("POST", "/api/v1/auth/mfa/totp/verification", { code: current });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ next: "ok", methods: ["totp"] });
    expect((await again.session()).authenticated).toBe(true);
    expect((await again.request("GET", "/api/v1/admin/users")).status).toBe(200);

    const third = new Browser(h);
    await third.login("root", PASSWORD);
    expect((await third.json("POST", "/api/v1/auth/mfa/totp/verification", { code: current })).status).toBe(401);
    clock.advance(30_000);
    expect((await third.json("POST", "/api/v1/auth/mfa/totp/verification", { code: code(enrol.body.secret, clock.now()) })).status).toBe(200);
  });

  test("codes one step early or late are accepted, two steps are not", async () => {
    const { admin, clock } = await enrolling();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now() - 60_000) })).status).toBe(401);
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now() - 30_000) })).status).toBe(204);
  });

  test("remember device: the next login from this browser skips the factor until devices are forgotten", async () => {
    const { h, admin, clock } = await enrolling();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now()) });
    clock.advance(30_000);
    const laptop = new Browser(h);
    await laptop.login("root", PASSWORD);
    const response = await laptop.request("POST", "/api/v1/auth/mfa/totp/verification", { body: { code: code(body.secret, clock.now()), rememberDevice: true } });
    expect(response.status).toBe(200);
    const device = response.headers.getSetCookie().find((c) => c.startsWith("hub_device=")) ?? "";
    expect(device).toContain("HttpOnly");
    expect(device).toContain(`Max-Age=${30 * 86400}`);
    await laptop.request("POST", "/api/v1/auth/logout");
    expect(await laptop.login("root", PASSWORD)).toMatchObject({ next: "ok" });
    expect((await laptop.session()).authenticated).toBe(true);
    expect((await new Browser(h).login("root", PASSWORD)).next).toBe("mfa");
    expect((await laptop.request("DELETE", "/api/v1/auth/trusted-devices")).status).toBe(204);
    await laptop.request("POST", "/api/v1/auth/logout");
    expect((await laptop.login("root", PASSWORD)).next).toBe("mfa");
  });

  test("removing the last factor is refused while the role requires one", async () => {
    const { h, admin, clock } = await enrolling();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now()) });
    // Activation replaced the session: its CSRF token is read again, as the web app does.
    await admin.session();
    expect((await admin.request("DELETE", "/api/v1/auth/mfa/totp")).status).toBe(409);
    expect((await admin.json("PATCH", "/api/v1/admin/settings", { mfaEnforcedRoles: [] })).status).toBe(200);
    expect((await admin.request("DELETE", "/api/v1/auth/mfa/totp")).status).toBe(204);
    expect((await new Browser(h).login("root", PASSWORD)).next).toBe("ok");
  });

  test("wrong codes are throttled", async () => {
    const { h, admin, clock } = await enrolling();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now()) });
    clock.advance(30_000);
    const guesser = new Browser(h, "198.51.100.9");
    await guesser.login("root", PASSWORD);
    for (let i = 0; i < 10; i++) expect((await guesser.json("POST", "/api/v1/auth/mfa/totp/verification", { code: String(100000 + i) })).status).toBe(401);
    const refused = await guesser.request("POST", "/api/v1/auth/mfa/totp/verification", { body: { code: code(body.secret, clock.now()) } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
  });
});

type PublicKeyReply<T> = { publicKey: T };
type CreationOptions = { challenge: string; rp: { id: string; name: string }; user: { name: string }; excludeCredentials?: { id: string }[] };
type RequestOptions = { challenge: string; rpId: string; allowCredentials: { id: string }[] };

describe("passkeys, with a software authenticator", () => {
  async function registerPasskey(admin: Browser, authenticator: SoftwareAuthenticator, label = "laptop") {
    const options = await admin.json<PublicKeyReply<CreationOptions>>("POST", "/api/v1/auth/mfa/passkeys/registration");
    expect(options.status).toBe(200);
    expect(options.body.publicKey.rp).toEqual({ id: "localhost", name: "Incentives Hub" });
    const registered = await admin.json<{ passkey: { id: number; label: string } }>("POST", "/api/v1/auth/mfa/passkeys", { response: await authenticator.create(options.body), label });
    // During enrolment the registration replaced the session: its CSRF token is read again.
    await admin.session();
    return registered;
  }

  /** An enrolled admin, and a second browser signed in at password level that must now pass the passkey. */
  async function challenged() {
    const { h, admin, clock } = await enrolling();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    await registerPasskey(admin, authenticator);
    const laptop = new Browser(h);
    expect(await laptop.login("root", PASSWORD)).toMatchObject({ next: "mfa", methods: ["webauthn"] });
    const challenge = async () => (await laptop.json<PublicKeyReply<RequestOptions>>("POST", "/api/v1/auth/mfa/passkeys/challenge")).body;
    return { h, laptop, authenticator, challenge, clock };
  }

  const deviceCookie = (response: Response) => response.headers.getSetCookie().find((c) => c.startsWith("hub_device="));

  test("register during enrolment (upgrading the session), then verify a later login", async () => {
    const { h, admin } = await enrolling();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const options = await admin.request("POST", "/api/v1/auth/mfa/passkeys/registration");
    expect(options.status).toBe(200);
    expect(options.headers.get("cache-control")).toBe("no-store");
    const creation = (await options.json()) as PublicKeyReply<CreationOptions>;
    expect(Object.keys(creation)).toEqual(["publicKey"]);
    expect(creation.publicKey).toMatchObject({ rp: { id: "localhost", name: "Incentives Hub" }, user: { name: "root" }, excludeCredentials: [] });
    expect(creation.publicKey.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const registered = await admin.json<{ passkey: Record<string, unknown> }>("POST", "/api/v1/auth/mfa/passkeys", { response: await authenticator.create(creation), label: "laptop" });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({ passkey: { id: expect.any(Number), label: "laptop", createdAt: expect.any(Number), lastUsedAt: null, backupEligible: false, backedUp: false } });
    expect(await admin.session()).toMatchObject({ authenticated: true, mfa: { methods: ["webauthn"] }, user: { hasPasskey: true } });
    const listed = await admin.json("GET", "/api/v1/auth/mfa/passkeys");
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ passkeys: [registered.body.passkey] });

    const later = new Browser(h);
    expect(await later.login("root", PASSWORD)).toMatchObject({ next: "mfa", methods: ["webauthn"] });
    const challenge = await later.request("POST", "/api/v1/auth/mfa/passkeys/challenge");
    expect(challenge.status).toBe(200);
    expect(challenge.headers.get("cache-control")).toBe("no-store");
    const request = (await challenge.json()) as PublicKeyReply<RequestOptions>;
    expect(Object.keys(request)).toEqual(["publicKey"]);
    expect(request.publicKey.rpId).toBe("localhost");
    expect(request.publicKey.allowCredentials.map((c) => c.id)).toEqual([authenticator.id]);
    const verified = await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", await authenticator.get(request));
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ next: "ok", methods: ["webauthn"] });
    expect(deviceCookie(verified.response)).toBeUndefined();
    expect((await later.session()).authenticated).toBe(true);
    const stored = h.ctx.db.sqlite.query<{ counter: number; last_used_at: number | null }, []>("SELECT counter, last_used_at FROM passkeys").get();
    expect(stored?.counter).toBe(1);
    expect(stored?.last_used_at).not.toBeNull();
  });

  test("verification takes the authenticator's response as the body itself", async () => {
    const { laptop, authenticator, challenge } = await challenged();
    const verified = await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification", await authenticator.get(await challenge()));
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ next: "ok", methods: ["webauthn"] });
    expect(deviceCookie(verified.response)).toBeUndefined();
    expect((await laptop.session()).authenticated).toBe(true);
  });

  test("verification takes the response wrapped, with rememberDevice in the body", async () => {
    const { h, laptop, authenticator, challenge } = await challenged();
    const plain = await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification", { response: await authenticator.get(await challenge()) });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({ next: "ok", methods: ["webauthn"] });
    expect(deviceCookie(plain.response)).toBeUndefined();

    const phone = new Browser(h);
    await phone.login("root", PASSWORD);
    const options = (await phone.json<PublicKeyReply<RequestOptions>>("POST", "/api/v1/auth/mfa/passkeys/challenge")).body;
    const remembered = await phone.json("POST", "/api/v1/auth/mfa/passkeys/verification", { response: await authenticator.get(options), rememberDevice: true });
    expect(remembered.status).toBe(200);
    expect(remembered.body).toEqual({ next: "ok", methods: ["webauthn"] });
    expect(deviceCookie(remembered.response)).toContain("HttpOnly");
    await phone.request("POST", "/api/v1/auth/logout");
    expect(await phone.login("root", PASSWORD)).toMatchObject({ status: 200, next: "ok" });
  });

  test("?remember=true sets hub_device, and the next login from that browser skips the passkey", async () => {
    const { h, laptop, authenticator, challenge } = await challenged();
    const verified = await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification?remember=true", await authenticator.get(await challenge()));
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ next: "ok", methods: ["webauthn"] });
    const device = deviceCookie(verified.response) ?? "";
    expect(device).toMatch(/^hub_device=[^;]+;/);
    expect(device).toContain("HttpOnly");
    expect(device).toContain("Path=/");
    expect(device).toContain(`Max-Age=${30 * 86400}`);
    await laptop.session();
    expect((await laptop.request("POST", "/api/v1/auth/logout")).status).toBe(204);
    expect(await laptop.login("root", PASSWORD)).toMatchObject({ status: 200, next: "ok" });
    expect((await laptop.session()).authenticated).toBe(true);
    expect((await new Browser(h).login("root", PASSWORD)).next).toBe("mfa");
  });

  test("?remember=false does not remember, and any other value is refused", async () => {
    const { laptop, authenticator, challenge } = await challenged();
    const refused = await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification?remember=maybe", await authenticator.get(await challenge()));
    expect(refused.status).toBe(400);
    expect(refused.response.headers.get("content-type")).toStartWith("application/problem+json");
    const verified = await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification?remember=false", await authenticator.get(await challenge()));
    expect(verified.status).toBe(200);
    expect(deviceCookie(verified.response)).toBeUndefined();
  });

  test("challenges are single-use and expire after 5 minutes; forged assertions fail", async () => {
    const { laptop: later, authenticator, challenge, clock } = await challenged();

    const first = await challenge();
    const wrongOrigin = await authenticator.get(first, { origin: "https://evil.example.org" });
    expect((await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", wrongOrigin)).status).toBe(401);
    expect((await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", await authenticator.get(first))).status).toBe(400);

    const second = await challenge();
    clock.advance(5 * 60_000 + 1);
    expect((await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", await authenticator.get(second))).status).toBe(400);

    const good = await authenticator.get(await challenge());
    expect((await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", good)).status).toBe(200);
    await later.session();
    expect((await later.json("POST", "/api/v1/auth/mfa/passkeys/verification", { response: good })).status).toBe(400);
  });

  test("a verification body that is neither a credential nor a wrapped one is a 400", async () => {
    const { laptop, challenge } = await challenged();
    await challenge();
    for (const body of [{ id: "x" }, { response: { id: "x" } }, {}]) {
      expect((await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification", body)).status).toBe(400);
    }
    expect((await laptop.session()).authenticated).toBe(false);
  });

  test("a passkey's backup flags are kept at registration, listed, and refreshed at each sign-in", async () => {
    const { h, admin } = await enrolling();
    const synced = new SoftwareAuthenticator(ORIGIN, { eligible: true, backedUp: true });
    const notYet = new SoftwareAuthenticator(ORIGIN, { eligible: true, backedUp: false });
    const deviceBound = new SoftwareAuthenticator(ORIGIN);
    await registerPasskey(admin, synced, "phone");
    await registerPasskey(admin, notYet, "password manager");
    await registerPasskey(admin, deviceBound, "security key");
    const listed = async () => (await admin.json<{ passkeys: { label: string; backupEligible: boolean | null; backedUp: boolean | null }[] }>("GET", "/api/v1/auth/mfa/passkeys")).body.passkeys;
    expect((await listed()).map(({ label, backupEligible, backedUp }) => ({ label, backupEligible, backedUp }))).toEqual([
      { label: "phone", backupEligible: true, backedUp: true },
      { label: "password manager", backupEligible: true, backedUp: false },
      { label: "security key", backupEligible: false, backedUp: false },
    ]);
    // Stored as the flags byte the field's hub keeps: UP|UV|BE|BS = 29 (UV: the software authenticator verifies its user).
    expect(h.ctx.db.sqlite.query<{ flags: number }, []>("SELECT flags FROM passkeys ORDER BY id").all().map((r) => r.flags)).toEqual([29, 13, 5]);

    // The password manager syncs it; the next sign-in with it says so.
    notYet.backedUp = true;
    const laptop = new Browser(h);
    await laptop.login("root", PASSWORD);
    const request = (await laptop.json<PublicKeyReply<RequestOptions>>("POST", "/api/v1/auth/mfa/passkeys/challenge")).body;
    expect((await laptop.json("POST", "/api/v1/auth/mfa/passkeys/verification", await notYet.get(request))).status).toBe(200);
    expect((await listed()).find((p) => p.label === "password manager")).toMatchObject({ backupEligible: true, backedUp: true });

    // A passkey registered before the hub kept flags says it does not know.
    h.ctx.db.sqlite.run("UPDATE passkeys SET flags = NULL WHERE id = (SELECT MIN(id) FROM passkeys)");
    expect((await listed())[0]).toMatchObject({ label: "phone", backupEligible: null, backedUp: null });
  });

  test("a registration must answer the pending challenge", async () => {
    const { admin } = await enrolling();
    const authenticator = new SoftwareAuthenticator(ORIGIN);
    const forged = await authenticator.create({ publicKey: { challenge: "bm90LXRoZS1jaGFsbGVuZ2U", rp: { id: "localhost" } } });
    expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: forged })).status).toBe(400);
    const options = await admin.json<PublicKeyReply<CreationOptions>>("POST", "/api/v1/auth/mfa/passkeys/registration");
    const otherOrigin = await new SoftwareAuthenticator("https://evil.example.org").create(options.body);
    expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: otherOrigin })).status).toBe(400);
    expect((await admin.session()).authenticated).toBe(false);
    expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: { id: "x" } })).status).toBe(400);
  });

  test("removing passkeys: 404 for others', 409 for the last required factor", async () => {
    const { admin } = await enrolling();
    const first = await registerPasskey(admin, new SoftwareAuthenticator(ORIGIN), "one");
    const second = await registerPasskey(admin, new SoftwareAuthenticator(ORIGIN), "two");
    expect((await admin.request("DELETE", "/api/v1/auth/mfa/passkeys/999")).status).toBe(404);
    const removed = await admin.request("DELETE", `/api/v1/auth/mfa/passkeys/${first.body.passkey.id}`);
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    expect((await admin.request("DELETE", `/api/v1/auth/mfa/passkeys/${second.body.passkey.id}`)).status).toBe(409);
    expect((await admin.json<{ passkeys: { label: string }[] }>("GET", "/api/v1/auth/mfa/passkeys")).body.passkeys.map((p) => p.label)).toEqual(["two"]);
  });
});
