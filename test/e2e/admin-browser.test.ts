/**
 * The administration pages as an admin uses them: Debian's Chromium against
 * the compiled binary, signed in as the admin the environment bootstraps (no
 * second factor: MFA_ENFORCED_ROLES is empty). Each section does its work
 * through the page, and is checked with axe-core (no serious or critical
 * violation), for console errors and requests leaving the machine, and
 * photographed into artifacts/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { axeViolations, chromiumAvailable, expectBeside, guardedPage, launch, screenshot, textHas, textIs, textOf, type Guarded, until, pageCall as call } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the admin browser tests");

const ADMIN_USER = "root";
const ADMIN_PASSWORD = "correct horse battery";
const VIEWER_PASSWORD = "viewer password 1";
const scratch = scratchDirs();

/** Signs in through the API from inside the page, so the browser holds the session cookie. */
async function signIn(page: Page, hub: RunningHub, username: string, password: string): Promise<void> {
  await page.goto(`${hub.url}/healthz`);
  const reply = await call<{ next: string }>(page, "POST", "/api/v1/auth/login", { username, password });
  expect(reply).toEqual({ status: 200, body: expect.objectContaining({ next: "ok" }) });
}

/** The value shown by a CopyValue named `label` (its name is visually hidden text beside the value). */
function copyValue(scope: Locator, page: Page, label: string): Locator {
  return scope.locator(".copy-value", { has: page.getByText(label, { exact: true }) }).locator("code");
}

async function postReading(hub: RunningHub, token: string, region: string): Promise<number> {
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ region, platform: "Windows", survivor: 50, killer: 0, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
  });
  return response.status;
}

async function assignmentStatus(hub: RunningHub, token: string): Promise<number> {
  return (await fetch(`${hub.url}/api/v1/agent/assignment`, { headers: { authorization: `Bearer ${token}` } })).status;
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

/** Opens a section through the section navigation, as a person would. */
async function openSection(page: Page, name: string, path: string): Promise<void> {
  await page.getByRole("navigation", { name: "Administration sections" }).getByRole("link", { name, exact: true }).click();
  await until(async () => new URL(page.url()).pathname, (p) => p === path, "section url");
}

describe.skipIf(!available)("administration in Chromium, from dist/hub", () => {
  let browser: Browser;
  let hub: RunningHub;
  let admin: Guarded;
  let page: Page;
  let refusals: string[];
  let agentToken = "";

  /** The refusals seen since the last call, emptied. */
  const takeRefusals = () => refusals.splice(0);

  /**
   * Two stand-ins for GRIP proxy nodes on loopback: each takes publishes; the
   * first reports 7 connections on its metrics, the second refuses them.
   */
  const nodes = [200, 500].map((status) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname === "/metrics" ? new Response("# TYPE connection_connected gauge\nconnection_connected 7\n", { status }) : new Response("Published\n"),
    }),
  );

  beforeAll(async () => {
    const binary = await compiledHub();
    browser = await launch();
    const grip = {
      GRIP_URL: nodes.map((node) => `http://127.0.0.1:${node.port}`).join(","),
      GRIP_KEY: "admin-browser-grip-key-0123456789",
      GRIP_STATS_URL: nodes.map((node) => `http://127.0.0.1:${node.port}/metrics`).join(","),
    };
    hub = await startHub({
      cmd: [binary],
      args: ["--db", join(scratch(), "hub.db")],
      // REQUIRE_AUTH is set explicitly, so the operator has locked it; MFA_ENFORCED_ROLES empty lets the admin in on a password.
      env: { ADMIN_BOOTSTRAP_USER: ADMIN_USER, ADMIN_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD, MFA_ENFORCED_ROLES: "", REQUIRE_AUTH: "false", ...grip },
    });
    // Dark is the app's own scheme; the events section is checked in the light one as well.
    admin = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Berlin", locale: "en-GB", colorScheme: "dark" });
    page = admin.page;
    refusals = recordRefusals(page);
    await signIn(page, hub, ADMIN_USER, ADMIN_PASSWORD);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    for (const node of nodes) node.stop(true);
  });

  test("agents: create shows the token once with its configuration; readings counted; edit refused at the field; moved with orphan; token rotated", async () => {
    await page.goto(`${hub.url}/admin`);
    await page.getByText("No agents yet.").waitFor();
    expect(await page.getByRole("link", { name: "Agents", exact: true }).getAttribute("aria-current")).toBe("page");

    const create = page.getByRole("region", { name: "Add an agent" });
    await create.getByLabel("Region", { exact: true }).selectOption("eu-west-1");
    await create.getByLabel("Provider", { exact: true }).selectOption("steam");
    await create.getByLabel("Label", { exact: true }).fill("browser agent");
    await create.getByRole("button", { name: "Create agent" }).click();
    agentToken = await textOf(copyValue(create, page, "Agent token"))();
    expect(agentToken).toMatch(/^[A-Za-z0-9_-]{86}$/);
    const config = await textOf(copyValue(create, page, "Agent configuration"))();
    expect(config.split("\n")).toEqual([`HUB_URL=${hub.url}`, `AGENT_KEY=${agentToken}`, "STEAM_USERNAME=", "STEAM_PASSWORD=", "STEAM_SHARED_SECRET="]);
    expect(await textOf(copyValue(create, page, "Check the token"))()).toBe(`curl -H "Authorization: Bearer ${agentToken}" ${hub.url}/api/v1/agent/assignment`);
    expect(await assignmentStatus(hub, agentToken)).toBe(200);
    await create.getByRole("button", { name: "I have saved the token" }).click();
    expect(await page.locator("[data-testid=token-once]").count()).toBe(0);

    // The new agent waits for its first reading; the list turns it to reporting on its own when the reading lands.
    const row = page.locator("tr[data-agent]").first();
    await textIs(row.locator(".badge"), "Waiting for its first reading…");
    expect(await postReading(hub, agentToken, "eu-west-1")).toBe(201);
    await textIs(row.locator(".badge"), "Reporting");
    await textIs(row.locator("td.num"), "1");
    await textHas(row, "Steam");
    await textHas(row, "EU West (Ireland)");
    await expectClean(admin, "admin-agents");

    await row.getByRole("button", { name: /^Edit / }).click();
    const editor = page.getByRole("region", { name: /^Edit #\d+ browser agent$/ });
    const pollMin = editor.getByLabel("Poll minimum", { exact: true });
    await pollMin.fill("%refreshTime% * ^");
    await editor.getByRole("button", { name: "Save", exact: true }).click();
    await textIs(editor.locator(".form-field").filter({ has: page.getByLabel("Poll minimum", { exact: true }) }).locator(".form-error"), 'unexpected character "^" at position 17');
    expect(await pollMin.getAttribute("aria-invalid")).toBe("true");

    await pollMin.fill("%refreshTime% * 1.5");
    await editor.getByLabel("Region", { exact: true }).selectOption("eu-central-1");
    await editor.getByRole("group", { name: /^The agent moves/ }).getByLabel("Detach (orphan)").check();
    await editor.getByRole("button", { name: "Save", exact: true }).click();
    await textIs(editor.locator(".notice"), "Saved.");
    await textHas(row, "EU Central (Frankfurt)");
    await textIs(row.locator("td.num"), "0");
    // Moving with orphan forgets the agent's pace, so it reports from its new place at once.
    expect(await postReading(hub, agentToken, "eu-central-1")).toBe(201);

    // A message sits by the control that caused it: the form's under Save, an action's under its buttons.
    const saved = editor.locator(".notice");
    expect(await saved.evaluate((el) => el.previousElementSibling?.tagName)).toBe("FORM");
    await editor.getByRole("button", { name: "Disable agent" }).click();
    await textIs(editor.locator(".notice"), "The agent is disabled.");
    expect(await editor.locator(".notice").evaluate((el) => el.previousElementSibling?.textContent)).toContain("Enable agent");
    await editor.getByRole("button", { name: "Enable agent" }).click();
    await textIs(editor.locator(".notice"), "The agent is enabled.");
    // Its event reports can be ignored and accepted again (SPEC §16.3), the message under that button.
    await editor.getByRole("button", { name: "Ignore its event reports" }).click();
    await textIs(editor.locator(".notice"), "Saved.");
    expect(await editor.locator(".notice").evaluate((el) => el.previousElementSibling?.textContent)).toContain("Accept its event reports");
    await textHas(editor, "Event reports: ignored.");
    expect((await call<{ agents: { eventReports: string }[] }>(page, "GET", "/api/v1/admin/agents")).body.agents[0]?.eventReports).toBe("ignored");
    await editor.getByRole("button", { name: "Accept its event reports" }).click();
    await textHas(editor, "Event reports: accepted.");
    expect((await call<{ agents: { eventReports: string }[] }>(page, "GET", "/api/v1/admin/agents")).body.agents[0]?.eventReports).toBe("accepted");
    await editor.getByRole("button", { name: "Rotate token" }).click();
    await editor.getByRole("button", { name: "Yes, rotate the token" }).click();
    const rotated = await textOf(copyValue(editor, page, "Agent token"))();
    expect(rotated).not.toBe(agentToken);
    expect(await assignmentStatus(hub, agentToken)).toBe(401);
    expect(await assignmentStatus(hub, rotated)).toBe(200);
    agentToken = rotated;
    await expectClean(admin, "admin-agents-edit");

    await page.setViewportSize({ width: 360, height: 800 });
    await noHorizontalScroll(page);
    await expectClean(admin, "admin-agents-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
    const agentId = await row.getAttribute("data-agent");
    expect(takeRefusals()).toEqual([`400 PATCH /api/v1/admin/agents/${agentId}`]);
  }, 60_000);

  test("agents: export downloads a JSON file; importing it back shows the count and each skipped row's reason", async () => {
    const transfer = page.getByRole("region", { name: "Export and import" });
    const [download] = await Promise.all([page.waitForEvent("download"), transfer.getByRole("button", { name: "Export to a file" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^hub-agents-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync(await download.path(), "utf8")) as { agents: { tokenHash: string; region: string }[] };
    expect(exported.agents.map((a) => a.region)).toEqual(["eu-central-1"]);
    expect(JSON.stringify(exported)).not.toContain(agentToken);

    const file = { agents: [...exported.agents, { tokenHash: "a".repeat(64), region: "xx-nowhere-9", provider: "steam", provisionId: "ghost" }] };
    await transfer.getByLabel("Import from a file").setInputFiles({ name: "agents.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(file)) });
    await textIs(transfer.locator(".notice").last(), "Agents imported or updated: 1. Rows skipped: 1.");
    await expectBeside(transfer.locator(".notice").last(), transfer.getByLabel("Import from a file"), "status");
    const skipped = transfer.getByRole("table", { name: "Skipped rows" }).locator("tbody tr");
    expect(await skipped.locator("td").allTextContents()).toEqual(["2", "ghost", 'unknown region "xx-nowhere-9"']);

    await transfer.getByLabel("Import from a file").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not json") });
    await textIs(transfer.locator(".form-problem"), "notes.txt is not an agents export: expected JSON with a list of agents.");
    await expectBeside(transfer.locator(".form-problem"), transfer.getByLabel("Import from a file"), "alert");
    expect(consoleErrors(admin)).toEqual([]);
    expect(takeRefusals()).toEqual([]);
  }, 30_000);

  test("users: create one; the last admin cannot be demoted and the hub's reason is shown; a non-admin gets no admin pages", async () => {
    await openSection(page, "Users", "/admin/users");
    const create = page.getByRole("region", { name: "Add a user" });
    // A refused field is explained once, at the field; the form's summary only points there.
    await create.getByLabel("Username", { exact: true }).fill("no spaces allowed");
    await create.getByLabel("Password", { exact: true }).fill(VIEWER_PASSWORD);
    await create.getByRole("button", { name: "Create user" }).click();
    const usernameError = create.locator(".form-field").filter({ has: page.getByLabel("Username", { exact: true }) }).locator(".form-error");
    const fieldMessage = await until(textOf(usernameError), (m) => m !== "", "the username's own message");
    await textIs(create.locator(".form-problem"), "Check the marked fields: each says what to change.");
    expect((await create.textContent())?.split(fieldMessage).length).toBe(2);
    expect(await create.textContent()).not.toContain("Invalid body");
    expect(takeRefusals()).toEqual(["400 POST /api/v1/admin/users"]);
    await create.getByLabel("Username", { exact: true }).fill("viewer");
    await create.getByLabel("Role", { exact: true }).selectOption("user");
    await create.getByLabel("Password", { exact: true }).fill(VIEWER_PASSWORD);
    await create.getByLabel("E-mail", { exact: true }).fill("viewer@example.org");
    await create.getByLabel("Name", { exact: true }).fill("A Viewer");
    await create.getByRole("button", { name: "Create user" }).click();
    await textIs(create.locator(".notice"), "Created viewer.");
    await page.locator('tr[data-user="viewer"]').waitFor();

    await page.getByRole("button", { name: "Manage root" }).click();
    const manage = page.getByRole("region", { name: "Manage root" });
    await manage.getByLabel("Role", { exact: true }).selectOption("user");
    await manage.getByRole("button", { name: "Save", exact: true }).click();
    await textIs(manage.locator(".form-problem"), '"root" is the last enabled admin and cannot be demoted; make another admin first.');
    expect(await manage.getByLabel("Role", { exact: true }).inputValue()).toBe("admin");
    await expectClean(admin, "admin-users");

    const outsider = await guardedPage(browser, { viewport: { width: 1024, height: 800 } });
    await outsider.page.goto(`${hub.url}/admin/users`);
    await until(async () => new URL(outsider.page.url()).pathname + new URL(outsider.page.url()).search, (u) => u === "/login?next=%2Fadmin%2Fusers", "signed-out viewer sent to sign in");
    await signIn(outsider.page, hub, "viewer", VIEWER_PASSWORD);
    await outsider.page.goto(`${hub.url}/admin`);
    await textHas(outsider.page.locator("main"), "This page is for admins only. You are signed in as viewer, who is not an admin");
    expect((await call(outsider.page, "GET", "/api/v1/admin/users")).status).toBe(403);
    expect(outsider.blocked).toEqual([]);
    expect(consoleErrors(outsider)).toEqual([]);
    await outsider.context.close();
    expect(takeRefusals()).toEqual(["409 PATCH /api/v1/admin/users/1"]);
  }, 30_000);

  test("settings: a field the operator set is disabled and names its variable; the others save", async () => {
    await openSection(page, "Settings", "/admin/settings");
    const requireAuth = page.getByLabel("Require sign-in to read");
    await requireAuth.waitFor();
    expect(await requireAuth.isDisabled()).toBe(true);
    const requireNote = page.locator(".form-field").filter({ has: requireAuth }).locator(".lock-note");
    await textIs(requireNote, "Locked: the operator set REQUIRE_AUTH when starting the hub. It can only be changed there, with a restart.");
    expect(await requireAuth.getAttribute("aria-describedby")).toContain(await requireNote.getAttribute("id"));
    expect(await page.getByLabel("Admins", { exact: true }).isDisabled()).toBe(true);
    await textHas(page.locator("#settings-mfa-note"), "the operator set MFA_ENFORCED_ROLES");

    const keys = page.getByLabel("Allow API keys");
    expect(await keys.isDisabled()).toBe(false);
    await keys.check();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await textIs(page.locator(".notice"), "Saved. The settings apply from the next request.");
    await expectBeside(page.locator(".notice"), page.getByRole("button", { name: "Save", exact: true }), "status");
    expect((await call<{ enableApiKeys: boolean }>(page, "GET", "/api/v1/admin/settings")).body.enableApiKeys).toBe(true);
    await expectClean(admin, "admin-settings");
  }, 30_000);

  test("events: times typed in local time reach the hub in UTC; the one in force now is named and on the board's payload", async () => {
    await openSection(page, "Events", "/admin/events");
    await page.getByText("No events yet.").waitFor();
    const create = page.getByRole("region", { name: "Add an event" });
    await create.getByLabel("Key", { exact: true }).fill("double_bp");
    await create.getByLabel("Name", { exact: true }).fill("Double bloodpoints");
    await create.getByLabel("Multiplier", { exact: true }).fill("2");
    await create.getByRole("button", { name: "Create event" }).click();
    await textIs(page.locator("[data-testid=in-force]"), "In force now: Double bloodpoints (×2, All platforms)");
    await textIs(page.locator('tr[data-event="double_bp"] .badge'), "In force now");
    await textIs(create.locator(".notice"), "Created Double bloodpoints.");
    await expectBeside(create.locator(".notice"), create.locator("form"), "status");
    const payload = (await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).json()) as { activeEvent: { key: string } | null };
    expect(payload.activeEvent?.key).toBe("double_bp");

    await create.getByLabel("Key", { exact: true }).fill("new_year");
    await create.getByLabel("Name", { exact: true }).fill("New year");
    await create.getByLabel("Multiplier", { exact: true }).fill("1.5");
    await create.getByLabel("Starts", { exact: true }).fill("2030-01-01T10:00");
    await create.getByLabel("Ends", { exact: true }).fill("2030-01-02T10:00");
    await create.getByLabel("Some platforms").check();
    await create.getByLabel("Epic Games Store").check();
    await create.getByRole("button", { name: "Create event" }).click();
    await textIs(page.locator('tr[data-event="new_year"] .badge'), "Upcoming");
    const events = (await call<{ events: { key: string; startsAt: string; endsAt: string; platforms: string[] | null }[] }>(page, "GET", "/api/v1/admin/events")).body.events;
    // Berlin is UTC+1 in January.
    expect(events.find((e) => e.key === "new_year")).toMatchObject({ startsAt: "2030-01-01T09:00:00.000Z", endsAt: "2030-01-02T09:00:00.000Z", platforms: ["EGS"] });
    await expectClean(admin, "admin-events");
    await page.emulateMedia({ colorScheme: "light" });
    await expectClean(admin, "admin-events-light");
    await page.emulateMedia({ colorScheme: "dark" });

    const future = page.locator('tr[data-event="new_year"]');
    await future.getByRole("button", { name: "Delete" }).click();
    await future.getByRole("button", { name: "Yes, delete New year" }).click();
    await until(() => future.count(), (n) => n === 0, "deleted event row");

    // A row's refusal shows in that row, beside its buttons: here the event was deleted elsewhere meanwhile.
    const gone = await call<{ event: { id: number } }>(page, "POST", "/api/v1/admin/events", { key: "gone_soon", label: "Gone soon", multiplier: 2, startsAt: "2031-01-01T00:00:00Z", endsAt: "2031-01-02T00:00:00Z" });
    expect(gone.status).toBe(201);
    await page.reload();
    const goneRow = page.locator('tr[data-event="gone_soon"]');
    await goneRow.waitFor();
    expect((await call(page, "DELETE", `/api/v1/admin/events/${gone.body.event.id}`)).status).toBe(204);
    await goneRow.getByRole("button", { name: "Delete" }).click();
    await goneRow.getByRole("button", { name: "Yes, delete Gone soon" }).click();
    await textIs(goneRow.locator(".form-problem"), `There is no event ${gone.body.event.id}.`);
    await expectBeside(goneRow.locator(".form-problem"), goneRow.getByRole("button", { name: "Delete" }), "alert");
    expect(await page.locator(".form-problem").count()).toBe(1);
    expect(takeRefusals()).toEqual([`404 DELETE /api/v1/admin/events/${gone.body.event.id}`]);
    await page.reload();

    // An event from the agents' schedule: its label shown as text, its source named, hidden rather than edited or deleted.
    const label = "Bloodhunt <b>x</b> [y](https://x)";
    const start = new Date(Date.now() - 3_600_000).toISOString();
    const reported = await fetch(`${hub.url}/api/v1/agent/events`, {
      method: "POST",
      headers: { authorization: `Bearer ${agentToken}`, "content-type": "application/json" },
      body: JSON.stringify({ events: [{ key: "BPEVENT_Bloodhunt_NAME", label, multiplier: 3, startsAt: start, endsAt: new Date(Date.now() + 3_600_000).toISOString() }] }),
    });
    expect(reported.status).toBe(204);
    await page.reload();
    const agentRow = page.locator('tr[data-event="BPEVENT_Bloodhunt_NAME"]');
    await textIs(agentRow.locator("th"), label);
    await textHas(agentRow, "Agent ");
    expect(await agentRow.getByRole("button", { name: "Delete" }).count()).toBe(0);
    await textHas(page.locator("[data-testid=in-force]"), label);
    await agentRow.getByRole("button", { name: `Hide ${label}` }).click();
    await agentRow.getByRole("button", { name: `Show ${label}` }).waitFor();
    await textHas(agentRow, "Hidden");
    await textIs(page.locator("[data-testid=in-force]"), "In force now: Double bloodpoints (×2, All platforms)");
    const listed = (await (await fetch(`${hub.url}/api/v1/events`)).json()) as { events: { key: string }[] };
    expect(listed.events.map((e) => e.key)).toEqual(["double_bp"]);
    await expectClean(admin, "admin-events-agent");
  }, 60_000);

  test("data: attribution per region, orphans counted before they are deleted, an agent's filtered readings counted then deleted", async () => {
    await openSection(page, "Data", "/admin/data");
    const attribution = page.getByRole("region", { name: "Who reported a region" });
    await attribution.getByLabel("Platform", { exact: true }).selectOption("Windows");
    await attribution.getByLabel("Region", { exact: true }).selectOption("eu-west-1");
    await textIs(attribution.locator('tr[data-attribution="orphans"] td.num'), "1");

    const orphans = page.getByRole("region", { name: "Orphaned readings" });
    await orphans.getByRole("button", { name: "Count orphaned readings" }).click();
    await textIs(orphans.locator(".notice"), "Orphaned readings that would be deleted: 1.");
    await expectBeside(orphans.locator(".notice"), orphans.getByRole("button", { name: "Count orphaned readings" }), "status");
    expect((await call<{ removed: number }>(page, "DELETE", "/api/v1/admin/readings/orphans?dryRun=true")).body.removed).toBe(1);
    await orphans.getByRole("button", { name: "Delete the orphaned readings (1)" }).click();
    await expectClean(admin, "admin-data");
    await orphans.getByRole("button", { name: "Yes, delete the orphaned readings (1)" }).click();
    await textIs(orphans.locator(".notice"), "Readings deleted: 1.");
    await expectBeside(orphans.locator(".notice"), orphans.getByRole("button", { name: "Count orphaned readings" }), "status");
    await textIs(attribution.locator(".state"), "No stored readings for this region and platform.");

    const filtered = page.getByRole("region", { name: "Delete an agent's readings" });
    await filtered.getByLabel("Region", { exact: true }).selectOption("eu-central-1");
    await filtered.getByLabel("Survivor bonus at least (%)").fill("40");
    await filtered.getByRole("button", { name: "Count matching readings" }).click();
    await textIs(filtered.locator(".notice"), "Matching readings that would be deleted: 1.");
    await expectBeside(filtered.locator(".notice"), filtered.getByRole("button", { name: "Count matching readings" }), "status");
    await filtered.getByRole("button", { name: "Delete the matching readings (1)" }).click();
    await filtered.getByRole("button", { name: /^Yes, delete the matching readings of #\d+ browser agent \(1\)$/ }).click();
    await textIs(filtered.locator(".notice"), "Readings deleted: 1.");

    await filtered.getByLabel("Survivor bonus at least (%)").fill("5000");
    await filtered.getByRole("button", { name: "Count matching readings" }).click();
    await until(async () => (await filtered.locator(".form-error").count()) + (await filtered.locator(".form-problem").count()), (n) => n > 0, "refused bound shown");
    expect(consoleErrors(admin)).toEqual([]);
    expect(takeRefusals()).toEqual([expect.stringMatching(/^400 DELETE \/api\/v1\/admin\/agents\/\d+\/readings$/)]);
  }, 30_000);

  test("presence shows the viewers online, and the connections each proxy node reports, a node that does not answer as unknown", async () => {
    await openSection(page, "Presence", "/admin/presence");
    await textHas(page.locator("[data-testid=presence]"), /^Viewers online \d+$/);
    await textHas(page.locator("[data-testid=presence-proxied]"), /^Held by proxy nodes 7$/);
    await page.getByText("Proxy nodes not answering: 1. Their viewers are not in this count.").waitFor();
    const table = page.getByRole("table", { name: "Proxy nodes" });
    const [answering, refusing] = nodes.map((node) => table.locator(`tr[data-node="127.0.0.1:${node.port}"]`));
    expect(await answering?.locator("td").allInnerTexts()).toEqual(["7", expect.stringMatching(/ago|now/), "Answering"]);
    expect(await refusing?.locator("td").allInnerTexts()).toEqual(["Unknown", "Unknown", "Not answering (answered 500)"]);
    await expectClean(admin, "admin-presence");
  }, 30_000);

  test("audit log: the actions above, paged with older, filtered by action prefix and actor", async () => {
    // A refused sign-in from outside: audited without a user, and named as such rather than as the hub.
    const refused = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "viewer", password: "wrong password" }) });
    expect(refused.status).toBe(401);
    await openSection(page, "Audit log", "/admin/audit");
    const rows = page.locator("tr[data-audit]");
    await rows.first().waitFor();
    const actions = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-audit")));
    for (const action of ["agent.create", "agent.update", "agent.rotateToken", "agent.import", "user.create", "settings.update", "event.create", "event.delete", "readings.deleteOrphans", "readings.delete"]) {
      expect(actions).toContain(action);
    }
    // Each entry reads as a sentence, with its time in the viewer's zone; the raw record opens with one click.
    const created = page.locator('tr[data-audit="user.create"]').first();
    await textIs(created.getByTestId("audit-sentence"), "root created user #2 (viewer).");
    const entries = await call<{ entries: { action: string; at: number }[] }>(page, "GET", "/api/v1/admin/audit?action=user.create&limit=1");
    const at = entries.body.entries[0]?.at ?? 0;
    const berlin = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "medium", timeZone: "Europe/Berlin" }).format(at);
    await textIs(created.locator("time"), berlin);
    const raw = created.locator("code.detail");
    expect(await raw.isVisible()).toBe(false);
    await created.getByText("Raw detail").click();
    expect(await raw.isVisible()).toBe(true);
    await textHas(raw, '"action":"user.create"');
    await textHas(raw, '"username":"viewer"');
    await textIs(page.locator('tr[data-audit="signin.refused"]').first().getByTestId("audit-sentence"), "Someone not signed in was refused signing in as viewer.");
    await textIs(page.locator('tr[data-audit="agent.rotateToken"]').first().getByTestId("audit-sentence"), "root gave agent #1 a new token.");
    await expectClean(admin, "admin-audit");

    await page.getByLabel("Per page").selectOption("10");
    await page.getByRole("button", { name: "Apply" }).click();
    await until(() => rows.count(), (n) => n === 10, "a page of 10");
    const first = await rows.first().textContent();
    await page.getByRole("button", { name: "Older" }).click();
    await textIs(page.locator(".pagination span").nth(1), "Page 2");
    await until(async () => await rows.first().textContent(), (text) => text !== first, "the older page");
    await page.getByRole("button", { name: "Newer" }).click();
    await textIs(page.locator(".pagination span").nth(1), "Page 1");

    await page.getByLabel("Action starts with").fill("agent.");
    await page.getByLabel("Changed by").selectOption({ label: "root" });
    await page.getByRole("button", { name: "Apply" }).click();
    await until(
      () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-audit") ?? "")),
      (list) => list.length > 0 && list.every((a) => a.startsWith("agent.")),
      "only agent actions",
    );
    expect(admin.blocked).toEqual([]);
    expect(consoleErrors(admin)).toEqual([]);
    expect(takeRefusals()).toEqual([]);
  }, 30_000);

  test("every admin table: at 360 px its rows stack with every cell and button on screen; at 1280 px nothing is clipped", async () => {
    // Data: the attribution of a region with a reading; alerts: a webhook with every kind of condition, managed, so its delivery log shows too.
    const show = {
      data: async () => {
        const attribution = page.getByRole("region", { name: "Who reported a region" });
        await attribution.getByLabel("Platform", { exact: true }).selectOption("Windows");
        await attribution.getByLabel("Region", { exact: true }).selectOption("ap-southeast-2");
        await attribution.locator("tbody tr").first().waitFor();
      },
      alerts: async () => {
        await page.locator("tr[data-webhook]").getByRole("button", { name: /^Manage / }).click();
        await page.getByRole("region", { name: /^Delivery log of / }).locator("tbody tr").first().waitFor();
      },
    };
    const sections: [string, string, (() => Promise<void>)?][] = [
      ["Agents", "/admin/agents"],
      ["Users", "/admin/users"],
      ["Events", "/admin/events"],
      ["Data", "/admin/data", show.data],
      ["Alerts", "/admin/alerts", show.alerts],
      ["Audit log", "/admin/audit"],
    ];
    // An event with a long name, so the events table has something to clip at 1280 px if it can.
    expect((await call(page, "POST", "/api/v1/admin/events", { key: "long_one", label: "A very long bloodpoint event name that keeps going on", multiplier: 2.5, startsAt: "2031-01-01T00:00:00Z", endsAt: "2031-01-02T00:00:00Z", platforms: ["Windows", "EGS"] })).status).toBe(201);
    const reporter = await call<{ token: string }>(page, "POST", "/api/v1/admin/agents", { region: "ap-southeast-2", provider: "steam", label: "An agent with a rather long label for its column" });
    expect(reporter.status).toBe(201);
    expect(await postReading(hub, reporter.body.token, "ap-southeast-2")).toBe(201);
    // A target that cannot be reached from here, so its test delivery waits with an error to show; every condition, so the list says a lot.
    const hook = await call<{ webhook: { id: number } }>(page, "POST", "/api/v1/admin/webhooks", {
      url: "https://alerts.an-unreachable-receiver.invalid/hooks/a-rather-long-path/for-the-table",
      format: "discord",
      platforms: ["Windows", "EGS"],
      regions: ["eu-west-1", "eu-central-1", "ap-southeast-2", "us-east-1"],
      minBonus: 75,
      onStatus: true,
      onEvents: true,
    });
    expect(hook.status).toBe(201);
    expect((await call(page, "POST", `/api/v1/admin/webhooks/${hook.body.webhook.id}/test`)).status).toBe(202);
    const overflow = () =>
      page.evaluate(() => {
        const problems: string[] = [];
        for (const wrap of document.querySelectorAll<HTMLElement>(".admin .table-wrap")) {
          if (wrap.scrollWidth > wrap.clientWidth + 1) problems.push(`${wrap.getAttribute("aria-label")}: scrolls sideways (${wrap.scrollWidth} > ${wrap.clientWidth})`);
          for (const el of wrap.querySelectorAll<HTMLElement>("tbody th, tbody td, tbody .button")) {
            const box = el.getBoundingClientRect();
            if (box.right > window.innerWidth + 0.5) problems.push(`${wrap.getAttribute("aria-label")}: "${el.textContent?.trim()}" ends at ${box.right}`);
            if (el.classList.contains("button") && el.scrollWidth > el.clientWidth + 1) problems.push(`${wrap.getAttribute("aria-label")}: button "${el.textContent?.trim()}" is cut`);
          }
          // Stacked, each cell's column name (its ::before) must fit beside its value: a name taller than its cell runs into the next one.
          for (const cell of wrap.querySelectorAll<HTMLElement>("tbody [data-label]")) {
            const label = getComputedStyle(cell, "::before");
            if (label.content === "none" || label.content === "normal") continue;
            const probe = document.createElement("div");
            probe.textContent = cell.getAttribute("data-label");
            Object.assign(probe.style, { position: "absolute", visibility: "hidden", width: label.width, fontFamily: label.fontFamily, fontSize: label.fontSize, fontWeight: label.fontWeight, lineHeight: label.lineHeight });
            document.body.append(probe);
            const needed = probe.getBoundingClientRect().height;
            probe.remove();
            if (needed > cell.getBoundingClientRect().height + 0.5) problems.push(`${wrap.getAttribute("aria-label")}: the label "${cell.getAttribute("data-label")}" is taller than its cell`);
          }
        }
        return problems;
      });
    await page.goto(`${hub.url}/admin`);
    for (const [name, path, prepare] of sections) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await openSection(page, name, path);
      await prepare?.();
      await page.locator(".admin .table-wrap tbody tr").first().waitFor();
      await screenshot(page, `admin-table-${path.split("/").pop()}`);
      expect({ name, problems: await overflow() }).toEqual({ name, problems: [] });
      await page.setViewportSize({ width: 360, height: 800 });
      expect({ name, problems: await overflow() }).toEqual({ name, problems: [] });
      // Stacked: each cell says which column it is.
      expect(await page.locator(".admin .table-wrap tbody td[data-label]").count()).toBeGreaterThan(0);
      await noHorizontalScroll(page);
      await expectClean(admin, `admin-table-${path.split("/").pop()}-phone`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(takeRefusals()).toEqual([]);
  }, 120_000);

  test("sharing: copy-paste snippets for a badge, embeds and feeds of a covered region, each of which answers", async () => {
    await openSection(page, "Sharing", "/admin/sharing");
    const panel = page.getByRole("region", { name: "Badges, embeds and feeds" });
    await panel.getByLabel("Platform", { exact: true }).selectOption("Windows");
    const badge = panel.getByLabel("Badge (Markdown)");
    const text = await until(async () => ((await badge.count()) > 0 ? await badge.inputValue() : ""), (v) => v.includes("/badge/Windows/"), "the badge snippet");
    const badgeUrl = /\((http[^)]+\.svg)\)/.exec(text)?.[1] ?? "";
    expect(badgeUrl).toStartWith(`${hub.url}/badge/Windows/`);
    const urls = [
      badgeUrl,
      /src="([^"]+)"/.exec(await panel.getByLabel("Embed of the region").inputValue())?.[1] ?? "",
      /src="([^"]+)"/.exec(await panel.getByLabel("Embed of the platform's board").inputValue())?.[1] ?? "",
      await panel.getByLabel("Feed of the region (bonuses of at least +50 %)").inputValue(),
      await panel.getByLabel("Feed of the platform").inputValue(),
    ];
    for (const url of urls) expect({ url, status: (await fetch(url)).status }).toEqual({ url, status: 200 });
    await expectClean(admin, "admin-sharing");
    expect(takeRefusals()).toEqual([]);
  }, 30_000);
});
