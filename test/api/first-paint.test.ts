/** The board's first paint rendered by the hub (src/share/first-paint.tsx): what it holds, when it is rendered again, and when not at all. */
import { describe, expect, test } from "bun:test";
import { acceptedLanguages, FIRST_PAINT_MAX_AGE_MS, FIRST_PAINT_MIN_AGE_MS, firstPaints } from "../../src/share/first-paint.tsx";
import { FIRST_CARDS } from "../../src/web/board-model.ts";
import { pageHeads } from "../../src/share/head.ts";
import type { LiveStore } from "../../src/live/store.ts";
import { memoryLog, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";
import { lazyFirstPaints } from "../../src/share/first-paint-loader.ts";

describe("Accept-Language", () => {
  test("languages come most wanted first; refused and wildcard entries are dropped", () => {
    expect(acceptedLanguages("fr-CA;q=0.5, de, *;q=0.1, ja;q=0, pt-BR;q=0.8")).toEqual(["de", "pt-BR", "fr-CA"]);
    expect(acceptedLanguages(null)).toEqual([]);
    expect(acceptedLanguages("")).toEqual([]);
    expect(acceptedLanguages("en;q=oops, ko")).toEqual(["ko"]);
  });
});

describe("the board's first paint", () => {
  test("holds the first cards with their values, in the language asked for, without style attributes and with controls disabled", async () => {
    const now = Date.parse("2026-11-27T12:00:00Z");
    const hub = testHub({ now: () => now });
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 1000, { survivor: 0, killer: 75, ratio: 0.4 }))).status).toBe(201);
    const paint = firstPaints({ ...hub.ctx, now: () => now });
    const english = await paint("/Windows", "", "en-GB,en;q=0.9");
    expect(english?.lang).toBe("en");
    const html = english?.html ?? "";
    expect(html).toContain('aria-labelledby="card-eu-west-1"');
    expect(html).toContain("+75");
    expect(html).toContain("Killer bonus");
    expect(html.match(/<article class="card/g)?.length).toBeLessThanOrEqual(FIRST_CARDS);
    expect(html).not.toMatch(/ style="/);
    expect(html).not.toMatch(/<(button|select)(?![^>]*\bdisabled\b)[^>]*>/);
    // The viewer's region is the browser's to find: the answer line keeps its place, busy.
    expect(html).toContain('class="answer answer-pending"');
    const french = await paint("/Windows", "", "fr-FR,fr;q=0.9");
    expect(french?.lang).toBe("fr");
    expect(french?.html).toContain("Tueur");
    // "/" shows the first covered platform, as the app does for a viewer who has not picked one.
    expect((await paint("/", "", null))?.html).toContain('aria-labelledby="card-eu-west-1"');
    // The query is the board's: sorted by bonus, the link to the sort is kept canonical.
    expect((await paint("/Windows", "?sort=bonus&junk=1", null))?.key).toContain("?sort=bonus");
  });

  test("only board pages get one, and none while the site gate is on or before the hub has an agent", async () => {
    const hub = testHub();
    const paint = firstPaints(hub.ctx);
    // A fresh hub: the app shows its first steps, which depend on who is looking.
    expect(await paint("/", "", null)).toBeNull();
    expect(await paint("/Windows", "", null)).toBeNull();
    addAgent(hub, "eu-west-1");
    for (const path of ["/login", "/Windows/eu-west-1", "/admin/agents", "/contribute", "/Windows/eu-west-1/more"]) expect(await paint(path, "", null)).toBeNull();
    expect(await paint("/Windows", "", null)).not.toBeNull();
    hub.ctx.settings.update({ requireAuth: true });
    expect(await paint("/Windows", "", null)).toBeNull();
    expect(await paint("/", "", null)).toBeNull();
  });

  test("is rendered again when the payload changed, at most once a second, and at least every ten seconds", async () => {
    let now = Date.parse("2026-11-27T12:00:00Z");
    const hub = testHub({ now: () => now });
    const agent = addAgent(hub, "eu-west-1", "steam", { pollMin: "0", pollMax: "3600" });
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 1000, { survivor: 0, killer: 25, ratio: 0.8 }))).status).toBe(201);
    const paint = firstPaints({ ...hub.ctx, now: () => now });
    const first = await paint("/Windows", "", null);
    expect(first?.html).toContain("+25");
    now += 100;
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 50, { survivor: 0, killer: 100, ratio: 0.3 }))).status).toBe(201);
    // Within the second: the same paint, though the payload changed.
    expect(await paint("/Windows", "", null)).toBe(first);
    now += FIRST_PAINT_MIN_AGE_MS;
    const second = await paint("/Windows", "", null);
    expect(second?.html).toContain("+100");
    // Unchanged payload: kept until the relative times need writing again.
    now += FIRST_PAINT_MIN_AGE_MS;
    expect(await paint("/Windows", "", null)).toBe(second);
    now += FIRST_PAINT_MAX_AGE_MS;
    const third = await paint("/Windows", "", null);
    expect(third).not.toBe(second);
    expect(third?.key).not.toBe(second?.key);
  });
});

describe("the first paint through the page's route", () => {
  test("is loaded on first use, and a first paint that fails leaves the page as it was, with one error line", async () => {
    const hub = testHub();
    addAgent(hub, "eu-west-1");
    const { log, lines } = memoryLog();
    expect(await lazyFirstPaints({ ...hub.ctx, log })("/Windows", "", null)).not.toBeNull();
    const broken = new Proxy(hub.ctx.live, {
      get: (target, key) => (key === "current" ? () => { throw new Error("payload unavailable"); } : Reflect.get(target, key)),
    }) as LiveStore;
    const paint = lazyFirstPaints({ ...hub.ctx, live: broken, log });
    expect(await paint("/Windows", "", null)).toBeNull();
    expect(await paint("/EGS", "", null)).toBeNull();
    expect(lines.filter((line) => line.level === "error" && String(line.msg).includes("first paint"))).toHaveLength(1);
  });
});

describe("one render per normalised input (SPEC §16.3)", () => {
  test("spellings of q that differ in case and spaces, made-up pages past the last, and spellings of the path reuse one render", async () => {
    const now = Date.parse("2026-11-27T12:00:00Z");
    const hub = testHub({ now: () => now });
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 1000, { killer: 75 }))).status).toBe(201);
    const paint = firstPaints({ ...hub.ctx, now: () => now });
    const first = await paint("/Windows", "?q=eu+west", null);
    expect(first).not.toBeNull();
    for (const search of ["?q=EU+West", "?q=%20%20eu%20%20%20WEST%20", "?q=eu%09west", "?q=Eu+wEsT&page=1"]) expect(await paint("/Windows", search, null)).toBe(first);
    // One page of regions: every page asked for past it is that page.
    const board = await paint("/Windows", "", null);
    for (const search of ["?page=2", "?page=99999", "?page=12345678901"]) expect(await paint("/Windows", search, null)).toBe(board);
    for (const path of ["/Windows/", "//Windows"]) expect(await paint(path, "", null)).toBe(board);
    // A path that is not even percent-encoding is no board and no error.
    expect(await paint("/Windows/%E0%A4%A", "", null)).toBeNull();
    // The normalised query is the one rendered: it still finds the region.
    expect(first?.key).toContain("?q=eu+west\n");
    expect(first?.html).toContain('aria-labelledby="card-eu-west-1"');
  });

  test("made-up paths share one head instead of building one each", async () => {
    const hub = testHub();
    addAgent(hub, "eu-west-1");
    const head = pageHeads(hub.ctx);
    const keys = new Set(["/admin/a1", "/admin/b2", "/Windows/xx-nowhere-1", "/Windows/yy-nowhere-2", "/EGS/%41", "/Windows/eu-west-1/more"].map((path) => head(path).key));
    expect(keys.size).toBe(1);
    // Known pages keep their own.
    expect(new Set(["/", "/Windows", "/Windows/eu-west-1", "/EGS", "/login"].map((path) => head(path).key)).size).toBe(5);
    expect(head("/Windows/xx-nowhere-1").head).toBe(head("/admin/zzz").head);
  });
});
