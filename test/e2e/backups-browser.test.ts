/**
 * The console's Backups page (SPEC §25) as an admin uses it: Debian's
 * Chromium against dist/hub with a folder target. "Back up now" makes a
 * backup that the list shows with time and size and a link that downloads
 * it; a failing target shows the last error. Checked with axe-core, for
 * console errors and requests leaving the machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, pageCall, screenshot, until } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the backups browser test");
const ADMIN = { username: "root", password: "correct horse battery" };
const scratch = scratchDirs();

describe.skipIf(!available)("the Backups page in Chromium, from dist/hub", () => {
  let browser: Browser;
  let hub: RunningHub;
  let target = "";

  beforeAll(async () => {
    const binary = await compiledHub();
    browser = await launch();
    const dir = scratch();
    target = join(dir, "backups");
    mkdirSync(target);
    hub = await startHub({
      cmd: [binary],
      args: ["--db", join(dir, "hub.db")],
      env: { ADMIN_BOOTSTRAP_USER: ADMIN.username, ADMIN_BOOTSTRAP_PASSWORD: ADMIN.password, MFA_ENFORCED_ROLES: "", BACKUP_TARGET: target, BACKUP_SCHEDULE: "daily 03:30", TZ: "UTC" },
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
  });

  test("Back up now, listed with time and size, downloaded; a target that refuses writes shows the last error", async () => {
    const guarded = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, locale: "en-GB", acceptDownloads: true });
    const { page } = guarded;
    await page.goto(`${hub.url}/healthz`);
    expect((await pageCall(page, "POST", "/api/v1/auth/login", ADMIN)).status).toBe(200);
    await page.goto(`${hub.url}/admin/backups`);
    await page.getByRole("heading", { name: "Backups", level: 2 }).waitFor();
    await page.getByText("No backups at the target yet.").waitFor();
    expect(await page.getByRole("link", { name: "Backups", exact: true }).getAttribute("aria-current")).toBe("page");
    expect(await page.getByText("daily 03:30").count()).toBe(1);

    await page.getByRole("button", { name: "Back up now" }).click();
    const row = page.locator("tr[data-backup]");
    await row.first().waitFor({ timeout: 30_000 });
    const name = (await row.first().getAttribute("data-backup")) ?? "";
    expect(name).toMatch(/^hub-\d{8}T\d{9}Z-\d+\.db\.zst$/);
    expect(readdirSync(target)).toEqual([name]);
    const size = statSync(join(target, name)).size;
    expect(await row.first().locator("td").first().textContent()).toMatch(/\d+(\.\d)? kB|\d+ byte/);
    await until(async () => await page.getByRole("button", { name: "Back up now" }).isEnabled(), (enabled) => enabled, "button enabled again");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: `Download ${name}` }).click()]);
    expect(download.suggestedFilename()).toBe(name);
    const saved = join(scratch(), name);
    await download.saveAs(saved);
    expect(statSync(saved).size).toBe(size);

    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "admin-backups");
    // On a phone the table stacks and nothing scrolls sideways.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(await page.locator("tr[data-backup] td[data-label]").count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, "admin-backups-phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The target refuses writes (a file stands where its folder was, which even root cannot write into): the run fails, the page says why.
    renameSync(target, `${target}.aside`);
    writeFileSync(target, "not a folder");
    try {
      await page.getByRole("button", { name: "Back up now" }).click();
      const error = page.getByTestId("backup-error");
      await error.waitFor({ timeout: 30_000 });
      expect(await error.textContent()).toMatch(/The last run failed: writing hub-.* failed \((ENOTDIR|EEXIST).*Older backups were kept\./);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, "admin-backups-error");
    } finally {
      renameSync(`${target}.aside`, `${target}.kept`);
    }
    expect(readdirSync(`${target}.kept`)).toEqual([name]);
    expect(guarded.blocked).toEqual([]);
    expect(guarded.errors.filter((e) => !e.startsWith("Failed to load resource: the server responded with a status of 4"))).toEqual([]);
    await guarded.context.close();
  }, 120_000);
});
