/**
 * Discord through the compiled binary (the Discord code is loaded with
 * import() when configured, so "works from source" is not enough): a signed
 * PING and a /bonus answered by dist/hub, a forged request refused, `hub
 * discord register` against a local server playing Discord's REST API, and
 * the console's Discord panel in Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { scratchDirs } from "../helpers.ts";
import { APPLICATION_ID, commandInteraction, discordEnv, discordKeys, signatureHeaders } from "../discord.ts";
import { fakeDiscord } from "../discord-api.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, pageCall, screenshot, textHas } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { postReading, runCli, startHub, type RunningHub } from "./harness.ts";

const keys = discordKeys();
const AGENT_TOKEN = "discord-e2e-agent-token-0123456789";
const BOT_TOKEN = "discord-e2e-bot-token-0123456789";
const ADMIN = { ADMIN_BOOTSTRAP_USER: "root", ADMIN_BOOTSTRAP_PASSWORD: "correct horse battery", MFA_ENFORCED_ROLES: "" };
const scratch = scratchDirs();
const browserAvailable = chromiumAvailable("the console's Discord panel");

describe("Discord through dist/hub", () => {
  let hub: RunningHub;
  let binary: string;
  const discord = fakeDiscord(APPLICATION_ID, BOT_TOKEN);
  beforeAll(async () => {
    binary = await compiledHub();
    hub = await startHub({
      cmd: [binary],
      args: ["--db", `${scratch()}/hub.db`],
      env: { ...discordEnv(keys), ...ADMIN, PROVISION_AGENTS: `e2e:${AGENT_TOKEN}:eu-west-1:steam` },
    });
  }, 120_000);
  afterAll(async () => {
    await hub?.stop();
    discord.stop();
  });

  const post = async (body: unknown, headers?: Record<string, string>) => {
    const text = JSON.stringify(body);
    return await fetch(`${hub.url}/api/v1/discord/interactions`, { method: "POST", headers: headers ?? signatureHeaders(keys, text), body: text });
  };

  test("a signed PING gets PONG, a forged one 401, and /bonus answers from the live values", async () => {
    expect(await postReading(hub.url, AGENT_TOKEN, Date.now() - 1000, { killer: 75 })).toBe(201);
    const pong = await post({ type: 1 });
    expect(pong.status).toBe(200);
    expect(await pong.json()).toEqual({ type: 1 });
    const forged = await post({ type: 1 }, signatureHeaders(discordKeys(), JSON.stringify({ type: 1 })));
    expect(forged.status).toBe(401);
    await forged.arrayBuffer();
    const bonus = await post(commandInteraction("bonus", [{ name: "region", value: "eu-west-1" }], "fr"));
    expect(bonus.status).toBe(200);
    const answer = (await bonus.json()) as { type: number; data: { embeds: { title: string; description: string }[]; components: { components: { label: string }[] }[] } };
    expect(answer.type).toBe(4);
    expect(answer.data.embeds[0]?.title).toBe("🇮🇪 EU West \\(Ireland\\) · Irlande, Steam");
    expect(answer.data.embeds[0]?.description).toBe("**Tueur +75 %**");
    expect(answer.data.components[0]?.components[0]?.label).toBe("Actualiser");
  }, 30_000);

  test("hub discord register puts the commands on the local Discord and prints the invite", async () => {
    const run = await runCli(["discord", "register"], { cmd: [binary], env: { ...discordEnv(keys), DISCORD_BOT_TOKEN: BOT_TOKEN, DISCORD_API_URL: discord.url, DB_PATH: ":memory:" } });
    expect(run.stderr).toBe("");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain(`invite: https://discord.com/oauth2/authorize?client_id=${APPLICATION_ID}&scope=applications.commands`);
    expect(discord.puts.at(-1)?.problems).toEqual([]);
    expect(discord.sets.get("global")?.map((c) => c.name)).toEqual(["bonus", "when", "events"]);
  }, 30_000);

  describe.skipIf(!browserAvailable)("the console", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launch();
    });
    afterAll(async () => {
      await browser?.close();
    });

    test("the Alerts page says Discord answers, with the endpoint, the last interaction and the invite", async () => {
      const guarded = await guardedPage(browser, { viewport: { width: 1200, height: 900 } });
      const { page } = guarded;
      await page.goto(`${hub.url}/healthz`);
      expect((await pageCall(page, "POST", "/api/v1/auth/login", { username: ADMIN.ADMIN_BOOTSTRAP_USER, password: ADMIN.ADMIN_BOOTSTRAP_PASSWORD })).status).toBe(200);
      await page.goto(`${hub.url}/admin/alerts`);
      const panel = page.locator("section", { has: page.getByRole("heading", { name: "Discord", exact: true }) });
      await textHas(panel, "Slash commands are answered at this Interactions Endpoint URL:");
      // The hub's ORIGIN defaults to localhost on its port.
      await textHas(panel.locator("code"), `http://localhost:${new URL(hub.url).port}/api/v1/discord/interactions`);
      expect(await panel.getByText("None since the hub started").count()).toBe(0);
      expect(await panel.getByRole("link", { name: "Add the commands to a Discord server" }).getAttribute("href")).toBe(`https://discord.com/oauth2/authorize?client_id=${APPLICATION_ID}&scope=applications.commands`);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, "admin-alerts-discord");
      expect(guarded.blocked).toEqual([]);
      expect(guarded.errors).toEqual([]);
      await guarded.context.close();
    }, 60_000);
  });
});
