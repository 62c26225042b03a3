/**
 * The web app as people use it: Debian's Chromium against the compiled
 * binary, every request that leaves loopback and every console error a
 * failure, axe-core (WCAG 2.1 AA, no serious or critical violation) on every
 * page, and screenshots in artifacts/screenshots/ for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textIs, textMatches, textOf as text, type Guarded, until, urlMatches } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { runCli, startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the web app browser tests");

const scratch = scratchDirs();




interface Seeded {
  readonly hub: RunningHub;
  /** Agents on Windows eu-west-1; each posts once, since rule 5 spaces one agent's readings by minutes. */
  readonly tokens: readonly string[];
}

/** A hub with two days of simulated history and four real agents (for live changes) on Windows eu-west-1. */
async function seededHub(binary: string, env: Record<string, string> = {}): Promise<Seeded> {
  const db = join(scratch(), "hub.db");
  const history = await runCli(["simulate", "--db", db, "--backfill-days", "2"], { cmd: [binary] });
  if (history.exitCode !== 0) throw new Error(history.stderr);
  const tokens: string[] = [];
  for (let i = 0; i < 4; i++) {
    const created = await runCli(["agent", "create", "--db", db, "--region", "eu-west-1", "--provider", "steam", "--label", `browser test ${i}`], { cmd: [binary] });
    const token = /token \(shown only now\): (\S+)/.exec(created.stdout)?.[1];
    if (!token) throw new Error(`no token in: ${created.stdout}`);
    tokens.push(token);
  }
  const hub = await startHub({ cmd: [binary], args: ["--db", db], env });
  return { hub, tokens };
}

async function postReading(hub: RunningHub, token: string, survivor: number, killer: number): Promise<number> {
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor, killer, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
  });
  return response.status;
}

async function expectClean(guarded: Guarded, page: Page, name: string): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, name);
  expect(guarded.blocked).toEqual([]);
  expect(guarded.errors).toEqual([]);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(width);
}

describe.skipIf(!available)("the web app in Chromium, from dist/hub", () => {
  let browser: Browser;
  let binary: string;
  let seeded: Seeded;

  beforeAll(async () => {
    binary = await compiledHub();
    browser = await launch();
    seeded = await seededHub(binary, { PAGE_SIZE: "6", CONTRIBUTE_ENABLED: "true" });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await seeded?.hub.stop();
  });

  test("the page, its assets and client routes: hashed files immutable and compressed, the page no-cache under a strict CSP", async () => {
    const page = await fetch(`${seeded.hub.url}/`, { headers: { "accept-encoding": "br, gzip" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // The site meta is preloaded by the page itself, so it is on its way while the code loads (SPEC §17.1).
    expect(html).toContain('<link rel="preload" href="/api/v1/meta" as="fetch" crossorigin="anonymous" />');
    // The icons and the manifest keep fixed names (browsers ask for them by name), cached for a day; test/e2e/share.test.ts checks them.
    // The head's files only: the body holds the board's first paint, whose links are pages.
    const head = html.slice(0, html.indexOf("<body"));
    const assets = [...head.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1] ?? "").filter((path) => !path.startsWith("/api/") && !path.startsWith("/icons/") && path !== "/manifest.webmanifest");
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${seeded.hub.url}${asset}`, { headers: { "accept-encoding": "br, gzip" } });
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("content-encoding")).toBe("br");
      const gzip = await fetch(`${seeded.hub.url}${asset}`, { headers: { "accept-encoding": "gzip" } });
      expect(gzip.headers.get("content-encoding")).toBe("gzip");
      const etag = response.headers.get("etag") ?? "";
      expect((await fetch(`${seeded.hub.url}${asset}`, { headers: { "if-none-match": etag } })).status).toBe(304);
    }
    for (const route of ["/Windows", "/EGS/eu-west-1", "/contribute", "/setup", "/login", "/account", "/admin/agents"]) {
      const response = await fetch(`${seeded.hub.url}${route}`);
      expect({ route, status: response.status, type: response.headers.get("content-type") }).toEqual({ route, status: 200, type: "text/html; charset=utf-8" });
    }
    const api = await fetch(`${seeded.hub.url}/api/v1/nothing`);
    expect({ status: api.status, type: api.headers.get("content-type") }).toEqual({ status: 404, type: "application/problem+json" });
    expect((await fetch(`${seeded.hub.url}/healthz`)).headers.get("content-type")).toStartWith("application/json");
  });

  test("the board: cards, live changes through the stream, filters and pages in the URL, on a phone and a wide screen", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Dublin", locale: "en-GB" });
    const { page } = guarded;
    await page.goto(`${seeded.hub.url}/Windows`);
    await page.locator(".connection-live").waitFor();
    const cards = page.locator("article.card");
    // A page of six, and the viewer's region (from the Dublin time zone) pinned above them.
    await until(() => cards.count(), (n) => n === 7, "cards on page 1");
    const yours = page.locator("article.card-yours");
    await textIs(yours.locator("h3"), "EU West (Ireland)");

    expect(await postReading(seeded.hub, seeded.tokens[0] ?? "", 0, 125)).toBe(201);
    await textIs(yours.locator(".headline-value"), "+125%");
    await textIs(yours.locator(".headline-multiplier"), "×2.25 bloodpoints");
    await textIs(yours.locator(".headline-role"), "Killer bonus");
    await expectClean(guarded, page, "board-wide");

    await page.getByRole("button", { name: "Filters" }).click();
    await page.getByLabel("Show").selectOption("killer");
    await urlMatches(page, /show=killer/);
    await page.getByLabel("Search regions").fill("ireland");
    await urlMatches(page, /q=ireland/);
    await until(() => cards.count(), (n) => n === 1, "cards matching ireland");
    await page.getByLabel("Search regions").fill("");
    await page.getByLabel("Show").selectOption("all");
    await page.getByRole("link", { name: "Next" }).click();
    await urlMatches(page, /page=2/);
    await page.goBack();
    await urlMatches(page, /page=2/, false);

    await page.setViewportSize({ width: 360, height: 800 });
    await noHorizontalScroll(page);
    await expectClean(guarded, page, "board-phone");
    await guarded.context.close();
  }, 60_000);

  test("browser alerts: a notification when a chosen bonus is reached, once while it holds", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1024, height: 900 }, permissions: ["notifications"] });
    const { page } = guarded;
    // Record what the page asks the system to show (headless Chromium shows nothing itself).
    await page.addInitScript(() => {
      const shown: { title: string; body: string }[] = [];
      (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
      class Recorded {
        static permission: NotificationPermission = "granted";
        static requestPermission = async (): Promise<NotificationPermission> => "granted";
        onclick: (() => void) | null = null;
        constructor(title: string, options?: NotificationOptions) {
          shown.push({ title, body: options?.body ?? "" });
        }
      }
      (window as unknown as { Notification: unknown }).Notification = Recorded;
    });
    const shown = () => page.evaluate(() => (window as unknown as { shownNotifications: { title: string; body: string }[] }).shownNotifications);
    await page.goto(`${seeded.hub.url}/Windows`);
    await page.locator(".connection-live").waitFor();
    await page.locator(".alerts summary").click();
    await page.locator(".alerts-form select").nth(0).selectOption("eu-west-1");
    await page.locator(".alerts-form select").nth(1).selectOption("killer");
    await page.locator(".alerts-form select").nth(2).selectOption("100");
    await page.getByRole("button", { name: "Notify me" }).click();
    await textMatches(page.locator(".alerts-list li"), /EU West \(Ireland\): Killer bonus of at least \+100%/);
    expect(await postReading(seeded.hub, seeded.tokens[1] ?? "", 0, 0)).toBe(201);
    await Bun.sleep(300);
    expect(await shown()).toEqual([]);
    expect(await postReading(seeded.hub, seeded.tokens[2] ?? "", 0, 100)).toBe(201);
    const first = await until(shown, (list) => list.length === 1, "one notification");
    expect(first[0]?.title).toBe("EU West (Ireland): Killer bonus +100%");
    expect(await postReading(seeded.hub, seeded.tokens[3] ?? "", 0, 150)).toBe(201);
    await Bun.sleep(500);
    expect((await shown()).length).toBe(1);
    await page.reload();
    await page.locator(".alerts summary").click();
    await textMatches(page.locator(".alerts-list li"), /EU West \(Ireland\)/);
    await expectClean(guarded, page, "board-alerts");
    await guarded.context.close();
  }, 60_000);

  test("light scheme and reduced motion keep AA contrast; the keyboard reaches a region and opens it", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1024, height: 800 }, colorScheme: "light", reducedMotion: "reduce" });
    const { page } = guarded;
    await page.goto(`${seeded.hub.url}/Windows`);
    await page.locator("article.card").first().waitFor();
    await expectClean(guarded, page, "board-light");
    await page.locator("article.card h3 a").first().focus();
    await page.keyboard.press("Enter");
    await urlMatches(page, /\/Windows\/[a-z]{2}-[a-z]+-\d+$/);
    await guarded.context.close();
  }, 60_000);

  test("the region page: current values, history that zooms, forecast with its best hours, readings and coverage", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Dublin" });
    const { page } = guarded;
    await page.goto(`${seeded.hub.url}/Windows/eu-west-1`);
    await page.locator("#history-title").waitFor();
    await until(() => page.locator(".chart canvas").count(), (n) => n >= 2, "charts drawn");
    await textMatches(page.locator(".best li"), /Best hour for a Survivor bonus|No Survivor bonus expected/);
    await textIs(page.locator("#recent-caption"), "Latest readings");
    await page.locator("#coverage-title").waitFor();
    await page.getByRole("button", { name: "Week" }).click();
    await until(() => page.getByRole("button", { name: "Week" }).getAttribute("aria-pressed"), (v) => v === "true", "Week pressed");
    await page.locator(".chart canvas").first().waitFor();
    // The chart is drawn anew when the week's data arrives; take the box of the one that stays.
    await page.waitForLoadState("networkidle");
    const box = await until(() => page.locator(".chart .u-over").first().boundingBox(), (b) => b !== null, "history chart");
    if (!box) throw new Error("no chart");
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.getByRole("button", { name: "Reset zoom" }).waitFor();
    // Panning asks the hub for the window half a width earlier.
    const historyTos = () => guarded.requested.filter((u) => u.includes("/history?")).map((u) => Number(new URL(u).searchParams.get("to")));
    const zoomedTo = historyTos().at(-1) ?? 0;
    await page.getByRole("button", { name: "← Earlier" }).click();
    await until(historyTos, (tos) => (tos.at(-1) ?? zoomedTo) < zoomedTo, "an earlier history window");
    await expectClean(guarded, page, "region-wide");
    await page.setViewportSize({ width: 360, height: 800 });
    await noHorizontalScroll(page);
    await expectClean(guarded, page, "region-phone");
    await guarded.context.close();
  }, 60_000);

  test("languages: chosen from the browser, switchable, remembered; only the chosen catalogue is fetched", async () => {
    const guarded = await guardedPage(browser, { locale: "de-DE", viewport: { width: 1024, height: 800 } });
    const { page } = guarded;
    await page.goto(`${seeded.hub.url}/Windows`);
    await page.locator("article.card").first().waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    expect(await text(page.locator(".site-head .brand"))()).not.toBe("Bloodpoint incentives");
    const scripts = guarded.requested.filter((url) => url.endsWith(".js"));
    await page.locator(".field-language select").selectOption("ja");
    await page.waitForFunction(() => document.documentElement.lang === "ja");
    expect(guarded.requested.filter((url) => url.endsWith(".js")).length).toBe(scripts.length + 1);
    await expectClean(guarded, page, "board-ja");
    await page.reload();
    await page.locator("article.card").first().waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("ja");
    await guarded.context.close();
  }, 60_000);

  test("the contribute page lists coverage and where to learn to run an agent", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1024, height: 800 } });
    const { page } = guarded;
    await page.goto(`${seeded.hub.url}/contribute`);
    await page.locator("table").first().waitFor();
    expect(await page.getByRole("link", { name: "Run an agent", exact: true }).getAttribute("href")).toMatch(/\/contribute\/agents$/);
    await expectClean(guarded, page, "contribute");
    await guarded.context.close();
  }, 60_000);

  test("a stale reading keeps its numbers but loses its colour, under the degraded banner", async () => {
    const db = join(scratch(), "hub.db");
    const created = await runCli(["agent", "create", "--db", db, "--region", "eu-west-1", "--provider", "steam"], { cmd: [binary] });
    const token = /token \(shown only now\): (\S+)/.exec(created.stdout)?.[1] ?? "";
    const stale = await startHub({ cmd: [binary], args: ["--db", db, "--stale-after", "60"] });
    try {
      const measuredAt = new Date(Date.now() - 5 * 60_000).toISOString();
      const posted = await fetch(`${stale.url}/api/v1/agent/readings`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 0, killer: 100, ratio: 2, isReal: true, measuredAt }),
      });
      expect(posted.status).toBe(201);
      const guarded = await guardedPage(browser, { viewport: { width: 360, height: 800 } });
      const { page } = guarded;
      await page.goto(`${stale.url}/Windows`);
      const card = page.locator("article.card-stale");
      await card.waitFor();
      await textIs(card.locator(".badge-stale"), "Stale");
      await textIs(card.locator(".headline-value"), "+100%");
      await textMatches(page.locator(".banner-degraded"), /not reported fresh data/);
      await expectClean(guarded, page, "board-stale");
      await guarded.context.close();
    } finally {
      await stale.stop();
    }
  }, 60_000);

  test("a fresh hub's board explains the first steps instead of an empty grid", async () => {
    const dir = scratch();
    const fresh = await startHub({ cmd: [binary], args: ["--db", join(dir, "hub.db")] });
    try {
      const guarded = await guardedPage(browser, { viewport: { width: 1024, height: 800 } });
      const { page } = guarded;
      await page.goto(`${fresh.url}/`);
      await page.locator(".first-run").waitFor();
      expect(await page.getByRole("link", { name: "Create the admin account" }).getAttribute("href")).toBe("/setup");
      await expectClean(guarded, page, "first-run");
      await guarded.context.close();
    } finally {
      await fresh.stop();
    }
  }, 60_000);
});
