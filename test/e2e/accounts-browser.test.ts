/**
 * Accounts in the web app as people use them: Debian's Chromium against the
 * compiled binary. A fresh hub through /setup (admin, MFA policy, TOTP with
 * codes computed here from the key the page shows) to the board; signing
 * out and in with TOTP and "remember this device"; refusals and throttling;
 * /account (password, API keys used by a real request, a passkey from
 * Chrome's virtual authenticator used to sign in); with requireAuth on, the
 * board sending a signed-out viewer to sign in and back. Every page: axe in
 * dark and light, no console errors, nothing leaving the machine, and
 * screenshots at phone and desktop width in artifacts/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Secret, TOTP } from "otpauth";
import type { Browser, Locator, Page } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textMatches, textOf as text, type Guarded, until, urlIs } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the accounts browser tests");

const scratch = scratchDirs();
const ADMIN = "root";
const FIRST_PASSWORD = "correct horse battery";
const SECOND_PASSWORD = "staple gun lighthouse";



/** Chromium logs every refused fetch as a console error; these flows provoke 401, 403 (a change asking for a recent sign-in), 409 and 429 on purpose. */
const PROVOKED = /^Failed to load resource: the server responded with a status of (401|403|409|429) /;

/** axe in both schemes, no horizontal scroll, screenshots at phone and desktop width, nothing blocked, no unexpected console error. */
async function checkPage(guarded: Guarded, name: string): Promise<void> {
  const { page } = guarded;
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    expect({ name, colorScheme, violations: await axeViolations(page) }).toEqual({ name, colorScheme, violations: [] });
  }
  const size = page.viewportSize();
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect({ name, width, scroll }).toEqual({ name, width, scroll: 0 });
    await screenshot(page, `${name}-${width}`);
  }
  if (size) await page.setViewportSize(size);
  expect(guarded.blocked).toEqual([]);
  expect(guarded.errors.filter((e) => !PROVOKED.test(e))).toEqual([]);
}

/** TOTP codes as the authenticator app would show them; a code is accepted once, so each call uses a later 30 s step (the hub allows one step ahead). */
function authenticator(secret: string): () => Promise<string> {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
  let lastStep = 0;
  return async () => {
    for (;;) {
      const now = Math.floor(Date.now() / 30_000);
      const step = Math.max(now, lastStep + 1);
      if (step <= now + 1) {
        lastStep = step;
        return totp.generate({ timestamp: step * 30_000 });
      }
      await Bun.sleep(1000);
    }
  };
}

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut(page: Page, base: string): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await urlIs(page, `${base}/`);
  await page.getByRole("link", { name: "Sign in" }).waitFor();
}

describe.skipIf(!available)("accounts in Chromium, from dist/hub", () => {
  let browser: Browser;
  let binary: string;
  let hub: RunningHub;
  /** The hub as the browser reaches it: WebAuthn needs localhost, the hub's default origin. */
  let base: string;
  /** The admin's browser, kept from first run to the passkey sign-in. */
  let admin: Guarded;
  let nextCode: () => Promise<string>;
  /** The first hub's database, which a test ages a session in. */
  let dbPath: string;

  beforeAll(async () => {
    binary = await compiledHub();
    browser = await launch();
    dbPath = join(scratch(), "hub.db");
    hub = await startHub({ cmd: [binary], args: ["--db", dbPath], env: { ENABLE_API_KEYS: "true" } });
    base = hub.url.replace("127.0.0.1", "localhost");
    admin = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
    const cdp = await admin.context.newCDPSession(admin.page);
    await cdp.send("WebAuthn.enable");
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
  }, 180_000);

  afterAll(async () => {
    await admin?.context.close();
    await browser?.close();
    await hub?.stop();
  });

  test("first run: /setup creates the admin, the policy asks admins for a second step, TOTP is enrolled, the board opens signed in", async () => {
    const { page } = admin;
    await page.goto(`${base}/setup`);
    // Each step of setup and sign-in puts focus on its first field (SPEC §17.1 keyboard).
    const focusedIn = (selector: string) => until(() => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector), (yes) => yes, `focus on ${selector}`);
    await focusedIn("input[name=username]");
    await page.getByLabel("Username").fill(ADMIN);
    await page.getByLabel("Password", { exact: true }).fill(FIRST_PASSWORD);
    await page.getByLabel("Name (optional)").fill("Hub Admin");
    await checkPage(admin, "setup");
    await page.getByRole("button", { name: "Create the admin account" }).click();

    await page.getByRole("heading", { name: "Who must use a second step?" }).waitFor();
    expect(await page.getByLabel("Admins only (recommended)").isChecked()).toBe(true);
    await focusedIn("section[aria-labelledby=setup-policy] input");
    await checkPage(admin, "setup-policy");
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByRole("heading", { name: "Set up your second step" }).waitFor();
    await focusedIn("section[aria-labelledby=setup-factor] button");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    const secret = await text(page.getByLabel("Setup key"))();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.getByRole("img", { name: "QR code that adds this hub to your authenticator app" }).getAttribute("src")).toStartWith("data:image/");
    expect(await page.getByRole("link", { name: "On this device? Open it in your authenticator app" }).getAttribute("href")).toStartWith(`otpauth://totp/`);
    await checkPage(admin, "setup-totp");
    nextCode = authenticator(secret);
    await page.getByLabel("6-digit code from the app").fill("000000");
    await page.getByRole("button", { name: "Turn on" }).click();
    await textMatches(page.locator(".form-problem"), /not valid/);
    await page.getByLabel("6-digit code from the app").fill(await nextCode());
    await page.getByRole("button", { name: "Turn on" }).click();

    await urlIs(page, `${base}/`);
    await page.getByRole("link", { name: "Account" }).waitFor();
    const session = await page.evaluate(async () => (await (await fetch("/api/v1/auth/session")).json()) as { authenticated: boolean; user: { username: string; totpEnabled: boolean } });
    expect(session).toMatchObject({ authenticated: true, user: { username: ADMIN, totpEnabled: true } });
  }, 60_000);

  test("sign in: password then TOTP with remember-device, back to ?next=; the remembered browser skips the code", async () => {
    const { page } = admin;
    await page.goto(`${base}/account`);
    await signOut(page, base);

    await page.goto(`${base}/account`);
    await urlIs(page, `${base}/login?next=%2Faccount`);
    await checkPage(admin, "login");
    await signIn(page, ADMIN, FIRST_PASSWORD);
    await page.getByRole("heading", { name: "Confirm it's you" }).waitFor();
    // After a correct password the second step has the focus, not the page's body.
    await until(() => page.evaluate(() => document.activeElement?.getAttribute("name") ?? ""), (name) => name === "code", "focus on the code field");
    await checkPage(admin, "login-mfa");
    await page.getByLabel("Remember this device for 30 days").check();
    await page.getByLabel("Code from your authenticator app").fill(await nextCode());
    await page.getByRole("button", { name: "Confirm" }).click();
    await urlIs(page, `${base}/account`);
    await page.getByRole("heading", { name: "Your account" }).waitFor();

    await signOut(page, base);
    await page.goto(`${base}/login?next=%2Faccount`);
    await signIn(page, ADMIN, FIRST_PASSWORD);
    await urlIs(page, `${base}/account`);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
  }, 60_000);

  test("refusals: a wrong password shows the hub's detail; the 11th failure is throttled with a countdown", async () => {
    const stranger = await guardedPage(browser, { viewport: { width: 360, height: 800 } });
    const { page } = stranger;
    await page.goto(`${base}/login`);
    const attempt = async () => {
      await Promise.all([page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/login")), page.getByRole("button", { name: "Sign in" }).click()]);
    };
    await page.getByLabel("Username").fill("nobody");
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await attempt();
    await textMatches(page.locator(".form-problem"), /^The username or password is not right\.$/);
    for (let i = 2; i <= 10; i++) await attempt();
    await attempt();
    const problem = page.locator(".form-problem");
    const first = await textMatches(problem, /try again in \d+ s\..*Too many attempts\. Try again in \d+:\d\d min\./);
    const seconds = (shown: string) => {
      const [, minutes, rest] = /Too many attempts\. Try again in (\d+):(\d\d) min\./.exec(shown) ?? [];
      return Number(minutes) * 60 + Number(rest);
    };
    await until(text(problem), (shown) => seconds(shown) < seconds(first), "the countdown", 3_000);
    await checkPage(stranger, "login-throttled");
    await stranger.context.close();
  }, 60_000);

  test("account: password change, an API key used by a request, switched off and deleted, a passkey that signs in", async () => {
    const { page } = admin;
    await page.goto(`${base}/account`);
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    await textMatches(page.locator(".profile-facts"), /root.*Hub Admin.*Not set.*Admin/);

    await page.getByLabel("Current password").fill(FIRST_PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill(SECOND_PASSWORD);
    await page.getByLabel("New password again").fill(SECOND_PASSWORD);
    expect(await page.getByLabel("Also switch off my API keys").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Change password" }).click();
    await textMatches(page.locator(".account-notice"), /signed out on every other device/);

    await page.getByLabel("Name (optional)").fill("test script");
    await page.getByLabel("Expires").selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await until(text(page.getByLabel("API key", { exact: true })), (k) => k !== "", "the new key");
    expect(key).toMatch(/^hub_[A-Za-z0-9_-]{43}$/);
    expect(await text(page.getByLabel("Example command"))()).toBe(`curl -H "Authorization: Bearer ${key}" ${base}/api/v1/meta`);
    const withKey = (path: string) => fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await withKey("/api/v1/meta")).status).toBe(200);
    expect((await withKey("/api/v1/admin/settings")).status).toBe(200);
    expect((await fetch(`${hub.url}/api/v1/admin/settings`)).status).toBe(401);

    await page.getByLabel("Name for this passkey (optional)").fill("Virtual key");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await textMatches(page.locator("#account-passkeys ~ .account-list .account-item-title"), /^Virtual key$/);
    // The virtual authenticator's passkeys do not sync, and the list says so.
    await textMatches(page.locator("#account-passkeys ~ .account-list .account-item-meta"), /never used · on one device only$/);
    await checkPage(admin, "account");

    await page.getByRole("button", { name: "I have copied it" }).click();
    const item = page.locator("#account-keys ~ .account-list .account-item");
    await textMatches(item.locator(".account-item-title"), /^test script\s+On$/);
    await item.getByRole("button", { name: "Switch off" }).click();
    await textMatches(item.locator(".account-item-title"), /^test script\s+Off$/);
    expect((await withKey("/api/v1/admin/settings")).status).toBe(401);
    await item.getByRole("button", { name: "Delete" }).click();
    await item.getByRole("button", { name: "Yes, delete" }).click();
    await textMatches(page.locator("#account-keys ~ .state"), /^No API keys yet\.$/);

    // The password change forgot the remembered browser: the second step is asked for again, and the passkey answers it.
    await signOut(page, base);
    await page.goto(`${base}/login?next=%2Faccount`);
    await signIn(page, ADMIN, SECOND_PASSWORD);
    await page.getByRole("heading", { name: "Confirm it's you" }).waitFor();
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await urlIs(page, `${base}/account`);
    await textMatches(page.locator("#account-passkeys ~ .account-list .account-item-meta"), /last used/);

    const passkey = page.locator("#account-passkeys ~ .account-list .account-item");
    await passkey.getByRole("button", { name: "Delete" }).click();
    await passkey.getByRole("button", { name: "Yes, delete" }).click();
    await textMatches(page.locator("#account-passkeys ~ .state"), /^No passkeys yet\.$/);
    await page.getByRole("button", { name: "Remove the app" }).click();
    await page.getByRole("button", { name: "Yes, remove it" }).click();
    await textMatches(page.locator("#account-totp ~ * .form-problem"), /last second factor/);
    await checkPage(admin, "account-refused");
    expect(hub.output()).not.toContain('"level":"error"');
  }, 60_000);

  test("a change that needs a recent sign-in asks for the password in place, then goes through", async () => {
    const { page } = admin;
    await page.goto(`${base}/account`);
    await page.getByRole("heading", { name: "Profile" }).waitFor();
    // As if the last sign-in were long ago: the hub keeps the time of each session's last password or factor check.
    const file = new Database(dbPath);
    file.run("UPDATE sessions SET authenticated_at = 0");
    file.close();

    await page.getByLabel("Name (optional)").fill("after reauth");
    await page.getByRole("button", { name: "Create key" }).click();
    const dialog = page.getByRole("dialog", { name: "Confirm your password" });
    await dialog.waitFor();
    await checkPage(admin, "account-reauth");
    await dialog.getByLabel("Password", { exact: true }).fill("not my password");
    await dialog.getByRole("button", { name: "Confirm and continue" }).click();
    await textMatches(dialog.locator(".form-problem"), /^The password is not right\.$/);
    await dialog.getByLabel("Password", { exact: true }).fill(SECOND_PASSWORD);
    await dialog.getByRole("button", { name: "Confirm and continue" }).click();
    await dialog.waitFor({ state: "hidden" });
    const key = await until(text(page.getByLabel("API key", { exact: true })), (k) => k !== "", "the key made after confirming");
    expect(key).toMatch(/^hub_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: "I have copied it" }).click();
    const item = page.locator("#account-keys ~ .account-list .account-item");
    await textMatches(item.locator(".account-item-title"), /^after reauth\s+On$/);

    // Declining leaves things as they were, with the hub's reason on the form.
    const stale = new Database(dbPath);
    stale.run("UPDATE sessions SET authenticated_at = 0");
    stale.close();
    await page.getByLabel("Name (optional)").fill("declined");
    await page.getByRole("button", { name: "Create key" }).click();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await textMatches(page.locator("#account-keys ~ form .form-problem"), /10 minutes/);
    expect(await item.count()).toBe(1);
    expect(admin.errors.filter((e) => !PROVOKED.test(e))).toEqual([]);
  }, 60_000);

  test("with requireAuth on, a signed-out viewer of /Windows signs in and comes back", async () => {
    const dir = scratch();
    const gated = await startHub({
      cmd: [binary],
      args: ["--db", join(dir, "hub.db")],
      env: { REQUIRE_AUTH: "true", ADMIN_BOOTSTRAP_USER: ADMIN, ADMIN_BOOTSTRAP_PASSWORD: FIRST_PASSWORD, MFA_ENFORCED_ROLES: "" },
    });
    try {
      const viewer = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
      const { page } = viewer;
      const gatedBase = gated.url.replace("127.0.0.1", "localhost");
      await page.goto(`${gatedBase}/Windows`);
      await urlIs(page, `${gatedBase}/login?next=%2FWindows`);
      await signIn(page, ADMIN, FIRST_PASSWORD);
      await urlIs(page, `${gatedBase}/Windows`);
      await page.getByRole("link", { name: "Account" }).waitFor();
      await page.locator(".first-run, .board-head").first().waitFor();
      expect(viewer.blocked).toEqual([]);
      expect(viewer.errors.filter((e) => !PROVOKED.test(e))).toEqual([]);
      await viewer.context.close();
    } finally {
      await gated.stop();
    }
  }, 60_000);

  test("a hostile ?next= never takes a viewer off the hub: after signing in, or through Continue when already signed in", async () => {
    const open = await startHub({
      cmd: [binary],
      args: ["--db", join(scratch(), "hub.db")],
      env: { ADMIN_BOOTSTRAP_USER: ADMIN, ADMIN_BOOTSTRAP_PASSWORD: FIRST_PASSWORD, MFA_ENFORCED_ROLES: "" },
    });
    try {
      const openBase = open.url.replace("127.0.0.1", "localhost");
      const hostile = ["/%5Cevil.example/path", "/%09/evil.example", "/%5C%5Cevil.example", "//evil.example", "https://evil.example/", "javascript:alert(1)"];
      const viewer = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
      const { page } = viewer;
      for (const next of hostile) {
        await page.context().clearCookies();
        await page.goto(`${openBase}/login?next=${next}`);
        await signIn(page, ADMIN, FIRST_PASSWORD);
        await page.getByRole("link", { name: "Account" }).waitFor();
        expect({ next, signedIn: page.url() }).toEqual({ next, signedIn: `${openBase}/` });

        await page.goto(`${openBase}/login?next=${next}`);
        await page.locator(".auth-page a.button-primary").click();
        await page.getByRole("link", { name: "Account" }).waitFor();
        expect({ next, continued: page.url() }).toEqual({ next, continued: `${openBase}/` });
      }
      expect(viewer.blocked).toEqual([]);
      expect(viewer.errors.filter((e) => !PROVOKED.test(e))).toEqual([]);
      await viewer.context.close();
    } finally {
      await open.stop();
    }
  }, 60_000);

  test("a bootstrapped admin whose hub never chose the MFA policy chooses it at first sign-in, once fully signed in", async () => {
    const bootstrapped = await startHub({ cmd: [binary], args: ["--db", join(scratch(), "hub.db")], env: { ADMIN_BOOTSTRAP_USER: ADMIN, ADMIN_BOOTSTRAP_PASSWORD: FIRST_PASSWORD } });
    try {
      const guarded = await guardedPage(browser, { viewport: { width: 1280, height: 900 } });
      const { page } = guarded;
      const bootBase = bootstrapped.url.replace("127.0.0.1", "localhost");
      await page.goto(`${bootBase}/login`);
      await signIn(page, ADMIN, FIRST_PASSWORD);
      // Only a fully signed-in admin chooses the policy (SPEC §10.1): the hub's default asks admins for a second step, so it comes first.
      await page.getByRole("heading", { name: "Set up a second step" }).waitFor();
      await page.getByRole("button", { name: "Set up an authenticator app" }).click();
      const code = authenticator(await text(page.getByLabel("Setup key"))());
      await page.getByLabel("6-digit code from the app").fill(await code());
      await page.getByRole("button", { name: "Turn on" }).click();
      await urlIs(page, `${bootBase}/setup`);
      await page.getByLabel("Nobody").check();
      await page.getByRole("button", { name: "Continue" }).click();
      await urlIs(page, `${bootBase}/`);
      await page.getByRole("link", { name: "Account" }).waitFor();
      expect(guarded.blocked).toEqual([]);
      expect(guarded.errors).toEqual([]);
      await guarded.context.close();
    } finally {
      await bootstrapped.stop();
    }
  }, 60_000);
});
