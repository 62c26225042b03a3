/**
 * Push to a closed page as a viewer uses it (SPEC §23): Debian's Chromium
 * against the compiled binary, a real push service (web-push-testing behind
 * a TLS front, trusted by the hub through NODE_EXTRA_CA_CERTS). Headless
 * Chromium has no push service of its own, so PushManager.subscribe is
 * stubbed to hand back a web-push-testing subscription; everything after it
 * is real: the board's offer, the hub's judging and sending, the service's
 * decryption, the worker's notification (delivered with the CDP method
 * ServiceWorker.deliverPushMessage), the page it opens, and the board
 * reloaded offline from the worker's caches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, CDPSession } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { PushService } from "../push-service.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textHas, type Guarded, until } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, postReading, startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the push browser tests");
const scratch = scratchDirs();
const TOKENS = Array.from({ length: 6 }, (_, i) => `push-agent-token-${i}-0123456789abcdef`);

let service: PushService;
let hub: RunningHub;
let browser: Browser;

beforeAll(async () => {
  if (!available) return;
  const dir = scratch();
  service = await PushService.start(dir);
  const binary = await compiledHub();
  hub = await startHub({
    cmd: [binary],
    cwd: dir,
    args: ["--db", join(dir, "hub.db")],
    env: {
      CONTACT_EMAIL: "ops@example.org",
      PUSH_SERVICE_HOSTS: "localhost",
      WEBHOOK_ALLOW_PRIVATE: "true",
      NODE_EXTRA_CA_CERTS: service.certPath,
      PROVISION_AGENTS: TOKENS.map((token, i) => `p${i}:${token}:eu-west-1:steam`).join(","),
    },
  });
  browser = await launch();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await hub?.stop();
  service?.stop();
});

/** The registration id of the hub's service worker, as the DevTools protocol reports it. */
async function registrationId(cdp: CDPSession, scope: string): Promise<string> {
  let found: string | null = null;
  cdp.on("ServiceWorker.workerRegistrationUpdated", (event: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
    for (const registration of event.registrations) if (registration.scopeURL === scope && !registration.isDeleted) found = registration.registrationId;
  });
  await cdp.send("ServiceWorker.enable");
  return await until(() => found, (id) => id !== null, "the service worker's registration").then((id) => id ?? "");
}

describe.skipIf(!available)("push on the board, through Chromium", () => {
  test("subscribe from the board, get the push, show it, open the region page; reload offline", async () => {
    const key = ((await (await fetch(`${hub.url}/api/v1/push/key`)).json()) as { publicKey: string }).publicKey;
    const subscription = await service.subscribe(key);
    const guarded: Guarded = await guardedPage(browser, { permissions: ["notifications"] });
    const { page, context } = guarded;
    // The one stand-in: a push service the headless browser does not have. The subscription it hands back is real.
    await context.addInitScript((sub: { endpoint: string; keys: { p256dh: string; auth: string } }) => {
      let current: PushSubscription | null = null;
      const make = () =>
        ({
          endpoint: sub.endpoint,
          toJSON: () => ({ endpoint: sub.endpoint, keys: sub.keys }),
          unsubscribe: async () => {
            current = null;
            return true;
          },
        }) as unknown as PushSubscription;
      PushManager.prototype.subscribe = async () => (current ??= make());
      PushManager.prototype.getSubscription = async () => current;
    }, { endpoint: subscription.endpoint, keys: subscription.keys });

    let now = Date.now() - 120_000;
    expect(await postReading(hub.url, TOKENS[0] ?? "", now, { killer: 25 })).toBe(201);
    await page.goto(`${hub.url}/Windows`);
    const cdp = await context.newCDPSession(page);
    const registration = await registrationId(cdp, `${hub.url}/`);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });

    await page.locator("details.alerts summary").click();
    const form = page.locator(".alerts-form");
    await form.getByLabel("Region").selectOption("eu-west-1");
    await form.getByLabel("Role").selectOption("killer");
    await form.getByLabel("At least").selectOption("75");
    await form.getByLabel("Even when this page is closed").check();
    await form.getByRole("button", { name: "Notify me" }).click();
    await until(() => page.evaluate(() => localStorage.getItem("hub.push")), (stored) => stored !== null, "the device's push subscription");
    await textHas(page.locator(".alerts-push"), "EU West (Ireland): Killer bonus of at least +75%");
    // Its only rule comes with the page closed, so nothing says a page must be open.
    expect(await page.locator("details.alerts").getByText(/while a page of this hub is open/).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "push-offer");

    now += 10_000;
    expect(await postReading(hub.url, TOKENS[1] ?? "", now, { killer: 100 })).toBe(201);
    const [sent] = await until(() => service.messages(subscription.clientHash), (messages) => messages.length > 0, "the push at the service", 20_000);
    const message = JSON.parse(sent ?? "{}") as { title: string; body: string; url: string; tag: string };
    expect(message.title).toBe("EU West (Ireland), Steam: Killer bonus +100%");
    expect(new URL(message.url).pathname).toBe("/Windows/eu-west-1");

    await cdp.send("ServiceWorker.deliverPushMessage", { origin: hub.url, registrationId: registration, data: sent ?? "" });
    const shown = await until(
      () => page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag }))),
      (list) => list.length > 0,
      "the notification",
    );
    expect(shown).toEqual([{ title: message.title, body: message.body, tag: message.tag }]);

    // A tap (no DevTools method taps a notification, and a made-up event may not be waited on): the worker's own
    // notificationclick listener is handed the shown notification; it closes it and takes the open board to the region's page.
    const [worker] = context.serviceWorkers();
    if (!worker) throw new Error("no service worker");
    await worker.evaluate(
      "self.registration.getNotifications().then((shown) => { let opened = null; onNotificationClick({ notification: shown[0], waitUntil: (work) => { opened = work; } }); return opened; })",
    );
    await until(() => new URL(page.url()).pathname, (path) => path === "/Windows/eu-west-1", "the region page");
    expect(await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications()).length)).toBe(0);

    // A private page visited through the worker is never kept.
    await page.goto(`${hub.url}/login`);
    await page.goto(`${hub.url}/Windows`);
    await page.locator("article.card").first().waitFor();
    const workerText = await (await fetch(`${hub.url}/sw.js`)).text();
    const files = JSON.parse(/const FILES = (\[.*\]);/.exec(workerText)?.[1] ?? "[]") as string[];
    const kept = await page.evaluate(async () => {
      const entries: string[] = [];
      for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) entries.push(`${name.startsWith("hub-app-") ? "app" : name} ${new URL(request.url).pathname}`);
      return entries;
    });
    // Each public page under its own path (SPEC §16.4), the sign-in page never.
    expect(kept).toContain("app /Windows");
    expect(kept).toContain("app /Windows/eu-west-1");
    expect(kept).toContain("hub-data-2 /api/v1/platforms/Windows/incentives");
    for (const entry of kept) {
      const [cache, path = ""] = entry.split(" ");
      const allowed =
        cache === "app"
          ? ["/Windows", "/Windows/eu-west-1"].includes(path) || files.includes(path)
          : ["/api/v1/meta", "/api/v1/platforms/Windows/incentives", "/api/v1/platforms/EGS/incentives", "/api/v1/platforms/GRDK/incentives"].includes(path);
      expect({ entry, allowed }).toEqual({ entry, allowed: true });
    }
    await context.setOffline(true);
    await page.reload();
    await textHas(page.locator(".offline-note"), "Offline, updated");
    await textHas(page.locator("main"), "EU West (Ireland)");
    await screenshot(page, "push-offline-board");
    await context.setOffline(false);

    // Removing the last rule removes the subscription, on the hub and in the browser.
    await page.goto(`${hub.url}/Windows`);
    const stored = JSON.parse((await page.evaluate(() => localStorage.getItem("hub.push"))) ?? "{}") as { id: string; manageToken: string };
    await page.locator("details.alerts summary").click();
    await page.locator(".alerts-push").getByRole("button", { name: "Remove" }).click();
    await until(() => page.evaluate(() => localStorage.getItem("hub.push")), (value) => value === null, "the device's subscription removed");
    const gone = await fetch(`${hub.url}/api/v1/push/subscriptions/${stored.id}`, { headers: { authorization: `Bearer ${stored.manageToken}` } });
    expect(gone.status).toBe(404);
    expect(guarded.blocked).toEqual([]);
    expect(guarded.errors.filter((e) => !e.includes("net::ERR_INTERNET_DISCONNECTED") && !e.startsWith("Failed to load resource"))).toEqual([]);
  }, 120_000);

  test("a new build's worker replaces the old one at the next load, and the old build's cache goes with it", async () => {
    const dir = scratch();
    const port = await freePort();
    const db = join(dir, "hub.db");
    const buildOf = async (url: string) => /const BUILD = "([^"]+)"/.exec(await (await fetch(`${url}/sw.js`)).text())?.[1] ?? "";
    const appCaches = (page: Guarded["page"]) => page.evaluate(async () => (await caches.keys()).filter((name) => name.startsWith("hub-app-")));
    const old = await startHub({ cmd: [await compiledHub()], cwd: dir, args: ["--db", db], port });
    const guarded = await guardedPage(browser);
    const { page } = guarded;
    let oldBuild = "";
    try {
      oldBuild = await buildOf(old.url);
      await page.goto(`${old.url}/Windows`);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await until(() => appCaches(page), (names) => names.includes(`hub-app-${oldBuild}`), "the first build's cache");
    } finally {
      await old.stop();
    }
    // The same hub from source is another build: its bundle, and so its version, differ.
    const next = await startHub({ cwd: dir, args: ["--db", db], port, timeoutMs: 60_000 });
    try {
      const newBuild = await buildOf(next.url);
      expect(newBuild).not.toBe(oldBuild);
      await page.reload();
      await until(() => appCaches(page), (names) => names.length === 1 && names[0] === `hub-app-${newBuild}`, "only the new build's cache", 30_000);
      await page.reload();
      await page.locator("main").waitFor();
      expect(guarded.blocked).toEqual([]);
    } finally {
      await guarded.context.close();
      await next.stop();
    }
  }, 120_000);

  test("a browser that cannot take push, iOS Safari outside a Home Screen app, and notifications blocked for the site each get a sentence saying what to do", async () => {
    const cases: { init: string; userAgent?: string; sentence: string }[] = [
      { init: "delete window.PushManager;", sentence: "This browser cannot receive notifications while the page is closed" },
      {
        init: "",
        userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
        sentence: "On iPhone and iPad, notifications with the page closed need the board on the Home Screen",
      },
      {
        init: 'Object.defineProperty(Notification, "permission", { get: () => "denied" });',
        sentence: "Notifications are blocked for this site. Allow them in the browser's site settings, then try again.",
      },
    ];
    for (const { init, userAgent, sentence } of cases) {
      const guarded = await guardedPage(browser, userAgent === undefined ? {} : { userAgent });
      if (init !== "") await guarded.context.addInitScript(init);
      await guarded.page.goto(`${hub.url}/Windows`);
      await guarded.page.locator("details.alerts summary").click();
      await textHas(guarded.page.locator(".push-support"), sentence);
      expect(await guarded.page.getByLabel("Even when this page is closed").count()).toBe(0);
      expect(await axeViolations(guarded.page)).toEqual([]);
      expect(guarded.blocked).toEqual([]);
      await guarded.context.close();
    }
  }, 60_000);
});
