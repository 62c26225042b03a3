/**
 * What the board's service worker keeps (SPEC §16.4), tried as the attacker's
 * review tried it: Debian's Chromium against the compiled binary, the page
 * controlled by the hub's real worker, offline reloads served from its caches.
 * Only the build's files, each platform's payload, /api/v1/meta and the app's
 * public pages (each under its own path, never from a query) may be kept;
 * signing out and a read answered 401 drop every copy; with sign-in required
 * nothing of the API is kept at all.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { chromiumAvailable, guardedPage, launch, pageCall, textHas, until } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { postReading, startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the service worker's privacy tests");
const scratch = scratchDirs();
const ADMIN = "root";
const PASSWORD = "correct horse battery";
const TOKEN = "offline-privacy-agent-token-0123456789";
const MOVED = "HUB MOVED - visit evil.example";

let browser: Browser;
let open: RunningHub;
let gated: RunningHub;

async function hubWith(requireAuth: boolean): Promise<RunningHub> {
  const hub = await startHub({
    cmd: [await compiledHub()],
    args: ["--db", join(scratch(), "hub.db")],
    env: {
      ADMIN_BOOTSTRAP_USER: ADMIN,
      ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
      MFA_ENFORCED_ROLES: "",
      REQUIRE_AUTH: String(requireAuth),
      PROVISION_AGENTS: `p0:${TOKEN}:eu-west-1:steam`,
    },
  });
  expect(await postReading(hub.url, TOKEN, Date.now() - 60_000, { killer: 75 })).toBe(201);
  return hub;
}

beforeAll(async () => {
  if (!available) return;
  browser = await launch();
  [open, gated] = await Promise.all([hubWith(false), hubWith(true)]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await open?.stop();
  await gated?.stop();
});

/** Opens a page and loads it again once the hub's worker controls it, so this load went through the worker. */
async function openControlled(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await until(() => page.evaluate(() => navigator.serviceWorker.controller !== null), (yes) => yes, "a page the worker controls");
  await page.reload();
}

/** Every entry of the hub's caches, as "cache path?query" (the app's cache named "app"). */
async function kept(page: Page): Promise<string[]> {
  return await page.evaluate(async () => {
    const entries: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) {
        const url = new URL(request.url);
        entries.push(`${name.startsWith("hub-app-") ? "app" : name} ${url.pathname}${url.search}`);
      }
    }
    return entries.sort();
  });
}

/** The build's files, as the worker is told them. */
async function buildFiles(hub: RunningHub): Promise<string[]> {
  const text = await (await fetch(`${hub.url}/sw.js`)).text();
  return JSON.parse(/const FILES = (\[.*\]);/.exec(text)?.[1] ?? "[]") as string[];
}

/** The kept entries other than the build's files. */
async function keptCopies(page: Page, hub: RunningHub): Promise<string[]> {
  const files = new Set((await buildFiles(hub)).map((file) => `app ${file}`));
  return (await kept(page)).filter((entry) => !files.has(entry));
}

/** The text a page shows when opened offline; "" when nothing was kept for it (the browser shows its own error page). */
async function offlineText(context: BrowserContext, page: Page, url: string, settleMs = 0): Promise<string> {
  await context.setOffline(true);
  try {
    const shown = await page.goto(url).then(
      () => true,
      (error: unknown) => {
        if (/net::ERR_(INTERNET_DISCONNECTED|FAILED)/.test(String(error))) return false;
        throw error;
      },
    );
    if (!shown) return "";
    await Bun.sleep(settleMs);
    return await page.evaluate(() => document.body.innerText);
  } finally {
    await context.setOffline(false);
  }
}

async function signIn(page: Page): Promise<void> {
  expect(await pageCall(page, "POST", "/api/v1/auth/login", { username: ADMIN, password: PASSWORD })).toEqual({ status: 200, body: expect.objectContaining({ next: "ok" }) });
}

describe.skipIf(!available)("what the service worker keeps, through Chromium against dist/hub", () => {
  test("an admin's /metrics, opened then signed out of, never becomes the offline board", async () => {
    const { context, page } = await guardedPage(browser);
    try {
      await openControlled(page, `${open.url}/`);
      await page.locator("article.card").first().waitFor();
      await signIn(page);
      await page.goto(`${open.url}/metrics`);
      expect(await page.evaluate(() => document.body.innerText)).toContain("# HELP hub_http_requests_total");
      expect(await keptCopies(page, open)).not.toContain("app /metrics");
      // Signed out as the review did, without the app's sign-out page (which loads the board again).
      expect((await pageCall(page, "POST", "/api/v1/auth/logout")).status).toBe(204);
      const text = await offlineText(context, page, `${open.url}/`);
      expect(text).not.toContain("# HELP");
      expect(text).not.toContain("hub_http_requests_total");
    } finally {
      await context.close();
    }
  }, 60_000);

  test("a badge opened from another site's link never becomes the offline board; a query is never kept", async () => {
    const { context, page } = await guardedPage(browser);
    try {
      await openControlled(page, `${open.url}/`);
      await page.locator("article.card").first().waitFor();
      await page.goto(`${open.url}/badge/Windows/eu-west-1.svg?label=${encodeURIComponent(MOVED)}`, { referer: "https://evil.example/" });
      expect(await page.content()).toContain(MOVED);
      await page.goto(`${open.url}/?q=${encodeURIComponent(MOVED)}`, { referer: "https://evil.example/" });
      await page.goto(`${open.url}/Windows/eu-west-1`);
      const copies = await until(() => keptCopies(page, open), (entries) => entries.includes("app /Windows/eu-west-1"), "the region page's copy");
      expect(copies.filter((entry) => entry.startsWith("app "))).toEqual(["app /", "app /Windows/eu-west-1"]);
      expect(copies.filter((entry) => !entry.startsWith("app ")).every((entry) => /^hub-data\S* \/api\/v1\/(meta|platforms\/\w+\/incentives)$/.test(entry))).toBe(true);
      const text = await offlineText(context, page, `${open.url}/`);
      expect(text).not.toContain(MOVED);
      await context.setOffline(true);
      await page.goto(`${open.url}/`);
      // The board that was kept, with its own payload.
      await textHas(page.locator(".offline-note"), "Offline, updated");
      expect(await page.evaluate(() => document.body.innerText)).not.toContain(MOVED);
      await context.setOffline(false);
    } finally {
      await context.close();
    }
  }, 60_000);

  test("signing out, or a read answered 401, drops every copy of the hub's answers", async () => {
    const { context, page } = await guardedPage(browser);
    try {
      await openControlled(page, `${open.url}/Windows`);
      await page.locator("article.card").first().waitFor();
      await until(() => keptCopies(page, open), (copies) => copies.includes("app /Windows") && copies.some((entry) => entry.endsWith("/api/v1/platforms/Windows/incentives")), "the board's copies");
      await signIn(page);
      expect((await pageCall(page, "POST", "/api/v1/auth/logout")).status).toBe(204);
      await until(() => keptCopies(page, open), (copies) => copies.length === 0, "no copies after signing out");
      expect(await offlineText(context, page, `${open.url}/Windows`)).not.toContain("EU West (Ireland)");

      // Signed out elsewhere: the admin page's next read is answered 401, and the app tells the worker.
      await page.goto(`${open.url}/Windows`);
      await page.locator("article.card").first().waitFor();
      await signIn(page);
      await page.goto(`${open.url}/admin`);
      await page.getByRole("navigation", { name: "Administration sections" }).waitFor();
      await until(() => keptCopies(page, open), (copies) => copies.includes("app /Windows"), "the board's copies");
      const cookie = (await context.cookies(open.url)).map((c) => `${c.name}=${c.value}`).join("; ");
      const session = (await (await fetch(`${open.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      expect((await fetch(`${open.url}/api/v1/auth/logout`, { method: "POST", headers: { cookie, "x-csrf-token": session.csrfToken } })).status).toBe(204);
      await page.getByRole("navigation", { name: "Administration sections" }).getByRole("link", { name: "Users", exact: true }).click();
      // The sign-in page it then goes to reads the public settings again, which may be kept anew; the board's copies are gone.
      await until(() => keptCopies(page, open), (copies) => copies.every((entry) => entry.endsWith(" /api/v1/meta")), "no copies after a read answered 401");
    } finally {
      await context.close();
    }
  }, 60_000);

  test("with sign-in required, no API answer is kept, and after signing out the offline board shows no payload", async () => {
    const { context, page } = await guardedPage(browser);
    try {
      await openControlled(page, `${gated.url}/login`);
      await signIn(page);
      await page.goto(`${gated.url}/Windows`);
      await page.locator("article.card").first().waitFor();
      await textHas(page.locator("main"), "EU West (Ireland)");
      expect((await kept(page)).filter((entry) => entry.includes("/api/"))).toEqual([]);
      expect((await pageCall(page, "POST", "/api/v1/auth/logout")).status).toBe(204);
      const text = await offlineText(context, page, `${gated.url}/Windows`, 2_000);
      expect(text).not.toContain("Offline, updated");
      expect(text).not.toContain("+75");
      await page.goto(`${gated.url}/login`);
      expect((await kept(page)).filter((entry) => entry.includes("/api/"))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
