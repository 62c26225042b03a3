/**
 * The alerts section of the administration (SPEC §18) as an admin uses it:
 * Debian's Chromium against the compiled binary, signed in as the admin the
 * environment bootstraps. A receiver on loopback (the hub runs with
 * WEBHOOK_ALLOW_PRIVATE so it may post there) checks every json delivery
 * with the standardwebhooks library, so the signing is checked by code this
 * project did not write. A second hub, without WEBHOOK_ALLOW_PRIVATE, shows
 * its refusal of that target at the URL field. Pages are checked with
 * axe-core, for console errors and requests leaving the machine, and
 * photographed into artifacts/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, expectBeside, guardedPage, launch, screenshot, textHas, textIs, textOf, type Guarded, until, pageCall as call } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the alerts browser tests");

const ADMIN_USER = "root";
const ADMIN_PASSWORD = "correct horse battery";
const ADMIN_ENV = { ADMIN_BOOTSTRAP_USER: ADMIN_USER, ADMIN_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD, MFA_ENFORCED_ROLES: "" };
const scratch = scratchDirs();

/** Signs in through the API from inside the page, so the browser holds the session cookie. */
async function signIn(page: Page, hub: RunningHub): Promise<void> {
  await page.goto(`${hub.url}/healthz`);
  const reply = await call<{ next: string }>(page, "POST", "/api/v1/auth/login", { username: ADMIN_USER, password: ADMIN_PASSWORD });
  expect(reply).toEqual({ status: 200, body: expect.objectContaining({ next: "ok" }) });
}

/** The value shown by a CopyValue named `label` (its name is visually hidden text beside the value). */
function copyValue(scope: Locator, page: Page, label: string): Locator {
  return scope.locator(".copy-value", { has: page.getByText(label, { exact: true }) }).locator("code");
}

/**
 * Console errors other than Chromium's own line for each HTTP refusal: the
 * refusals the tests provoke are checked exactly through `refusals` instead.
 */
function consoleErrors(guarded: Guarded): string[] {
  return guarded.errors.filter((e) => !e.startsWith("Failed to load resource: the server responded with a status of 4"));
}

/** Every response of 400 and above the page received, as "status METHOD path". */
function recordRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on("response", (response) => {
    if (response.status() >= 400) refusals.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  return refusals;
}

async function expectClean(guarded: Guarded, name: string): Promise<void> {
  expect(await axeViolations(guarded.page)).toEqual([]);
  await screenshot(guarded.page, name);
  expect(guarded.blocked).toEqual([]);
  expect(consoleErrors(guarded)).toEqual([]);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(width);
}

/** Opens the alerts section through the section navigation, as a person would. */
async function openAlerts(page: Page, hub: RunningHub): Promise<void> {
  await page.goto(`${hub.url}/admin`);
  await page.getByRole("navigation", { name: "Administration sections" }).getByRole("link", { name: "Alerts", exact: true }).click();
  await until(async () => new URL(page.url()).pathname, (p) => p === "/admin/alerts", "section url");
}

/** A token in the target's path, as Discord, Slack and ntfy URLs have. */
const PATH_TOKEN = "t0ken-in-the-path-0123456789";

interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface Message {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

describe.skipIf(!available)("alerts in Chromium, from dist/hub", () => {
  let browser: Browser;
  let hub: RunningHub;
  let admin: Guarded;
  let page: Page;
  let refusals: string[];
  let receiver: ReturnType<typeof Bun.serve>;
  const received: Received[] = [];
  let origin = "";
  let target = "";
  let secret = "";

  /** The refusals seen since the last call, emptied. */
  const takeRefusals = () => refusals.splice(0);
  /** What the receiver got, each checked against the current secret by the Standard Webhooks library. */
  const messages = (): Message[] => received.map((r) => new Webhook(secret).verify(r.body, r.headers) as Message);
  const ofType = (type: string) => messages().filter((m) => m.type === type);

  beforeAll(async () => {
    const binary = await compiledHub();
    browser = await launch();
    receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const body = await request.text();
        // A target that always fails, for the failing state; what it got is not a message to check.
        if (new URL(request.url).pathname === "/fail") return new Response("receiver says no", { status: 500 });
        received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body });
        return new Response(null, { status: 204 });
      },
    });
    origin = `http://127.0.0.1:${receiver.port}`;
    // The end of a Discord, Slack or ntfy URL is its credential: the page must never show it once saved.
    target = `${origin}/hook/${PATH_TOKEN}`;
    hub = await startHub({ cmd: [binary], args: ["--db", join(scratch(), "hub.db")], env: { ...ADMIN_ENV, WEBHOOK_ALLOW_PRIVATE: "true" } });
    admin = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Berlin", locale: "en-GB", colorScheme: "dark" });
    page = admin.page;
    refusals = recordRefusals(page);
    await signIn(page, hub);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    await receiver?.stop(true);
  });

  test("a json webhook for a killer bonus of at least 100 % on Steam in eu-west-1: secret once, a test delivered, one bonus.reached from a reading", async () => {
    await openAlerts(page, hub);
    await page.getByText("No webhooks yet. Add one below.").waitFor();

    const create = page.getByRole("region", { name: "Add a webhook" });
    // The defaults make a webhook that fires: any bonus of at least 50 %.
    expect(await create.getByLabel("Minimum bonus (%)").inputValue()).toBe("50");
    expect(await create.getByLabel("JSON (Standard Webhooks)").isChecked()).toBe(true);
    // A pasted URL picks the format its host asks for, and the form says so.
    const picks: [string, string][] = [
      ["https://discord.com/api/webhooks/123456789012345678/abcDEF", "Discord"],
      ["https://hooks.slack.com/services/T000/B000/XXXX", "Slack"],
      ["https://ntfy.sh/my-bonus-topic", "ntfy"],
    ];
    for (const [url, format] of picks) {
      await create.getByLabel("URL", { exact: true }).fill(url);
      expect(await create.getByLabel(format, { exact: true }).isChecked()).toBe(true);
      await textIs(create.locator("[data-testid=format-picked]"), `Format set to ${format} from the URL’s host.`);
    }
    await create.getByLabel("URL", { exact: true }).fill(target);
    expect(await create.locator("[data-testid=format-picked]").count()).toBe(0);
    await create.getByLabel("JSON (Standard Webhooks)").check();
    await create.getByLabel("Some platforms").check();
    await create.getByRole("group", { name: "Platforms to follow" }).getByLabel("Steam", { exact: true }).check();
    await create.getByLabel("Some regions").check();
    await create.getByRole("group", { name: "Regions to follow" }).getByLabel("(eu-west-1)").check();
    await create.getByLabel("Survivor", { exact: true }).uncheck();
    await create.getByLabel("Minimum bonus (%)").fill("100");
    await create.getByRole("button", { name: "Create webhook" }).click();

    secret = await until(textOf(copyValue(create, page, "Signing secret")), (s) => s !== "", "secret shown");
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await textHas(create.locator("[data-testid=secret-once]"), "any Standard Webhooks library");
    const listed = await call<{ webhooks: { id: number; platforms: string[]; regions: string[]; roles: string[]; minBonus: number }[] }>(page, "GET", "/api/v1/admin/webhooks");
    expect(listed.body.webhooks).toEqual([expect.objectContaining({ platforms: ["Windows"], regions: ["eu-west-1"], roles: ["killer"], minBonus: 100 })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    await create.getByRole("button", { name: "I have saved the secret" }).click();
    expect(await page.locator("[data-testid=secret-once]").count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toContain(secret);

    const row = page.locator("tr[data-webhook]");
    await textHas(row, `127.0.0.1:${receiver.port}`);
    await textHas(row, "Killer bonus of at least +100%");
    await textHas(row, "Steam · EU West (Ireland)");
    await textHas(row, "Never");

    await row.getByRole("button", { name: /^Manage / }).click();
    const manage = page.getByRole("region", { name: /^Manage #\d+ 127\.0\.0\.1:\d+$/ });
    await manage.getByRole("button", { name: "Send a test" }).click();
    // The outcome is followed live beside the button: queued, then the receiver's answer.
    const outcome = manage.locator("[data-testid=test-outcome]");
    await textIs(outcome, "Test queued: waiting for the receiver…");
    await textIs(outcome, "Test delivered: the receiver answered HTTP 204.");
    expect(await outcome.getAttribute("data-status")).toBe("delivered");
    await until(() => ofType("test").length, (n) => n === 1, "test message received");

    // The log reads itself again while a delivery is pending, so it turns to delivered without a click.
    const log = page.getByRole("region", { name: /^Delivery log of / });
    const testRow = log.locator('tr[data-delivery="test"]');
    await until(async () => ((await testRow.count()) === 0 ? null : await testRow.getAttribute("data-status")), (s) => s === "delivered", "test delivery delivered", 15_000);
    expect((await testRow.locator("td").allTextContents()).slice(0, 4)).toEqual(["Test", "Delivered", "1", "204"]);
    await page.getByRole("button", { name: "Refresh", exact: true }).first().click();
    await until(textOf(row.locator("time")), (t) => t !== "", "last delivery shown");
    await expectClean(admin, "admin-alerts");

    await page.setViewportSize({ width: 360, height: 800 });
    await noHorizontalScroll(page);
    await expectClean(admin, "admin-alerts-phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    const agent = await call<{ agent: { id: number }; token: string }>(page, "POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "steam", label: "alerts agent" });
    expect(agent.status).toBe(201);
    const reading = await fetch(`${hub.url}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${agent.body.token}`, "content-type": "application/json" },
      body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 0, killer: 125, ratio: 2, isReal: true, measuredAt: new Date().toISOString() }),
    });
    expect(reading.status).toBe(201);
    await until(() => ofType("bonus.reached").length, (n) => n >= 1, "bonus.reached received");
    // A second message would come within moments of the first; none must.
    await Bun.sleep(1500);
    expect(ofType("bonus.reached")).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ platform: "Windows", region: "eu-west-1", role: "killer", bonus: 125, killer: 125 }) }),
    ]);
    await log.getByRole("button", { name: "Refresh", exact: true }).click();
    const bonusRow = log.locator('tr[data-delivery="bonus.reached"]');
    await until(async () => ((await bonusRow.count()) === 0 ? null : await bonusRow.getAttribute("data-status")), (s) => s === "delivered", "bonus delivery in the log", 15_000);
    expect(admin.blocked).toEqual([]);
    expect(consoleErrors(admin)).toEqual([]);
    expect(takeRefusals()).toEqual([]);
  }, 90_000);

  test("manage: a rotated secret signs what follows; a disabled webhook's test is refused with the hub's reason; edit and delete", async () => {
    const manage = page.getByRole("region", { name: /^Manage #\d+ 127\.0\.0\.1:\d+$/ });
    await manage.getByRole("button", { name: "Rotate secret" }).click();
    await manage.getByRole("button", { name: "Yes, rotate the secret" }).click();
    const rotated = await until(textOf(copyValue(manage, page, "Signing secret")), (s) => s !== "", "rotated secret shown");
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    secret = rotated;
    await manage.getByRole("button", { name: "I have saved the secret" }).click();
    received.length = 0;
    await manage.getByRole("button", { name: "Send a test" }).click();
    await until(() => received.length, (n) => n === 1, "test after rotation received");
    expect(ofType("test")).toHaveLength(1);

    await manage.getByLabel("Minimum bonus (%)").fill("150");
    await manage.getByLabel("Status changes").check();
    // The stored URL is shown masked, never in a field: the new-URL field starts empty and, left so, keeps the target.
    const newUrl = manage.getByLabel("New URL", { exact: true });
    expect(await newUrl.inputValue()).toBe("");
    await textHas(manage, `Now ${origin}/…${PATH_TOKEN.slice(-4)}.`);
    await manage.getByRole("button", { name: "Save", exact: true }).click();
    await textIs(manage.locator(".notice").first(), "Saved.");
    await expectBeside(manage.locator(".notice").first(), manage.locator("form"), "status");
    expect(await page.locator("main").textContent()).not.toContain(PATH_TOKEN.slice(0, -4));
    received.length = 0;
    await manage.getByRole("button", { name: "Send a test" }).click();
    await until(() => received.length, (n) => n === 1, "test after an edit received");
    expect(received[0]?.path).toBe(`/hook/${PATH_TOKEN}`);
    const row = page.locator("tr[data-webhook]");
    await textHas(row, "Killer bonus of at least +150%");
    await textHas(row, "Status changes");
    // Only what was changed is sent, so the audit log names just that.
    const audit = await call<{ entries: { detail: unknown }[] }>(page, "GET", "/api/v1/admin/audit?action=webhook.update&limit=1");
    expect(audit.body.entries[0]?.detail).toEqual({ minBonus: 150, onStatus: true });

    await manage.getByRole("button", { name: "Disable webhook" }).click();
    await textHas(manage.locator(".notice"), "The webhook is disabled.");
    await expectBeside(manage.locator(".notice"), manage.getByRole("button", { name: "Enable webhook" }), "status");
    await textHas(row, "Disabled");
    await manage.getByRole("button", { name: "Send a test" }).click();
    const problem = manage.locator(".form-problem");
    await until(textOf(problem), (t) => t !== "", "refused test shown");
    // The refusal sits by the button that was pressed, not at the foot of the panel.
    await expectBeside(problem, manage.getByRole("button", { name: "Send a test" }), "alert");
    const id = await row.getAttribute("data-webhook");
    const direct = await call<{ detail: string }>(page, "POST", `/api/v1/admin/webhooks/${id}/test`);
    expect(direct.status).toBe(409);
    expect(await textOf(problem)()).toBe(direct.body.detail);
    await manage.getByRole("button", { name: "Enable webhook" }).click();
    await textHas(manage.locator(".notice"), "The webhook is enabled.");

    await manage.getByRole("button", { name: "Delete webhook" }).click();
    await manage.getByRole("button", { name: /^Yes, delete #\d+ 127\.0\.0\.1:\d+$/ }).click();
    await page.getByText("No webhooks yet. Add one below.").waitFor();
    expect((await call<{ webhooks: unknown[] }>(page, "GET", "/api/v1/admin/webhooks")).body.webhooks).toEqual([]);
    expect(consoleErrors(admin)).toEqual([]);
    expect(takeRefusals()).toEqual([`409 POST /api/v1/admin/webhooks/${id}/test`, `409 POST /api/v1/admin/webhooks/${id}/test`]);
  }, 60_000);

  test("a failing webhook is named above the list; its log shows the attempt, the receiver's status code and error, the next attempt, and pages older deliveries", async () => {
    const made = await call<{ webhook: { id: number } }>(page, "POST", "/api/v1/admin/webhooks", { url: `${origin}/fail`, format: "discord", minBonus: 50 });
    expect(made.status).toBe(201);
    const id = made.body.webhook.id;
    await page.getByRole("button", { name: "Refresh", exact: true }).first().click();
    const row = page.locator(`tr[data-webhook="${id}"]`);
    await row.getByRole("button", { name: /^Manage / }).click();
    const manage = page.getByRole("region", { name: /^Manage #\d+ 127\.0\.0\.1:\d+$/ });
    await manage.getByRole("button", { name: "Send a test" }).click();
    // The receiver's refusal shows beside the button as soon as the first attempt comes back, not a "sent".
    const outcome = manage.locator("[data-testid=test-outcome]");
    await textIs(outcome, "Test queued: waiting for the receiver…");
    await until(textOf(outcome), (t) => t.startsWith("Test not delivered yet: HTTP 500: receiver says no. The hub tries again "), "the receiver's error shown");
    expect(await outcome.getAttribute("data-status")).toBe("pending");
    const failing = async () => (await call<{ webhooks: { id: number; failingSince: number | null }[] }>(page, "GET", "/api/v1/admin/webhooks")).body.webhooks.find((w) => w.id === id)?.failingSince ?? null;
    await until(failing, (since) => since !== null, "failure recorded");

    await page.getByRole("button", { name: "Refresh", exact: true }).first().click();
    await textHas(page.locator("[data-testid=webhook-trouble]"), `Every attempt to deliver to #${id} 127.0.0.1:${receiver.port} has failed since`);
    await textHas(row, "Failing");
    await textHas(row, "Discord");
    await textHas(row, "Survivor or killer bonus of at least +50%");
    await textHas(row, "All platforms · All regions");

    const log = page.getByRole("region", { name: /^Delivery log of / });
    const attempt = log.locator('tr[data-delivery="test"]');
    // The log reads itself again while a delivery is pending, so the attempt's outcome arrives without a click.
    await until(async () => ((await attempt.count()) === 0 ? "" : ((await attempt.locator("td").nth(3).textContent()) ?? "")), (code) => code === "500", "the attempt in the log", 15_000);
    const [type, status, attempts, code, error, next] = await attempt.locator("td").allTextContents();
    expect([type, status, code]).toEqual(["Test", "Pending", "500"]);
    expect(Number(attempts)).toBeGreaterThanOrEqual(1);
    expect(error).toContain("receiver says no");
    expect(next).toMatch(/^(in \d+ seconds?|now)$/);
    await expectClean(admin, "admin-alerts-failing");

    // Each webhook gets its messages in order, so more tests wait behind the failing one: 26 in all, a page of 25 and an older page of 1.
    for (let i = 0; i < 25; i++) expect((await call(page, "POST", `/api/v1/admin/webhooks/${id}/test`)).status).toBe(202);
    await log.getByRole("button", { name: "Refresh", exact: true }).click();
    const rows = log.locator("tbody tr");
    await until(() => rows.count(), (n) => n === 25, "a full first page");
    await log.getByRole("button", { name: "Older", exact: true }).click();
    await textIs(log.locator(".pagination span").nth(1), "Page 2");
    await until(() => rows.count(), (n) => n === 1, "the older page");
    expect(await rows.first().locator("td").nth(3).textContent()).toBe("500");
    expect(await log.getByRole("button", { name: "Older", exact: true }).count()).toBe(0);
    await log.getByRole("button", { name: "Newer", exact: true }).click();
    await textIs(log.locator(".pagination span").nth(1), "Page 1");
    await until(() => rows.count(), (n) => n === 25, "back to the first page");

    // Deleted, so the hub stops retrying it for the rest of the run.
    expect((await call(page, "DELETE", `/api/v1/admin/webhooks/${id}`)).status).toBe(204);
    expect(takeRefusals()).toEqual([]);
  }, 60_000);

  test("a hub without WEBHOOK_ALLOW_PRIVATE refuses a loopback target, and the page shows its message at the URL field", async () => {
    const guarded = await startHub({ cmd: [await compiledHub()], args: ["--db", join(scratch(), "guarded.db")], env: ADMIN_ENV });
    const other = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, locale: "en-GB" });
    try {
      const otherRefusals = recordRefusals(other.page);
      await signIn(other.page, guarded);
      await openAlerts(other.page, guarded);
      const create = other.page.getByRole("region", { name: "Add a webhook" });
      const url = create.getByLabel("URL", { exact: true });
      await url.fill(target);
      await create.getByLabel("Minimum bonus (%)").fill("100");
      await create.getByRole("button", { name: "Create webhook" }).click();
      const fieldError = create.locator(".form-field").filter({ has: other.page.getByLabel("URL", { exact: true }) }).locator(".form-error");
      await until(textOf(fieldError), (t) => t !== "", "refusal at the URL field");

      const direct = await call<{ errors: { location: string; message: string }[] }>(other.page, "POST", "/api/v1/admin/webhooks", { url: target, format: "json" });
      expect(direct.status).toBe(400);
      const message = direct.body.errors.find((e) => e.location === "body.url")?.message ?? "";
      expect(message).toContain("127.0.0.1");
      expect(message).toContain("WEBHOOK_ALLOW_PRIVATE");
      expect(await textOf(fieldError)()).toBe(message);
      expect(await url.getAttribute("aria-invalid")).toBe("true");
      expect(await url.getAttribute("aria-describedby")).toContain(await fieldError.getAttribute("id"));
      await expectClean(other, "admin-alerts-refused");
      expect((await call<{ webhooks: unknown[] }>(other.page, "GET", "/api/v1/admin/webhooks")).body.webhooks).toEqual([]);
      expect(otherRefusals).toEqual(["400 POST /api/v1/admin/webhooks", "400 POST /api/v1/admin/webhooks"]);
    } finally {
      await other.context.close();
      await guarded.stop();
    }
  }, 60_000);
});
