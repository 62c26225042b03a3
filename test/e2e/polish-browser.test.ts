/**
 * The player's polish (SPEC §16.3, issue 33) in Chromium against dist/hub,
 * at 360 and 1280 px: no region name or freshness cut off on the board or a
 * region page in any language, the answer line's "change region" opening the
 * picker with "find my closest region" beside it, the honesty banner first
 * until dismissed, an admin's event reaching an open board with no reload,
 * and the field's unknown address answered with the app's 404 page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { LANGUAGES } from "../../src/web/i18n/index.ts";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textIs, textMatches, until, type Guarded } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { signedIn, startHub, type JsonCaller, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the player's polish browser tests");
const scratch = scratchDirs();
const PASSWORD = "polish-admin-password-1";
const tokenOf = (region: string, provider: string) => `polish-e2e-${provider}-${region}`.padEnd(40, "0");
/** Every catalogue region on Steam, one region on the other two stores (so the board shows its three platform tabs). */
const AGENTS = [...BUILT_IN_REGIONS.map((r) => ({ region: r.id, provider: "steam" })), { region: "eu-west-1", provider: "epic" }, { region: "eu-west-1", provider: "grdk" }];
/** A region left without a reading, and one whose reading has gone stale. */
const UNREAD = "ap-east-1";
const STALE = "us-west-1";
/** The viewer's region by time zone: the catalogue's longest name. */
const VIEWER = { zone: "America/Sao_Paulo", region: "sa-east-1" };

async function post(hub: RunningHub, region: string, values: { survivor: number; killer: number; agoMs?: number }): Promise<void> {
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokenOf(region, "steam")}`, "content-type": "application/json" },
    body: JSON.stringify({ region, platform: "Windows", survivor: values.survivor, killer: values.killer, ratio: values.killer > 0 ? 0.5 : 1.5, isReal: true, measuredAt: new Date(Date.now() - (values.agoMs ?? 0)).toISOString() }),
  });
  if (response.status !== 201) throw new Error(`reading refused: ${response.status} ${await response.text()}`);
}

/**
 * Region names and freshness on the page that are cut off: clipped by their
 * own box (an ellipsis included), or reaching past their row, card or the
 * viewport. Each is named by its text.
 */
function cutOff(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const parts = [...document.querySelectorAll<HTMLElement>("article.card h3, article.card .card-foot, .answer-name, .answer-region, .region-title, .tabs")];
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const part of parts) {
      if (part.offsetParent === null) continue;
      const box = part.getBoundingClientRect();
      const frame = (part.closest("article, section") ?? document.documentElement).getBoundingClientRect();
      const clipped = part.scrollWidth > part.clientWidth + 1 || getComputedStyle(part).textOverflow === "ellipsis";
      const outside = box.right > Math.min(frame.right, width) + 0.5 || box.left < Math.max(frame.left, 0) - 0.5;
      // An id is one word: broken over two lines ("eu-" / "west-1") it is cut as well.
      const brokenIds = [...part.querySelectorAll(".region-id")].filter((id) => id.getClientRects().length > 1);
      if (clipped || outside || brokenIds.length > 0) out.push(part.innerText.replace(/\s+/g, " ").trim());
    }
    if (document.documentElement.scrollWidth > width) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    return out;
  });
}

/** Waits for the text a reader sees (innerText: what the stylesheet hides left out) to match. */
const seen = (locator: Locator, expected: RegExp) => until(() => locator.first().innerText(), (text) => expected.test(text.trim()), `what ${locator.toString()} shows`);

/**
 * A page as a viewer whose closest region was measured an hour ago (São
 * Paulo): with LATENCY_PROBES on, "find my closest region" is offered, and
 * nothing is measured again on its own (which would leave the machine).
 */
async function viewerPage(browser: Browser, width: number, locale = "en-US"): Promise<Guarded> {
  const guarded = await guardedPage(browser, { viewport: { width, height: 780 }, timezoneId: VIEWER.zone, locale });
  await guarded.context.addInitScript((region) => localStorage.setItem("hub.closest", JSON.stringify({ region, ms: 40, at: Date.now() - 3_600_000 })), VIEWER.region);
  return guarded;
}

async function expectClean(guarded: Guarded, page: Page, name: string): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
  await screenshot(page, name);
  expect(guarded.blocked).toEqual([]);
  expect(guarded.errors).toEqual([]);
}

describe.skipIf(!available)("the player's polish in Chromium, from dist/hub", () => {
  let browser: Browser;
  let hub: RunningHub;
  let admin: JsonCaller;

  beforeAll(async () => {
    browser = await launch();
    hub = await startHub({
      cmd: [await compiledHub()],
      args: ["--db", join(scratch(), "hub.db"), "--stale-after", "120"],
      env: {
        PROVISION_AGENTS: AGENTS.map((a, i) => `polish-${i}:${tokenOf(a.region, a.provider)}:${a.region}:${a.provider}`).join(","),
        ADMIN_BOOTSTRAP_USER: "root",
        ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
        MFA_ENFORCED_ROLES: "",
        LATENCY_PROBES: "true",
      },
    });
    admin = await signedIn(hub.url, "root", PASSWORD);
    for (const [i, region] of BUILT_IN_REGIONS.map((r) => r.id).entries()) {
      if (region === UNREAD) continue;
      await post(hub, region, { survivor: i % 3 === 1 ? 25 * i : 0, killer: i % 3 === 2 ? 25 * i : 0, agoMs: region === STALE ? 6 * 60_000 : 0 });
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
  });

  test("at 360 px no region name or freshness is cut off on the board or a region page, in any language; nor at 1280 px", async () => {
    for (const { code } of LANGUAGES) {
      const guarded = await viewerPage(browser, 360, code);
      const { page } = guarded;
      await page.goto(`${hub.url}/Windows`);
      await until(() => page.locator("article.card").count(), (n) => n === BUILT_IN_REGIONS.length, `${code}: every region's row`);
      await until(() => page.locator("section.answer").getAttribute("data-region"), (r) => r === VIEWER.region, `${code}: the viewer's region answered`);
      expect({ code, board: await cutOff(page) }).toEqual({ code, board: [] });
      const tall = await page.locator("article.card").evaluateAll((rows) => rows.filter((r) => r.getBoundingClientRect().height > 64).map((r) => `${(r as HTMLElement).innerText.replace(/\s+/g, " ")}: ${r.getBoundingClientRect().height} px`));
      expect({ code, tall }).toEqual({ code, tall: [] });
      if (code === "en") {
        // The row shows the catalogue's short name and the short relative time; the link says the whole name.
        const row = page.locator(`article.card:has(a[href="/Windows/${VIEWER.region}"])`);
        const link = row.locator("h3 a");
        expect(await link.evaluate((a) => [getComputedStyle(a, "::after").content, (a.querySelector(".name-full") as HTMLElement).offsetParent])).toEqual(['"São Paulo"', null]);
        expect(await link.getAttribute("aria-label")).toBe("Details for South America (São Paulo)");
        await seen(row.locator(".card-foot"), /^(now|\d+ sec\. ago)$/);
        await seen(page.locator(`article.card:has(a[href="/Windows/${STALE}"]) .card-foot`), /^read 6 min\. ago$/);
        await expectClean(guarded, page, "polish-board-360");
      }
      if (code === "en" || code === "de" || code === "th") {
        await page.goto(`${hub.url}/Windows/${VIEWER.region}`);
        await page.locator(".now article.card").waitFor();
        await until(() => page.locator(".region-title").innerText(), (text) => text.includes("South America (São Paulo)"), `${code}: the region's title`);
        expect({ code, region: await cutOff(page) }).toEqual({ code, region: [] });
        await textIs(page.locator(".region-title .region-id"), VIEWER.region);
        if (code === "en") await expectClean(guarded, page, "polish-region-360");
      }
      expect(guarded.errors).toEqual([]);
      await guarded.context.close();
    }
    const wide = await viewerPage(browser, 1280);
    await wide.page.goto(`${hub.url}/Windows`);
    await until(() => wide.page.locator("article.card").count(), (n) => n === BUILT_IN_REGIONS.length, "every region's card");
    expect(await cutOff(wide.page)).toEqual([]);
    // Wide cards keep the whole name and the full freshness sentence.
    await seen(wide.page.locator(`article.card:has(a[href="/Windows/${VIEWER.region}"]) h3`), /^South America \(São Paulo\)$/);
    await seen(wide.page.locator(`article.card:has(a[href="/Windows/${VIEWER.region}"]) .card-foot time`), /^Updated (now|\d+ seconds? ago)$/);
    await expectClean(wide, wide.page, "polish-board-1280");
    await wide.page.goto(`${hub.url}/Windows/${VIEWER.region}`);
    await wide.page.locator(".now article.card").waitFor();
    expect(await cutOff(wide.page)).toEqual([]);
    await expectClean(wide, wide.page, "polish-region-1280");
    await wide.context.close();
  }, 240_000);

  test("the answer line's 'Change region' opens the region picker, with 'Find my closest region' beside it", async () => {
    for (const width of [360, 1280]) {
      const guarded = await viewerPage(browser, width);
      const { page } = guarded;
      await page.goto(`${hub.url}/Windows`);
      const answer = page.locator("section.answer");
      await until(() => answer.getAttribute("data-region"), (r) => r === VIEWER.region, "the viewer's region answered");
      const change = answer.getByRole("button", { name: "Change region" });
      expect(await change.getAttribute("aria-expanded")).toBe("false");
      expect(await page.locator("#region-picker select").count()).toBe(0);
      await change.click();
      expect(await change.getAttribute("aria-expanded")).toBe("true");
      const picker = page.locator(`#${(await change.getAttribute("aria-controls")) ?? ""}`);
      // Opened, the choice has the focus, every catalogue region is offered, and the closest-region button is beside it.
      await until(() => page.evaluate(() => document.activeElement?.closest(".field-yours") !== null), (focused) => focused, "the region choice focused");
      expect(await picker.locator("select option").count()).toBe(BUILT_IN_REGIONS.length + 1);
      expect(await picker.getByRole("button", { name: "Find my closest region" }).isVisible()).toBe(true);
      // It sits right under the answer, above the platform tabs and the filters.
      const pickerBox = await picker.boundingBox();
      const answerBox = await answer.boundingBox();
      const filtersBox = await page.locator(".filters-toggle").boundingBox();
      expect((answerBox?.y ?? 0) + (answerBox?.height ?? 0)).toBeLessThanOrEqual(pickerBox?.y ?? 0);
      expect((pickerBox?.y ?? 0) + (pickerBox?.height ?? 0)).toBeLessThanOrEqual(filtersBox?.y ?? 0);
      // The closed picker shows its choice whole (a select cannot wrap): the automatic entry names the region by its short form.
      await textIs(picker.locator("option").first(), "Lowest ping: São Paulo");
      expect(await picker.locator("select").evaluate((select: HTMLSelectElement) => {
        const probe = document.createElement("span");
        probe.style.font = getComputedStyle(select).font;
        probe.style.whiteSpace = "nowrap";
        probe.textContent = select.selectedOptions[0]?.textContent ?? "";
        document.body.append(probe);
        const room = select.clientWidth - 40;
        const fits = probe.getBoundingClientRect().width <= room;
        probe.remove();
        return fits;
      })).toBe(true);
      await expectClean(guarded, page, `polish-picker-${width}`);
      await picker.locator("select").selectOption("eu-central-1");
      await until(() => answer.getAttribute("data-region"), (r) => r === "eu-central-1", "the chosen region answered");
      await textMatches(answer.locator(".answer-name"), /EU Central \(Frankfurt\)/);
      await change.click();
      expect(await picker.isHidden()).toBe(true);
      await guarded.context.close();
    }
  }, 60_000);

  test("the honesty banner is the first thing under the header, before the answer and the first region, until dismissed", async () => {
    for (const width of [360, 1280]) {
      const guarded = await viewerPage(browser, width);
      const { page } = guarded;
      await page.goto(`${hub.url}/Windows`);
      await page.locator("article.card").first().waitFor();
      const banner = page.locator(".banner-honesty");
      // Main's first visible element, above the answer line, which still ends inside a phone's first screen.
      expect(await page.evaluate(() => [...(document.querySelector("main")?.querySelectorAll(":scope *") ?? [])].find((e) => (e as HTMLElement).offsetParent !== null)?.closest(".banner-honesty") !== null)).toBe(true);
      const bannerBox = await banner.boundingBox();
      const answerBox = await page.locator("section.answer").boundingBox();
      const firstCard = await page.locator("article.card").first().boundingBox();
      expect((bannerBox?.y ?? Number.POSITIVE_INFINITY) + (bannerBox?.height ?? 0)).toBeLessThanOrEqual(answerBox?.y ?? 0);
      expect((answerBox?.y ?? Number.POSITIVE_INFINITY) + (answerBox?.height ?? 0)).toBeLessThanOrEqual(firstCard?.y ?? 0);
      if (width === 360) expect((answerBox?.y ?? 0) + (answerBox?.height ?? 0)).toBeLessThanOrEqual(640);
      await expectClean(guarded, page, `polish-honesty-${width}`);
      await banner.getByRole("button", { name: "Got it" }).click();
      await until(() => banner.count(), (n) => n === 0, "the banner gone");
      // Dismissed, it stays gone, in the hub's first paint as well as in the app.
      await page.goto(`${hub.url}/Windows`);
      await page.locator("article.card").first().waitFor();
      expect(await banner.count()).toBe(0);
      await expectClean(guarded, page, `polish-honesty-dismissed-${width}`);
      await guarded.context.close();
    }
  }, 60_000);

  test("an admin scheduling, changing or deleting an event reaches an open board within seconds, with no reload", async () => {
    const guarded = await viewerPage(browser, 360);
    const { page } = guarded;
    await page.goto(`${hub.url}/Windows`);
    await page.locator("article.card").first().waitFor();
    await until(() => page.locator(".connection").innerText(), (text) => /Live/.test(text), "the stream live");
    expect(await page.locator(".banner-next").count()).toBe(0);
    // A mark on this document: a reload would lose it.
    await page.evaluate(() => ((window as unknown as { polishMark: number }).polishMark = 1));
    const now = Date.now();
    const made = await admin<{ event: { id: number } }>("POST", "/api/v1/admin/events", {
      key: "surprise-bloodhunt",
      label: "Surprise Bloodhunt",
      multiplier: 2,
      startsAt: new Date(now + 3 * 86_400_000).toISOString(),
      endsAt: new Date(now + 4 * 86_400_000).toISOString(),
    });
    expect(made.status).toBe(201);
    await textMatches(page.locator(".banner-next"), /^Next event: Surprise Bloodhunt ×2, starts in 3 days$/);
    await expectClean(guarded, page, "polish-next-event-360");
    expect((await admin("PATCH", `/api/v1/admin/events/${made.body.event.id}`, { label: "Moved Bloodhunt", multiplier: 3 })).status).toBe(200);
    await textMatches(page.locator(".banner-next"), /^Next event: Moved Bloodhunt ×3/);
    expect((await admin("DELETE", `/api/v1/admin/events/${made.body.event.id}`)).status).toBe(204);
    await until(() => page.locator(".banner-next").count(), (n) => n === 0, "the deleted event gone from the board");
    expect(await page.evaluate(() => (window as unknown as { polishMark?: number }).polishMark)).toBe(1);
    // The board reads the schedule from its stream, not from a list it would have to ask for again.
    expect(guarded.requested.filter((u) => u.includes("/api/v1/events"))).toEqual([]);
    expect(guarded.errors).toEqual([]);
    await guarded.context.close();
  }, 60_000);

  test("keyboard: with the banner and 'Change region' first, the first region is still within five Tab presses; arrows move among the platforms", async () => {
    const guarded = await viewerPage(browser, 1280);
    const { page } = guarded;
    await page.goto(`${hub.url}/Windows`);
    await page.locator("article.card").first().waitFor();
    expect(await page.locator(".tabs a.tab").count()).toBe(3);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await until(() => page.evaluate(() => document.activeElement?.id ?? ""), (id) => id === "main", "focus in main");
    const stops: string[] = [];
    const firstRegion = await page.locator("article.card h3 a").first().getAttribute("href");
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      stops.push(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() || document.activeElement?.getAttribute("href") || ""));
      if ((await page.evaluate(() => document.activeElement?.getAttribute("href"))) === firstRegion) break;
    }
    expect(stops).toEqual(["Got it", "Change region", "Steam", "Filters", expect.stringMatching(/São Paulo/)]);
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("ArrowRight");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Epic Games Store");
    await page.keyboard.press("End");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Microsoft Store");
    await page.keyboard.press("ArrowRight");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Steam");
    expect(guarded.errors).toEqual([]);
    await guarded.context.close();
  }, 60_000);

  test("the field's address for a platform that does not exist gets the app's 404 page", async () => {
    for (const width of [360, 1280]) {
      const guarded = await guardedPage(browser, { viewport: { width, height: 780 } });
      const { page } = guarded;
      const response = await page.goto(`${hub.url}/platforms/Nope`);
      expect(response?.status()).toBe(404);
      expect(response?.headers()["content-type"]).toBe("text/html; charset=utf-8");
      await textIs(page.locator("h1"), "Page not found");
      await page.getByRole("link", { name: "Go to the board" }).waitFor();
      // Chromium reports the page's own 404 status on the console; that is the point here, not an error of the app.
      guarded.errors.splice(0, guarded.errors.length, ...guarded.errors.filter((e) => !/status of 404/.test(e)));
      await expectClean(guarded, page, `polish-not-found-${width}`);
      await guarded.context.close();
    }
  }, 60_000);
});
