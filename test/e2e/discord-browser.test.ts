/**
 * The guide's pictures of the answers: each command answered by the real
 * endpoint (signed requests, an in-process hub with readings, history and
 * events), rendered the way Discord renders embeds (test/discord-render.ts)
 * and screenshotted in Chromium into artifacts/screenshots/discord-*.png;
 * with DOC_IMAGES=1 also into docs/images/ for the guide. What shows must be
 * plain text: no escape backslash and no stray Markdown left for a reader.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import type { Hub } from "../../src/hub.ts";
import { commandInteraction, discordEnv, discordKeys, signatureHeaders } from "../discord.ts";
import { renderAnswer, type RenderedAnswer } from "../discord-render.ts";
import { call, testHub } from "../helpers.ts";
import { storeReadings } from "../history-helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";
import { chromiumAvailable, guardedPage, launch, SCREENSHOTS } from "./chromium.ts";
import { ROOT } from "./harness.ts";

const enabled = chromiumAvailable("the Discord answers' pictures");
const keys = discordKeys();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function demoHub(): Promise<Hub> {
  const hub = testHub({ env: { ...discordEnv(keys), ORIGIN: "https://hub.example.org" } });
  const now = Date.now();
  // Four weeks of Frankfurt's history: a killer bonus most evenings, a survivor bonus some mornings.
  const history = [];
  for (let t = Math.floor(now / HOUR) * HOUR - 28 * DAY; t < now - HOUR; t += 15 * 60_000) {
    const hour = new Date(t).getUTCHours();
    const day = Math.floor(t / DAY);
    history.push({ t, region: "eu-central-1", killer: hour >= 17 && hour <= 20 && day % 4 !== 0 ? (hour === 19 ? 100 : 75) : 0, survivor: hour >= 6 && hour <= 8 && day % 3 === 0 ? 50 : 0 });
  }
  storeReadings(hub.ctx.db, history);
  hub.reloadExternal();
  const live: [string, Record<string, number>][] = [
    ["eu-central-1", { killer: 75, survivor: 0 }],
    ["us-east-1", { killer: 0, survivor: 50 }],
    ["eu-west-1", { killer: 25, survivor: 0 }],
    ["ap-northeast-1", { killer: 0, survivor: 100 }],
    ["eu-west-2", { killer: 0, survivor: 0 }],
  ];
  const reporter = addAgent(hub, "eu-central-1");
  for (const [region, values] of live) {
    const agent = region === "eu-central-1" ? reporter : addAgent(hub, region);
    expect((await post(hub, agent, reading("Windows", region, now - 2 * 60_000, values))).status).toBe(201);
  }
  const iso = (t: number) => new Date(t).toISOString();
  const events = {
    events: [
      { key: "bloodhunt", label: "Bloodhunt", multiplier: 2, startsAt: iso(now - DAY), endsAt: iso(now + 2 * DAY + 3 * HOUR) },
      { key: "anniversary", label: "Anniversary *Special* @everyone", multiplier: 3, startsAt: iso(now + 9 * DAY), endsAt: iso(now + 16 * DAY) },
    ],
  };
  expect((await call(hub, "POST", "/api/v1/agent/events", { body: events, headers: { authorization: `Bearer ${reporter.token}` } })).status).toBe(204);
  return hub;
}

async function ask(hub: Hub, interaction: Record<string, unknown>): Promise<RenderedAnswer["data"]> {
  const body = JSON.stringify(interaction);
  const response = await hub.app.handle(new Request(`${hub.ctx.config.origin}/api/v1/discord/interactions`, { method: "POST", headers: signatureHeaders(keys, body), body }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RenderedAnswer["data"] }).data;
}

describe.skipIf(!enabled)("Discord's answers, as Discord shows them", () => {
  let browser: Browser;
  let hub: Hub;
  beforeAll(async () => {
    browser = await launch();
    hub = await demoHub();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const cases: { name: string; command: string; interaction: () => Record<string, unknown>; shows: string[] }[] = [
    { name: "discord-bonus-region", command: "/bonus region: EU Central (Frankfurt)", interaction: () => commandInteraction("bonus", [{ name: "region", value: "eu-central-1" }]), shows: ["Killer +75 %", "×2.75 (Bloodhunt ×2)", "Refresh"] },
    { name: "discord-bonus", command: "/bonus", interaction: () => commandInteraction("bonus"), shows: ["Steam: bonuses now", "Asia (Tokyo): Survivor +100 %", "Bloodhunt: ×2 bloodpoints"] },
    { name: "discord-when", command: "/when region: EU Central (Frankfurt)", interaction: () => commandInteraction("when", [{ name: "region", value: "eu-central-1" }]), shows: ["When to play in", "Best hours for a Killer bonus (Europe/Berlin)", "Next Killer bonus expected"] },
    { name: "discord-events", command: "/events", interaction: () => commandInteraction("events"), shows: ["In force", "Coming", "Anniversary *Special* @\u200beveryone: ×3 bloodpoints"] },
    { name: "discord-bonus-de", command: "/bonus region: Frankfurt", interaction: () => commandInteraction("bonus", [{ name: "region", value: "Frankfurt" }], "de"), shows: ["Bonus als Killer", "Aktualisieren", "EU Central (Frankfurt) · Deutschland"] },
    { name: "discord-unknown-region", command: "/bonus region: Atlantis", interaction: () => commandInteraction("bonus", [{ name: "region", value: "Atlantis" }]), shows: ['This hub has no region "Atlantis"', "Only you can see this"] },
  ];

  for (const c of cases) {
    test(`${c.command}: plain text, pictured in ${c.name}.png`, async () => {
      const data = await ask(hub, c.interaction());
      const { page, blocked, errors, context } = await guardedPage(browser, { viewport: { width: 700, height: 400 }, deviceScaleFactor: 1 });
      await page.setContent(renderAnswer({ command: c.command, data }, Date.now()));
      const message = page.locator(".message");
      const text = (await message.innerText()).replaceAll("\n", " ");
      for (const shown of c.shows) expect(text).toContain(shown);
      expect(text).not.toContain("\\");
      expect(text).not.toContain("**");
      expect(text).not.toMatch(/<t:\d+/);
      mkdirSync(SCREENSHOTS, { recursive: true });
      const path = join(SCREENSHOTS, `${c.name}.png`);
      await message.screenshot({ path });
      if (process.env.DOC_IMAGES === "1") copyFileSync(path, join(ROOT, "docs", "images", `${c.name}.png`));
      expect(blocked).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 30_000);
  }
});
