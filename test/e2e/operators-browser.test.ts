/**
 * The operator's path (SPEC §21) in Debian's Chromium against the compiled
 * binary: from an empty board to the agent guide, and from creating an agent
 * to seeing its first reading arrive, with the configuration the field's
 * agent reads downloaded as a .env file. Pages are checked with axe-core, for
 * console errors and requests leaving the machine, and photographed at 360
 * and 1280 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textHas, textIs, textOf, type Guarded, until, pageCall as call } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the operator browser tests");

const ADMIN_USER = "root";
const ADMIN_PASSWORD = "correct horse battery";
const scratch = scratchDirs();

async function expectClean(guarded: Guarded, name: string): Promise<void> {
  expect(await axeViolations(guarded.page)).toEqual([]);
  await screenshot(guarded.page, name);
  expect(guarded.blocked).toEqual([]);
  expect(guarded.errors).toEqual([]);
}

/** Photographs the page at a phone's width and a laptop's, with nothing wider than the phone's screen. */
async function bothWidths(guarded: Guarded, name: string): Promise<void> {
  await guarded.page.setViewportSize({ width: 360, height: 800 });
  const { scroll, width } = await guarded.page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(width);
  await expectClean(guarded, `${name}-phone`);
  await guarded.page.setViewportSize({ width: 1280, height: 900 });
  await expectClean(guarded, name);
}

function copyValue(scope: Locator, page: Page, label: string): Locator {
  return scope.locator(".copy-value", { has: page.getByText(label, { exact: true }) }).locator("code");
}

describe.skipIf(!available)("the operator's path in Chromium, from dist/hub", () => {
  let browser: Browser;
  let hub: RunningHub;
  let visitor: Guarded;

  beforeAll(async () => {
    const binary = await compiledHub();
    browser = await launch();
    hub = await startHub({
      cmd: [binary],
      args: ["--db", join(scratch(), "hub.db")],
      env: { ADMIN_BOOTSTRAP_USER: ADMIN_USER, ADMIN_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD, MFA_ENFORCED_ROLES: "", CONTRIBUTE_ENABLED: "true" },
    });
    visitor = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, locale: "en-GB", colorScheme: "dark" });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
  });

  test("the empty board's steps are links: signed out, adding an agent starts with signing in; 'Run an agent' opens the guide", async () => {
    const page = visitor.page;
    await page.goto(hub.url);
    const steps = page.locator(".first-run");
    await textHas(steps, "Nothing to show yet");
    expect(await steps.getByRole("link", { name: "Add an agent: an admin creates one and runs it with its token." }).getAttribute("href")).toBe("/login?next=%2Fadmin%2Fagents");
    await steps.getByRole("link", { name: "Run an agent", exact: true }).click();
    await until(async () => new URL(page.url()).pathname, (p) => p === "/contribute/agents", "guide url");

    const guide = page.locator("article.guide");
    const origin = new URL(page.url()).origin;
    await textIs(guide.locator("h1"), "Run an agent");
    await textHas(guide, "The agent of bloodpoint-incentives (open source, MIT licence) runs against this hub unchanged.");
    expect(await guide.getByRole("link", { name: "Source and documentation of bloodpoint-incentives on GitHub" }).getAttribute("href")).toBe(
      "https://github.com/Buco7854/bloodpoint-incentives",
    );
    const variables = await guide.locator("[data-variable]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-variable")));
    expect(variables).toEqual(["HUB_URL", "AGENT_KEY", "STEAM_USERNAME STEAM_PASSWORD", "STEAM_SHARED_SECRET", "AGENT_MIN_POLL_SECONDS AGENT_MAX_POLL_SECONDS", "AGENT_HEALTH_PORT"]);
    await textHas(guide.locator('[data-variable="HUB_URL"]'), `This hub's address: ${origin}`);
    expect(await textOf(copyValue(guide, page, "Start it"))()).toBe(
      "docker run -d --name bp-agent --restart unless-stopped --env-file ./agent-1.env -v bp-agent-data:/app/data ghcr.io/buco7854/bloodpoint-incentives/agent:latest",
    );
    expect(await textOf(copyValue(guide, page, "With an admin's API key"))()).toBe(`hub simulate --hub ${origin} --api-key-file ./admin.key --agents 3`);
    await textHas(guide, "“Waiting for its first reading…”, then “Reporting”");
    await bothWidths(visitor, "agents-guide");

    // The contribute page's button goes to the same guide, which agentSetupUrl names by default.
    const meta = await call<{ agentSetupUrl: string }>(page, "GET", "/api/v1/meta");
    expect(meta.body.agentSetupUrl).toEndWith("/contribute/agents");
    await page.goto(`${hub.url}/contribute`);
    const button = page.getByRole("link", { name: "Run an agent", exact: true });
    expect(new URL((await button.getAttribute("href")) ?? "", hub.url).pathname).toBe("/contribute/agents");

    // In another language the guide speaks it; the commands and variable names stay as typed.
    await page.goto(`${hub.url}/contribute/agents`);
    await page.getByLabel("Language").selectOption("de");
    await textIs(page.locator("article.guide h1"), "Einen Agenten betreiben");
    await textHas(page.locator('[data-variable="AGENT_KEY"]'), "AGENT_KEY");
    await page.getByLabel("Sprache").selectOption("en");
  }, 60_000);

  test("an admin: the board's step links to the agents page; a new agent's .env downloads; the list turns from waiting to reporting by itself", async () => {
    const admin = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, locale: "en-GB", colorScheme: "dark" });
    try {
      const page = admin.page;
      await page.goto(`${hub.url}/healthz`);
      expect((await call(page, "POST", "/api/v1/auth/login", { username: ADMIN_USER, password: ADMIN_PASSWORD })).status).toBe(200);
      await page.goto(hub.url);
      await page.locator(".first-run").getByRole("link", { name: "Add an agent: an admin creates one and runs it with its token." }).click();
      await until(async () => new URL(page.url()).pathname, (p) => p === "/admin/agents", "agents page");

      const create = page.getByRole("region", { name: "Add an agent" });
      await create.getByLabel("Region", { exact: true }).selectOption("eu-west-1");
      await create.getByRole("button", { name: "Create agent" }).click();
      const token = await until(textOf(copyValue(create, page, "Agent token")), (s) => s !== "", "token shown");
      const [download] = await Promise.all([page.waitForEvent("download"), create.getByTestId("env-download").click()]);
      const row = page.locator("tr[data-agent]").first();
      const id = await row.getAttribute("data-agent");
      expect(download.suggestedFilename()).toBe(`agent-${id}.env`);
      expect(readFileSync(await download.path(), "utf8")).toBe(`HUB_URL=${hub.url}\nAGENT_KEY=${token}\nSTEAM_USERNAME=\nSTEAM_PASSWORD=\nSTEAM_SHARED_SECRET=\n`);
      expect(await create.getByRole("link", { name: "Run an agent", exact: true }).getAttribute("href")).toBe("/contribute/agents");

      await textIs(row.locator(".badge"), "Waiting for its first reading…");
      await bothWidths(admin, "operators-agent-waiting");
      const reading = await fetch(`${hub.url}/api/v1/agent/readings`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 50, killer: 0, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
      });
      expect(reading.status).toBe(201);
      await textIs(row.locator(".badge"), "Reporting");
      await textIs(row.locator("td.num"), "1");
      await screenshot(page, "operators-agent-reporting");
      expect(admin.blocked).toEqual([]);
      expect(admin.errors).toEqual([]);
    } finally {
      await admin.context.close();
    }
  }, 60_000);
});
