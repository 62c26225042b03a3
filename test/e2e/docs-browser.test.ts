/**
 * /docs renders in a real headless Chromium with every request that leaves
 * loopback blocked: the reference needs nothing but the hub itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { listen } from "../../src/server.ts";
import { testHub } from "../helpers.ts";
import { chromiumAvailable, guardedPage, launch, screenshot } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub } from "./harness.ts";

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

  test("follows the viewer's colour scheme: dark when preferred, light otherwise, from dist/hub; a link leads back to the hub", async () => {
    const binary = await startHub({ cmd: [await compiledHub()], args: ["--db", ":memory:"] });
    try {
      const look = async (colorScheme: "dark" | "light") => {
        const { context, page, blocked, errors } = await guardedPage(browser, { colorScheme, viewport: { width: 1280, height: 900 } });
        await page.goto(`${binary.url}/docs`);
        await page.waitForSelector(".opblock", { timeout: 20_000 });
        const shade = await page.evaluate(() => {
          const html = getComputedStyle(document.documentElement).backgroundColor;
          const filter = getComputedStyle(document.querySelector(".swagger-ui") as Element).filter;
          return { html, filter };
        });
        await screenshot(page, `docs-${colorScheme}`);
        expect(await page.getByRole("link", { name: "← Incentives Hub" }).getAttribute("href")).toBe("/");
        expect(blocked).toEqual([]);
        expect(errors.filter((p) => !p.includes("/api/v1/auth/session"))).toEqual([]);
        await context.close();
        return shade;
      };
      expect(await look("dark")).toEqual({ html: "rgb(22, 24, 29)", filter: "invert(0.88) hue-rotate(180deg)" });
      expect(await look("light")).toEqual({ html: "rgba(0, 0, 0, 0)", filter: "none" });
    } finally {
      await binary.stop();
    }
  }, 60_000);
});
