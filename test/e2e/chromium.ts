/**
 * Debian's Chromium for browser tests, driven by playwright-core: every
 * request that leaves loopback is blocked and recorded, every console error and
 * page error recorded, axe-core run on demand, screenshots saved under
 * artifacts/screenshots/ for a person to look at.
 */
import { expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from "playwright-core";
import { ROOT } from "./harness.ts";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(ROOT, "artifacts", "screenshots");

export function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true;
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

export async function launch(): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface Guarded {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Requests that tried to leave the machine. */
  readonly blocked: string[];
  /** Console errors and uncaught page errors. */
  readonly errors: string[];
  /** Every URL the page requested. */
  readonly requested: string[];
}

export async function guardedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Guarded> {
  const context = await browser.newContext(options);
  const blocked: string[] = [];
  const errors: string[] = [];
  const requested: string[] = [];
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    requested.push(url);
    if (isLoopback(url)) await route.continue();
    else {
      blocked.push(url);
      await route.abort();
    }
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, blocked, errors, requested };
}

const AXE = readFileSync(join(ROOT, "node_modules", "axe-core", "axe.min.js"), "utf8");

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly string[];
}

/** axe-core's WCAG 2.1 A and AA rules on the page as it is; the serious and critical violations. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected <script> it would block).
  await page.evaluate(AXE);
  const result = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
  })) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) }));
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Whether Debian's Chromium is there for `what`; without it the tests are
 * skipped with a loud warning, or fail where HUB_REQUIRE_BROWSER=1 (CI).
 */
export function chromiumAvailable(what: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const message = `!!! ${CHROMIUM} is missing: ${what} SKIPPED (install Debian's chromium package) !!!`;
  if (process.env.HUB_REQUIRE_BROWSER === "1") throw new Error(message);
  console.warn(`\n${"!".repeat(message.length)}\n${message}\n${"!".repeat(message.length)}\n`);
  return false;
}

/** Waits until `read` gives what `matches` accepts (bun:test has no Playwright matchers); fails with the last value seen. */
export async function until<T>(read: () => Promise<T> | T, matches: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!matches(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(last)} after ${timeoutMs} ms`);
    await Bun.sleep(50);
    last = await read();
  }
  return last;
}

export const textOf = (locator: Locator) => async () => (await locator.first().textContent())?.trim() ?? "";
export const textIs = (locator: Locator, expected: string) => until(textOf(locator), (t) => t === expected, `text of ${locator.toString()}`);
export const textMatches = (locator: Locator, expected: RegExp) => until(textOf(locator), (t) => expected.test(t), `text of ${locator.toString()}`);
export const textHas = (locator: Locator, expected: string | RegExp) =>
  until(textOf(locator), (t) => (typeof expected === "string" ? t.includes(expected) : expected.test(t)), `text of ${locator.toString()}`);
export const urlIs = (page: Page, expected: string) => until(async () => page.url(), (u) => u === expected, "url");
export const urlMatches = (page: Page, expected: RegExp, wanted = true) => until(async () => page.url(), (u) => expected.test(u) === wanted, "url");

export interface PageReply<T> {
  readonly status: number;
  readonly body: T;
}

/** A request from inside the page with its session cookie, as the web app makes it (the session's CSRF token on changes). */
export async function pageCall<T = unknown>(page: Page, method: string, path: string, body?: unknown): Promise<PageReply<T>> {
  return (await page.evaluate(
    async ({ method, path, body }) => {
      const headers: Record<string, string> = {};
      if (method !== "GET") {
        const session = (await (await fetch("/api/v1/auth/session", { credentials: "same-origin" })).json()) as { csrfToken: string | null };
        if (session.csrfToken) headers["x-csrf-token"] = session.csrfToken;
      }
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
    },
    { method, path, body },
  )) as PageReply<T>;
}

/**
 * A message sits right after what caused it (the form, or the row of buttons
 * holding the control) and is announced as what it is: a success as a status,
 * a refusal as an alert.
 */
export async function expectBeside(message: Locator, cause: Locator, role: "status" | "alert"): Promise<void> {
  await message.first().waitFor();
  expect(await message.first().getAttribute("role")).toBe(role);
  const control = await cause.first().elementHandle();
  const follows = await message.first().evaluate((el, target) => {
    const before = el.previousElementSibling;
    return before !== null && target !== null && (before === target || before.contains(target));
  }, control);
  const text = await textOf(message)();
  expect({ message: text, follows }).toEqual({ message: text, follows: true });
}
