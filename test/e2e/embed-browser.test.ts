/**
 * Embeds in real Chromium against dist/hub (SPEC §19): a page on another
 * loopback origin frames the embed, which shows the live answer and follows
 * the stream, while the board itself refuses to be framed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { tempDir } from "../helpers.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, until } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const available = chromiumAvailable("the embed browser tests");
const TOKEN = "embed-e2e-token-aaaaaaaaaaaaaa";
const dir = tempDir("hub-embed-");
let hub: RunningHub;
let browser: Browser;
let site: ReturnType<typeof Bun.serve>;

async function postReading(killer: number, survivor = 0): Promise<void> {
  const body = JSON.stringify({ region: "eu-central-1", platform: "Windows", survivor, killer, ratio: 0.5, isReal: true, measuredAt: new Date().toISOString() });
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body });
  expect(response.status).toBe(201);
}

beforeAll(async () => {
  if (!available) return;
  const binary = await compiledHub();
  hub = await startHub({ cmd: [binary], cwd: dir.path, args: ["--db", join(dir.path, "hub.db")], env: { PROVISION_AGENTS: `fra:${TOKEN}:eu-central-1:steam` } });
  // Another origin (localhost, its own port) that frames the hub, as a community site would.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const path = new URL(request.url).pathname;
      const frame = path === "/board" ? `${hub.url}/` : `${hub.url}/embed/Windows/eu-central-1?theme=light&lang=de`;
      return new Response(`<!doctype html><html lang="en"><head><title>Clan site</title></head><body><main><iframe title="Bonus" src="${frame}" width="400" height="120"></iframe></main></body></html>`, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await hub?.stop();
  dir.cleanup();
});

describe.if(available)("embeds framed by another site", () => {
  test("the region embed shows the live answer in the chosen language and theme, follows the stream, and opens the hub in a new tab", async () => {
    await postReading(75);
    const guarded = await guardedPage(browser);
    const { page } = guarded;
    await page.goto(`http://localhost:${site.port}/embed`);
    const frame = await until(async () => page.frames().find((f) => f.url().includes("/embed/")) ?? null, (f) => f !== null, "the embed frame");
    if (!frame) throw new Error("no embed frame");
    const answer = frame.locator("li[data-region=eu-central-1] .answer");
    await until(async () => (await answer.textContent()) ?? "", (t) => t === "Killer +75 %", "the embed's first answer");
    expect(await frame.locator("html").getAttribute("lang")).toBe("de");
    expect(await frame.locator("html").getAttribute("data-theme")).toBe("light");
    const link = frame.locator("li a");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await link.getAttribute("href")).toBe(`http://localhost:${new URL(hub.url).port}/Windows/eu-central-1`);
    await postReading(0, 100);
    await until(async () => (await answer.textContent()) ?? "", (t) => t === "Überlebender +100 %", "the streamed answer");
    expect(await answer.getAttribute("data-role")).toBe("survivor");
    const embed = await browser.newPage();
    await embed.goto(`${hub.url}/embed/Windows/eu-central-1`);
    expect(await axeViolations(embed)).toEqual([]);
    await embed.close();
    await screenshot(page, "embed-framed");
    expect(guarded.blocked).toEqual([]);
    expect(guarded.errors).toEqual([]);
    await guarded.context.close();
  }, 60_000);

  test("the board refuses to be framed by another site", async () => {
    const guarded = await guardedPage(browser);
    const { page } = guarded;
    await page.goto(`http://localhost:${site.port}/board`);
    await until(async () => guarded.errors.join("\n"), (e) => e.includes("frame-ancestors"), "Chromium's refusal");
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.locator("#app").count()).toBe(0);
    await guarded.context.close();
  }, 60_000);
});
