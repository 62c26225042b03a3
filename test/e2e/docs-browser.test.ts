/**
 * /docs renders in a real headless Chromium with every request that leaves
 * loopback blocked: the reference needs nothing but the hub itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { listen } from "../../src/server.ts";
import { testHub } from "../helpers.ts";
import { chromiumAvailable, guardedPage, launch } from "./chromium.ts";

const available = chromiumAvailable("the /docs browser test");

describe.skipIf(!available)("/docs in a browser", () => {
  let browser: Browser;
  const hub = testHub();
  const server = listen(hub.ctx, hub.app, hub.nativeRoutes);

  beforeAll(async () => {
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await server.stop(true);
  });

  test("renders the reference offline, without CSP violations", async () => {
    const { context, page, blocked, errors: problems } = await guardedPage(browser);
    const response = await page.goto(`http://127.0.0.1:${server.port}/docs`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector(".swagger-ui .info .title", { timeout: 20_000 });
    expect(await page.textContent(".swagger-ui .info .title")).toContain("Incentives Hub");
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    const operations = await page.locator(".opblock-summary-path").allTextContents();
    expect(operations.some((p) => p.includes("/healthz"))).toBe(true);
    await page.click(".opblock-summary-path >> text=/healthz");
    await page.waitForSelector(".opblock-body", { timeout: 10_000 });
    expect(blocked).toEqual([]);
    expect(problems.filter((p) => !p.includes("/api/v1/auth/session"))).toEqual([]);
    await context.close();
  }, 60_000);
});
