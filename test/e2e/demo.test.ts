/**
 * `hub serve --demo`: a full board at once, on a database that is gone when
 * the hub stops; its agents list holds only the agents that run, it gives no
 * advice about keeping a key, and it prints a way into the console as the
 * demo admin, which Chromium then takes.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { BUILT_IN_REGIONS, PLATFORMS } from "../../src/domain/catalogue.ts";
import { axeViolations, chromiumAvailable, guardedPage, launch, screenshot, textHas, until } from "./chromium.ts";
import { compiledHub } from "./compiled.ts";
import { startHub } from "./harness.ts";

/** The demo runs one agent per platform × region pair of the built-in catalogue. */
const PAIRS = PLATFORMS.length * BUILT_IN_REGIONS.length;
const browserAvailable = chromiumAvailable("the demo's admin path in Chromium");

interface AdminAgent {
  readonly enabled: boolean;
  readonly label: string | null;
  readonly lastReadingAt: number | null;
}

describe("demo mode", () => {
  test("14 days of history and live simulated agents on every platform and region, on a throw-away database; a demo admin gets in on a printed password", async () => {
    const binary = await compiledHub();
    const hub = await startHub({ cmd: [binary], args: ["--demo"], timeoutMs: 60_000 });
    let db = "";
    try {
      const meta = (await (await fetch(`${hub.url}/api/v1/meta`)).json()) as { platforms: string[] };
      expect(meta.platforms).toEqual([...PLATFORMS]);
      for (const platform of meta.platforms) {
        const payload = (await (await fetch(`${hub.url}/api/v1/platforms/${platform}/incentives`)).json()) as { status: string; regions: { isReal: boolean }[] };
        expect(payload.status).toBe("ok");
        expect(payload.regions.length).toBe(BUILT_IN_REGIONS.length);
        expect(payload.regions.every((r) => r.isReal)).toBe(true);
      }
      const history = (await (await fetch(`${hub.url}/api/v1/platforms/EGS/regions/ap-south-1/history?from=0`)).json()) as { firstAt: number; lastAt: number };
      expect(history.lastAt - history.firstAt).toBeGreaterThan(13.9 * 86_400_000);
      const coverage = (await (await fetch(`${hub.url}/api/v1/platforms/GRDK/coverage`)).json()) as { regions: { agents: number }[] };
      expect(coverage.regions.every((r) => r.agents >= 1)).toBe(true);
      db = /"db":"([^"]+hub\.db)"/.exec(hub.output())?.[1] ?? "";
      expect(existsSync(db)).toBe(true);
      expect((await fetch(`${hub.url}/`)).status).toBe(200);

      // A throw-away database has no key worth keeping: none is written, and nothing advises keeping one.
      expect(existsSync(`${dirname(db)}/hub.key`)).toBe(false);
      expect(hub.output()).not.toContain("keep a copy");

      const origin = `http://localhost:${new URL(hub.url).port}`;
      const plain = hub.output().split("\n").filter((line) => line !== "" && !line.startsWith("{"));
      expect(plain[0]).toBe(`Hub ready: open ${origin}/`);
      const said = /^Demo admin: sign in at (\S+) as "demo" with the one-time password (\S+) \(this demo only; no second factor\)\.$/.exec(plain[1] ?? "");
      // The printed address opens the console once signed in.
      expect(said?.[1]).toBe(`${origin}/login?next=/admin`);
      const password = said?.[2] ?? "";
      expect(password.length).toBeGreaterThanOrEqual(16);
      // The password is on that line only: never in the JSON log.
      expect(hub.output().split("\n").filter((line) => line.includes(password))).toEqual([plain[1] ?? ""]);

      const login = await fetch(`${hub.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify({ username: "demo", password }),
      });
      expect(login.status).toBe(200);
      expect(((await login.json()) as { next: string }).next).toBe("ok");
      const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const listed = (await (await fetch(`${hub.url}/api/v1/admin/agents`, { headers: { cookie } })).json()) as { agents: AdminAgent[] };
      // One agent per platform and region, each reporting; no disabled placeholders for the history.
      expect(listed.agents.length).toBe(PAIRS);
      expect(listed.agents.every((a) => a.enabled && a.lastReadingAt !== null)).toBe(true);
      expect(listed.agents.some((a) => a.label === "simulated history")).toBe(false);

      if (browserAvailable) {
        const browser = await launch();
        try {
          const guarded = await guardedPage(browser, { viewport: { width: 1280, height: 900 }, locale: "en-GB", colorScheme: "dark" });
          const page = guarded.page;
          // Every path the app goes through, so a detour through the setup wizard shows even when it moves on.
          await guarded.context.addInitScript(() => {
            const seen = () => JSON.parse(sessionStorage.getItem("paths") ?? "[]") as string[];
            const note = () => sessionStorage.setItem("paths", JSON.stringify([...seen(), location.pathname]));
            for (const name of ["pushState", "replaceState"] as const) {
              const original = window.history[name].bind(window.history);
              window.history[name] = (...args: Parameters<History["pushState"]>) => {
                original(...args);
                note();
              };
            }
            note();
          });
          const printed = new URL(said?.[1] ?? "");
          await page.goto(`${hub.url}${printed.pathname}${printed.search}`);
          await page.getByLabel("Username").fill("demo");
          await page.getByLabel("Password", { exact: true }).fill(password);
          await page.getByRole("button", { name: "Sign in" }).click();
          await until(async () => new URL(page.url()).pathname, (p) => p === "/admin", "the console, straight after signing in");
          expect(await page.getByText("Sign-in rule").count()).toBe(0);
          expect((await page.evaluate(() => sessionStorage.getItem("paths") ?? "")).includes("/setup")).toBe(false);
          await until(() => page.locator("tr[data-agent]").count(), (n) => n === PAIRS, `${PAIRS} agents listed`);
          await textHas(page.locator("tr[data-agent]").first(), "Reporting");
          expect(await axeViolations(page)).toEqual([]);
          await screenshot(page, "demo-admin");
          expect(guarded.blocked).toEqual([]);
          expect(guarded.errors).toEqual([]);
        } finally {
          await browser.close();
        }
      }
    } finally {
      expect(await hub.stop()).toBe(0);
    }
    expect(existsSync(dirname(db))).toBe(false);
  }, 120_000);
});
