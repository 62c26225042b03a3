/**
 * The whole passkey flow against the compiled binary, in real Chromium with
 * Chrome's virtual authenticator. The WebAuthn library is loaded lazily and
 * bundles differently from how it runs from source: dist/hub once answered
 * 500 to every passkey request while every in-process test passed.
 *
 * The admin comes from ADMIN_BOOTSTRAP_* with MFA not enforced
 * (MFA_ENFORCED_ROLES empty), so the passkey is registered by a fully
 * signed-in session and the last one may be deleted at the end.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, CDPSession, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import { chromiumAvailable, guardedPage, launch, pageCall as call } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the passkey browser test");

const USERNAME = "root";
const PASSWORD = "correct horse battery";

/**
 * One fetch from inside the page, as a web app makes it: same-origin
 * credentials, and the session's CSRF token on every state-changing request.
 */

/** navigator.credentials.create() with the hub's `{ publicKey }` reply, the credential serialised by its own toJSON(). */
async function createCredential(page: Page, publicKey: unknown): Promise<RegistrationResponseJSON> {
  return (await page.evaluate(async (json) => {
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(json as PublicKeyCredentialCreationOptionsJSON) });
    if (!(credential instanceof PublicKeyCredential)) throw new Error("navigator.credentials.create() gave no public-key credential");
    return credential.toJSON();
  }, publicKey)) as RegistrationResponseJSON;
}

/** navigator.credentials.get() with the hub's `{ publicKey }` reply. */
async function getAssertion(page: Page, publicKey: unknown): Promise<AuthenticationResponseJSON> {
  return (await page.evaluate(async (json) => {
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(json as PublicKeyCredentialRequestOptionsJSON) });
    if (!(credential instanceof PublicKeyCredential)) throw new Error("navigator.credentials.get() gave no public-key credential");
    return credential.toJSON();
  }, publicKey)) as AuthenticationResponseJSON;
}

interface SessionBody {
  authenticated: boolean;
  authLevel: string | null;
  mfa: { required: boolean; enroll: boolean; methods: string[] };
  user: { username: string; hasPasskey: boolean } | null;
}

interface PasskeyBody {
  id: number;
  label: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  backupEligible: boolean | null;
  backedUp: boolean | null;
}

describe.skipIf(!available)("passkeys through dist/hub in Chromium", () => {
  const data = tempDir("hub-passkeys-");
  let hub: RunningHub;
  let browser: Browser;

  beforeAll(async () => {
    hub = await startHub({
      cmd: [await compiledHub()],
      cwd: data.path,
      args: ["--db", join(data.path, "hub.db")],
      env: { ADMIN_BOOTSTRAP_USER: USERNAME, ADMIN_BOOTSTRAP_PASSWORD: PASSWORD, MFA_ENFORCED_ROLES: "" },
    });
    browser = await launch();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    data.cleanup();
  });

  test("register, list, second factor with remember-device, remembered login, delete", async () => {
    const port = new URL(hub.url).port;
    const origin = `http://localhost:${port}`;
    // WebAuthn needs a secure context and an RP id the page's host matches: localhost is both, and it is the hub's default origin.
    expect(hub.output()).toContain(`"origin":"${origin}"`);

    const { context, page, blocked, errors: problems } = await guardedPage(browser);

    const cdp: CDPSession = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable");
    // A platform authenticator whose passkeys sync (backup eligible, backed up), as a phone's or a password manager's do.
    const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, defaultBackupEligibility: true, defaultBackupState: true },
    });

    expect((await page.goto(`${origin}/healthz`))?.status()).toBe(200);
    expect(await page.evaluate(() => window.isSecureContext && typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function")).toBe(true);

    const signIn = await call<{ next: string; methods: string[] }>(page, "POST", "/api/v1/auth/login", { username: USERNAME, password: PASSWORD });
    expect(signIn).toEqual({ status: 200, body: { next: "ok", methods: [] } });

    const registration = await call<{ publicKey: { challenge: string; rp: { id: string; name: string }; user: { name: string } } }>(page, "POST", "/api/v1/auth/mfa/passkeys/registration");
    expect(registration.status).toBe(200);
    expect(Object.keys(registration.body)).toEqual(["publicKey"]);
    expect(registration.body.publicKey).toMatchObject({ rp: { id: "localhost", name: "Incentives Hub" }, user: { name: USERNAME } });
    const created = await createCredential(page, registration.body.publicKey);
    expect(created.type).toBe("public-key");
    const stored = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(stored.credentials.map((c) => c.rpId)).toEqual(["localhost"]);

    const registered = await call<{ passkey: PasskeyBody }>(page, "POST", "/api/v1/auth/mfa/passkeys", { response: created, label: "virtual authenticator" });
    expect(registered).toEqual({ status: 201, body: { passkey: { id: expect.any(Number), label: "virtual authenticator", createdAt: expect.any(Number), lastUsedAt: null, backupEligible: true, backedUp: true } } });
    const passkey = registered.body.passkey;

    expect(await call(page, "GET", "/api/v1/auth/mfa/passkeys")).toEqual({ status: 200, body: { passkeys: [passkey] } });
    expect((await call<SessionBody>(page, "GET", "/api/v1/auth/session")).body).toMatchObject({ authenticated: true, authLevel: "mfa", user: { hasPasskey: true } });

    expect(await call(page, "POST", "/api/v1/auth/logout")).toEqual({ status: 204, body: null });
    expect(await call(page, "POST", "/api/v1/auth/login", { username: USERNAME, password: PASSWORD })).toEqual({ status: 200, body: { next: "mfa", methods: ["webauthn"] } });
    expect((await call<SessionBody>(page, "GET", "/api/v1/auth/session")).body).toMatchObject({
      authenticated: false,
      authLevel: "password",
      mfa: { required: true, enroll: false, methods: ["webauthn"] },
    });

    const challenge = await call<{ publicKey: { challenge: string; rpId: string; allowCredentials: { id: string }[] } }>(page, "POST", "/api/v1/auth/mfa/passkeys/challenge");
    expect(challenge.status).toBe(200);
    expect(Object.keys(challenge.body)).toEqual(["publicKey"]);
    expect(challenge.body.publicKey.rpId).toBe("localhost");
    expect(challenge.body.publicKey.allowCredentials.map((c) => c.id)).toEqual([created.id]);
    const assertion = await getAssertion(page, challenge.body.publicKey);
    expect(assertion.id).toBe(created.id);
    const verified = await call(page, "POST", "/api/v1/auth/mfa/passkeys/verification?remember=true", assertion);
    expect(verified).toEqual({ status: 200, body: { next: "ok", methods: ["webauthn"] } });

    const device = (await context.cookies(origin)).find((c) => c.name === "hub_device");
    expect(device).toMatchObject({ httpOnly: true, path: "/", sameSite: "Lax" });
    const daysLeft = ((device?.expires ?? 0) * 1000 - Date.now()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(29.9);
    expect(daysLeft).toBeLessThanOrEqual(30);
    expect((await call<SessionBody>(page, "GET", "/api/v1/auth/session")).body).toMatchObject({ authenticated: true, authLevel: "mfa", mfa: { required: false } });
    const used = await call<{ passkeys: PasskeyBody[] }>(page, "GET", "/api/v1/auth/mfa/passkeys");
    expect(used.body.passkeys[0]?.lastUsedAt).toEqual(expect.any(Number));

    expect(await call(page, "POST", "/api/v1/auth/logout")).toEqual({ status: 204, body: null });
    expect(await call(page, "POST", "/api/v1/auth/login", { username: USERNAME, password: PASSWORD })).toEqual({ status: 200, body: { next: "ok", methods: ["webauthn"] } });
    expect((await call<SessionBody>(page, "GET", "/api/v1/auth/session")).body).toMatchObject({ authenticated: true, authLevel: "mfa" });

    expect(await call(page, "DELETE", `/api/v1/auth/mfa/passkeys/${passkey.id}`)).toEqual({ status: 204, body: null });
    expect(await call(page, "GET", "/api/v1/auth/mfa/passkeys")).toEqual({ status: 200, body: { passkeys: [] } });

    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
    expect(hub.output()).not.toContain('"level":"error"');
    await context.close();
  }, 30_000);
});
