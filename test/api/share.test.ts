/** Badges, feeds, robots.txt and the sitemap (SPEC §19), in-process. */
import { describe, expect, test } from "bun:test";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminHub } from "../admin-helpers.ts";
import { call, tempDir, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const T0 = Date.parse("2026-11-21T18:00:00.000Z");
const MINUTE = 60_000;
/** Readings of one agent must be minutes apart (the cadence rules). */
const STEP = 10 * MINUTE;

function setup(env: Record<string, string> = {}) {
  let now = T0;
  const hub = testHub({ now: () => now, env: { ORIGIN: "https://hub.example.org", ...env } });
  return { hub, advance: (ms: number) => (now += ms), now: () => now };
}

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", isArray: (name) => ["entry", "link", "url"].includes(name) });

function parseXml(text: string): Record<string, unknown> {
  expect(XMLValidator.validate(text)).toBe(true);
  return xml.parse(text) as Record<string, unknown>;
}

describe("badges", () => {
  test("the SVG names the leading role in its colour, is valid XML without script, and carries the badge CSP, caching and an ETag", async () => {
    const { hub } = setup();
    const agent = addAgent(hub, "eu-central-1");
    expect((await post(hub, agent, reading("Windows", "eu-central-1", T0, { killer: 75, survivor: 0 }))).status).toBeLessThan(300);
    const response = await call(hub, "GET", "/badge/Windows/eu-central-1.svg");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = response.headers.get("etag");
    expect(etag).toBeTruthy();
    const text = await response.text();
    const svg = parseXml(text).svg as Record<string, unknown>;
    expect(svg["@xmlns"]).toBe("http://www.w3.org/2000/svg");
    expect(text).not.toMatch(/<script|on[a-z]+=|javascript:/i);
    expect(text).toContain("Killer +75 %");
    expect(text).toContain("EU Central (Frankfurt)");
    expect(text).toContain("#b0271d");
    const again = await call(hub, "GET", "/badge/Windows/eu-central-1.svg", { headers: { "if-none-match": etag ?? "" } });
    expect(again.status).toBe(304);
  });

  test("?label= replaces the left text, escaped; over 40 characters is a 400", async () => {
    const { hub } = setup();
    const agent = addAgent(hub, "eu-central-1");
    await post(hub, agent, reading("Windows", "eu-central-1", T0, { killer: 0, survivor: 25 }));
    const label = `<script>alert("x")</script>&`;
    const response = await call(hub, "GET", `/badge/Windows/eu-central-1.svg?label=${encodeURIComponent(label)}`);
    const text = await response.text();
    expect(text).not.toContain("<script>");
    expect(text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;");
    const svg = parseXml(text).svg as Record<string, unknown>;
    expect(svg.script).toBeUndefined();
    expect(text).toContain("Survivor +25 %");
    expect((await call(hub, "GET", `/badge/Windows/eu-central-1.svg?label=${"x".repeat(41)}`)).status).toBe(400);
    expect((await call(hub, "GET", `/badge/Windows/eu-central-1.svg?label=${"x".repeat(40)}`)).status).toBe(200);
  });

  test("grey and stale once the reading is stale; the JSON follows the shields.io endpoint schema", async () => {
    const { hub, advance } = setup();
    const agent = addAgent(hub, "eu-central-1");
    await post(hub, agent, reading("Windows", "eu-central-1", T0, { killer: 75 }));
    const fresh = await (await call(hub, "GET", "/badge/Windows/eu-central-1.json")).json();
    expect(fresh).toEqual({ schemaVersion: 1, label: "EU Central (Frankfurt)", message: "Killer +75 %", color: "b0271d" });
    advance(60 * MINUTE);
    const stale = await call(hub, "GET", "/badge/Windows/eu-central-1.json?label=DbD");
    expect(await stale.json()).toEqual({ schemaVersion: 1, label: "DbD", message: "stale", color: "9f9f9f" });
    const svg = await (await call(hub, "GET", "/badge/Windows/eu-central-1.svg")).text();
    expect(svg).toContain(">stale<");
    expect(svg).toContain("#9f9f9f");
  });

  test("unknown platforms, regions and suffixes are 404s", async () => {
    const { hub } = setup();
    addAgent(hub, "eu-central-1");
    for (const path of ["/badge/PS5/eu-central-1.svg", "/badge/Windows/xx-nowhere-1.svg", "/badge/Windows/eu-central-1.png", "/badge/Windows/us-east-1.svg"]) {
      expect({ path, status: (await call(hub, "GET", path)).status }).toEqual({ path, status: 404 });
    }
  });

  test("under requireAuth a badge is a 401 like the other reads", async () => {
    const { hub } = setup({ REQUIRE_AUTH: "true" });
    addAgent(hub, "eu-central-1");
    expect((await call(hub, "GET", "/badge/Windows/eu-central-1.svg")).status).toBe(401);
    expect((await call(hub, "GET", "/feeds/Windows.atom")).status).toBe(401);
  });
});

interface AtomEntry {
  id: string;
  title: string;
  updated: string;
  link: { "@href": string }[];
}

describe("feeds", () => {
  async function fill() {
    const ctx = setup();
    const { hub, advance, now } = ctx;
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const other = addAgent(hub, "us-east-1", "steam", { pollMin: "30" });
    const event = { key: "bp-2x", label: "Double <Bloodpoints>", multiplier: 2, startsAt: new Date(T0).toISOString(), endsAt: new Date(T0 + 86_400_000).toISOString() };
    // killer 25 (below 50: nothing), 50 (reaches), 50 (same: nothing), 75 (changes), 25 (drops: nothing), 100 (reaches again).
    for (const killer of [25, 50, 50, 75, 25, 100]) {
      expect((await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer, survivor: 0 }))).status).toBeLessThan(300);
      advance(STEP);
    }
    await post(hub, other, reading("Windows", "us-east-1", now(), { killer: 0, survivor: 60, activeEvent: event }));
    advance(STEP);
    await post(hub, other, reading("Windows", "us-east-1", now(), { killer: 0, survivor: 60, activeEvent: event }));
    return ctx;
  }

  test("a region's feed: valid Atom, entries when a bonus reaches min or changes at or above it, newest first, stable tag ids, links to the region page", async () => {
    const { hub } = await fill();
    const response = await call(hub, "GET", "/feeds/Windows/eu-central-1.atom");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/atom+xml; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    const text = await response.text();
    const feed = parseXml(text).feed as { "@xmlns": string; id: string; updated: string; title: string; entry: AtomEntry[] };
    expect(feed["@xmlns"]).toBe("http://www.w3.org/2005/Atom");
    expect(feed.entry.map((e) => e.title)).toEqual([
      "EU Central (Frankfurt), Steam: Killer +100 % now",
      "EU Central (Frankfurt), Steam: Killer +75 % now",
      "EU Central (Frankfurt), Steam: Killer +50 % now",
      // The platform's event, seen in another region's readings, is the region's too.
      "Steam: Double <Bloodpoints> starts: ×2 bloodpoints",
    ]);
    expect(feed.updated).toBe(feed.entry[0]?.updated ?? "");
    for (const entry of feed.entry.filter((e) => !e.title.includes("starts"))) {
      expect(entry.id).toMatch(/^tag:hub\.example\.org,2026-11-21:Windows\/eu-central-1\/reading\/\d+\/killer$/);
      expect(entry.link[0]?.["@href"]).toBe("https://hub.example.org/Windows/eu-central-1");
      expect(Number.isNaN(Date.parse(entry.updated))).toBe(false);
    }
    const again = parseXml(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom")).text()).feed as { entry: AtomEntry[] };
    expect(again.entry.map((e) => e.id)).toEqual(feed.entry.map((e) => e.id));
    const low = parseXml(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom?min=20")).text()).feed as { entry: AtomEntry[] };
    expect(low.entry.map((e) => e.title.replace(/^.*Killer /, ""))).toEqual(["+100 % now", "+25 % now", "+75 % now", "+50 % now", "Steam: Double <Bloodpoints> starts: ×2 bloodpoints", "+25 % now"]);
  });

  test("the platform feed adds other regions and event starts, escaped, once per event", async () => {
    const { hub } = await fill();
    const text = await (await call(hub, "GET", "/feeds/Windows.atom")).text();
    expect(text).toContain("Double &lt;Bloodpoints&gt; starts");
    const feed = parseXml(text).feed as { entry: AtomEntry[] };
    const titles = feed.entry.map((e) => e.title);
    expect(titles.filter((t) => t.includes("starts"))).toEqual(["Steam: Double <Bloodpoints> starts: ×2 bloodpoints"]);
    expect(titles).toContain("US East (N. Virginia), Steam: Survivor +60 % now");
    expect(titles).toHaveLength(5);
  });

  test("at most 50 entries; min outside 0–1000 or not an integer is a 400; unknown names 404", async () => {
    const { hub, advance, now } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    for (let i = 0; i < 60; i++) {
      await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 50 + (i % 2) * 25 }));
      advance(STEP);
    }
    const feed = parseXml(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom")).text()).feed as { entry: AtomEntry[] };
    expect(feed.entry).toHaveLength(50);
    for (const min of ["-1", "1001", "abc", "1.5"]) expect((await call(hub, "GET", `/feeds/Windows.atom?min=${min}`)).status).toBe(400);
    expect((await call(hub, "GET", "/feeds/Windows.atom?min=1000")).status).toBe(200);
    for (const path of ["/feeds/PS5.atom", "/feeds/Windows.rss", "/feeds/Windows/xx-nowhere-1.atom"]) expect((await call(hub, "GET", path)).status).toBe(404);
  });
});

describe("feed cache", () => {
  test("a feed is built again only when the platform's revision moves", async () => {
    const { hub, now, advance } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 75 }));
    const first = await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom")).text();
    // A row written behind the live store's back leaves the revision alone, so the feed is the cached one.
    hub.ctx.db.sqlite
      .query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-central-1', 0, 100, 1, ?, ?)")
      .run(now() + 1000, now() + 1000);
    expect(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom")).text()).toBe(first);
    advance(STEP);
    expect((await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 50 }))).status).toBe(201);
    const after = await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom")).text();
    expect(after).toContain("Killer +100 % now");
    expect(after).not.toBe(first);
  });
});

describe("feed builds", () => {
  /** "build" when the request brought the platform's entries up to its revision, "cache" when it only filtered them. */
  const builtBy = (response: Response): string => (response.headers.get("server-timing") ?? "").split(";")[0] ?? "";

  test("distinct min values, and the region feeds, filter one build per revision instead of building again", async () => {
    const { hub, advance, now } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    for (const killer of [25, 50, 75, 100]) {
      await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer }));
      advance(STEP);
    }
    const kinds: string[] = [];
    for (let min = 0; min <= 1000; min += 25) kinds.push(builtBy(await call(hub, "GET", `/feeds/Windows.atom?min=${min}`)));
    for (let min = 0; min <= 120; min += 7) kinds.push(builtBy(await call(hub, "GET", `/feeds/Windows/eu-central-1.atom?min=${min}`)));
    expect(kinds.filter((k) => k === "build")).toHaveLength(1);
    expect(kinds.filter((k) => k === "cache")).toHaveLength(kinds.length - 1);
    // Each min still gets its own entries out of the one build.
    const titles = async (min: number) => ((parseXml(await (await call(hub, "GET", `/feeds/Windows/eu-central-1.atom?min=${min}`)).text()).feed as { entry?: AtomEntry[] }).entry ?? []).map((e) => e.title.replace(/^.*Killer /, ""));
    expect(await titles(0)).toEqual(["+100 % now", "+75 % now", "+50 % now", "+25 % now"]);
    expect(await titles(60)).toEqual(["+100 % now", "+75 % now"]);
    expect(await titles(1000)).toEqual([]);
    await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 150 }));
    const after: string[] = [];
    for (const min of [0, 1, 2, 3, 140]) after.push(builtBy(await call(hub, "GET", `/feeds/Windows.atom?min=${min}`)));
    expect(after).toEqual(["build", "cache", "cache", "cache", "cache"]);
    expect(await titles(140)).toEqual(["+150 % now"]);
  });

  test("filtering one build gives every min the entries a build for that min alone would give, past the 50-entry cut", async () => {
    const { hub, advance, now } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const other = addAgent(hub, "us-east-1", "steam", { pollMin: "30" });
    const values = [0, 25, 50, 75, 100, 150, 200, 300, 999];
    const posted: { region: string; role: "killer" | "survivor"; value: number }[] = [];
    const last = new Map<string, number>();
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 160; i++) {
      const [who, region] = i % 3 === 0 ? [other, "us-east-1"] : [agent, "eu-central-1"];
      const killer = values[next() % values.length] ?? 0;
      const survivor = values[next() % 4] ?? 0;
      expect((await post(hub, who, reading("Windows", region, now(), { killer, survivor }))).status).toBe(201);
      for (const [role, value] of [["killer", killer], ["survivor", survivor]] as const) {
        const key = `${region}/${role}`;
        if (value !== (last.get(key) ?? 0)) posted.push({ region, role, value });
        last.set(key, value);
      }
      advance(STEP);
    }
    // The reference: every change, newest first, the first 50 at or above min.
    const expected = (min: number, region: string | null) =>
      posted
        .filter((c) => c.value >= min && (region === null || c.region === region))
        .reverse()
        .slice(0, 50)
        .map((c) => `${c.region}/${c.role}/+${c.value} %`);
    const seen = (feed: { entry?: AtomEntry[] }) =>
      (feed.entry ?? []).map((e) => {
        const match = /reading\/\d+\/(killer|survivor)$/.exec(e.id);
        const region = e.link[0]?.["@href"].split("/").pop() ?? "";
        return `${region}/${match?.[1] ?? ""}/${/\+\d+ %/.exec(e.title)?.[0] ?? ""}`;
      });
    for (const min of [0, 1, 25, 26, 50, 99, 100, 150, 200, 250, 300, 999, 1000]) {
      const platform = parseXml(await (await call(hub, "GET", `/feeds/Windows.atom?min=${min}`)).text()).feed as { entry?: AtomEntry[] };
      expect({ min, entries: seen(platform) }).toEqual({ min, entries: expected(min, null) });
      const region = parseXml(await (await call(hub, "GET", `/feeds/Windows/eu-central-1.atom?min=${min}`)).text()).feed as { entry?: AtomEntry[] };
      expect({ min, entries: seen(region) }).toEqual({ min, entries: expected(min, "eu-central-1") });
    }
  });
});

describe("feed views follow the stored readings", () => {
  const killers = async (hub: ReturnType<typeof setup>["hub"]) =>
    ((parseXml(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom?min=0")).text()).feed as { entry?: AtomEntry[] }).entry ?? []).map((e) => e.title.replace(/^.*Killer /, ""));

  test("a reading stored late, measured before the newest, takes its place in time order", async () => {
    let now = T0;
    const { hub } = await adminHub({}, () => now);
    const early = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const late = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const entries = async () =>
      ((parseXml(await (await call(hub, "GET", "/feeds/Windows/eu-central-1.atom?min=0")).text()).feed as { entry?: AtomEntry[] }).entry ?? []).map((e) => [e.title.replace(/^.*Killer /, ""), e.updated]);
    const at = (ms: number) => new Date(ms).toISOString();
    expect((await post(hub, early, reading("Windows", "eu-central-1", now, { killer: 25 }))).status).toBe(201);
    now += STEP;
    expect((await post(hub, early, reading("Windows", "eu-central-1", now, { killer: 50 }))).status).toBe(201);
    expect(await entries()).toEqual([["+50 % now", at(T0 + STEP)], ["+25 % now", at(T0)]]);
    // Measured between the two, stored after both: the bonus reached 50 % earlier than the feed knew.
    expect((await post(hub, late, reading("Windows", "eu-central-1", T0 + STEP / 2, { killer: 50 }))).status).toBeLessThan(300);
    now += STEP;
    expect((await post(hub, early, reading("Windows", "eu-central-1", now, { killer: 75 }))).status).toBe(201);
    expect(await entries()).toEqual([["+75 % now", at(T0 + 2 * STEP)], ["+50 % now", at(T0 + STEP / 2)], ["+25 % now", at(T0)]]);
  });

  test("deleted readings leave the feed", async () => {
    let now = T0;
    const { hub, admin } = await adminHub({}, () => now);
    const kept = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const dropped = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    expect((await post(hub, kept, reading("Windows", "eu-central-1", now, { killer: 25 }))).status).toBe(201);
    now += STEP;
    expect((await post(hub, dropped, reading("Windows", "eu-central-1", now, { killer: 150 }))).status).toBe(201);
    expect(await killers(hub)).toEqual(["+150 % now", "+25 % now"]);
    expect((await admin.json("DELETE", `/api/v1/admin/agents/${dropped.id}/readings`)).status).toBe(200);
    expect(await killers(hub)).toEqual(["+25 % now"]);
  });
});

describe("feeds list the schedule", () => {
  test("an admin's event has one entry once its start passes, with no reading after it, in the platform and the region feeds", async () => {
    let now = T0;
    const { hub, admin } = await adminHub({}, () => now);
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const other = addAgent(hub, "us-east-1", "steam", { pollMin: "30" });
    await post(hub, agent, reading("Windows", "eu-central-1", now, { killer: 75 }));
    await post(hub, other, reading("Windows", "us-east-1", now, { killer: 75 }));
    const startsAt = T0 + 60 * MINUTE;
    const created = await admin.json("POST", "/api/v1/admin/events", { key: "bp-3x", label: "Triple <BP>", multiplier: 3, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(startsAt + 86_400_000).toISOString() });
    expect(created.status).toBe(201);
    const eventTitles = async (path: string) => ((parseXml(await (await call(hub, "GET", path)).text()).feed as { entry?: AtomEntry[] }).entry ?? []).filter((e) => e.title.includes("starts"));
    expect(await eventTitles("/feeds/Windows.atom")).toEqual([]);
    now = startsAt + 1000;
    const listed = await eventTitles("/feeds/Windows.atom");
    expect(listed.map((e) => e.title)).toEqual(["Steam: Triple <BP> starts: ×3 bloodpoints"]);
    expect(listed[0]?.updated).toBe(new Date(startsAt).toISOString());
    expect(new URL(listed[0]?.link[0]?.["@href"] ?? "").pathname).toBe("/Windows");
    const inRegion = await eventTitles("/feeds/Windows/eu-central-1.atom");
    expect(inRegion.map((e) => e.id)).toEqual(listed.map((e) => e.id));
    expect(new URL(inRegion[0]?.link[0]?.["@href"] ?? "").pathname).toBe("/Windows/eu-central-1");
    // The readings that carry it in two regions add no second entry.
    const event = { key: "bp-3x", label: "Triple <BP>", multiplier: 3, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(startsAt + 86_400_000).toISOString() };
    await post(hub, agent, reading("Windows", "eu-central-1", now, { killer: 75, activeEvent: event }));
    await post(hub, other, reading("Windows", "us-east-1", now, { killer: 75, activeEvent: event }));
    now += STEP;
    expect((await eventTitles("/feeds/Windows.atom")).map((e) => e.id)).toEqual(listed.map((e) => e.id));
    expect(await eventTitles("/feeds/EGS.atom")).toHaveLength(1);
  });

  test("an event from an agent's report has one entry once its start passes, with no reading after it", async () => {
    const { hub, advance, now } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 75 }));
    const startsAt = now() + 60 * MINUTE;
    const event = { key: "bp-report", label: "Reported **BP**", multiplier: 2, startsAt: new Date(startsAt).toISOString(), endsAt: new Date(startsAt + 2 * 86_400_000).toISOString() };
    const reported = await call(hub, "POST", "/api/v1/agent/events", { body: { events: [event] }, headers: { authorization: `Bearer ${agent.token}` } });
    expect(reported.status).toBe(204);
    const started = async (platform: string) => ((parseXml(await (await call(hub, "GET", `/feeds/${platform}.atom`)).text()).feed as { entry?: AtomEntry[] }).entry ?? []).filter((e) => e.title.includes("starts"));
    expect(await started("Windows")).toEqual([]);
    advance(61 * MINUTE);
    for (const platform of ["Windows", "GRDK"]) {
      const entries = await started(platform);
      expect(entries.map((e) => [e.title.replace(/^[^:]*: /, ""), e.updated])).toEqual([["Reported **BP** starts: ×2 bloodpoints", event.startsAt]]);
    }
  });

  test("an event seen only in readings of two regions has one entry, dated at its start", async () => {
    const { hub, advance, now } = setup();
    const agent = addAgent(hub, "eu-central-1", "steam", { pollMin: "30" });
    const other = addAgent(hub, "us-east-1", "steam", { pollMin: "30" });
    const event = { key: "bp-2x", label: "Double", multiplier: 2, startsAt: new Date(T0 - 30 * MINUTE).toISOString(), endsAt: new Date(T0 + 86_400_000).toISOString() };
    for (let i = 0; i < 2; i++) {
      await post(hub, agent, reading("Windows", "eu-central-1", now(), { killer: 75, activeEvent: event }));
      await post(hub, other, reading("Windows", "us-east-1", now(), { killer: 75, activeEvent: event }));
      advance(STEP);
    }
    const entries = ((parseXml(await (await call(hub, "GET", "/feeds/Windows.atom")).text()).feed as { entry: AtomEntry[] }).entry ?? []).filter((e) => e.title.includes("starts"));
    expect(entries.map((e) => [e.title, e.updated])).toEqual([["Steam: Double starts: ×2 bloodpoints", event.startsAt]]);
  });
});

describe("robots.txt and the sitemap", () => {
  test("SEO off: robots.txt refuses everything and there is no sitemap", async () => {
    const { hub } = setup();
    const robots = await call(hub, "GET", "/robots.txt");
    expect(await robots.text()).toBe("User-agent: *\nDisallow: /\n");
    expect((await call(hub, "GET", "/sitemap.xml")).status).toBe(404);
  });

  test("SEO on: robots.txt allows all but the API and account pages and names the sitemap, which lists the board, platforms and covered regions", async () => {
    const { hub } = setup({ SEO_ENABLED: "true" });
    addAgent(hub, "eu-central-1");
    addAgent(hub, "us-east-1", "epic");
    const robots = await (await call(hub, "GET", "/robots.txt")).text();
    const lines = robots.split("\n");
    expect(lines).toContain("Allow: /");
    for (const path of ["/api/", "/admin", "/account", "/login", "/setup"]) expect(lines).toContain(`Disallow: ${path}`);
    expect(lines).not.toContain("Disallow: /");
    expect(lines).toContain("Sitemap: https://hub.example.org/sitemap.xml");
    const sitemap = await call(hub, "GET", "/sitemap.xml");
    expect(sitemap.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const urls = (parseXml(await sitemap.text()).urlset as { url: { loc: string }[] }).url.map((u) => u.loc);
    expect(urls).toEqual([
      "https://hub.example.org/",
      "https://hub.example.org/Windows",
      "https://hub.example.org/Windows/eu-central-1",
      "https://hub.example.org/EGS",
      "https://hub.example.org/EGS/us-east-1",
      "https://hub.example.org/GRDK",
    ]);
  });
});

describe("embed headers", () => {
  test("only the embeds let other origins frame them (EMBED_ANCESTORS, default *) and omit X-Frame-Options; the API keeps DENY", async () => {
    const { hub } = setup();
    addAgent(hub, "eu-central-1");
    for (const path of ["/embed/Windows", "/embed/Windows/eu-central-1"]) {
      const response = await call(hub, "GET", path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors *");
      expect(response.headers.get("x-frame-options")).toBeNull();
    }
    expect((await call(hub, "GET", "/api/v1/meta")).headers.get("x-frame-options")).toBe("DENY");
    const limited = setup({ EMBED_ANCESTORS: "https://clan.example.org, https://b.example.org" }).hub;
    addAgent(limited, "eu-central-1");
    const response = await call(limited, "GET", "/embed/Windows/eu-central-1");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors https://clan.example.org https://b.example.org");
    expect((await call(limited, "GET", "/embed/Windows/xx-nowhere-1")).status).toBe(404);
  });

  test("under https the finisher still leaves X-Frame-Options off the embeds only", async () => {
    const { hub } = setup({ ORIGIN: "https://hub.example.org" });
    addAgent(hub, "eu-central-1");
    expect((await call(hub, "GET", "/embed/Windows")).headers.get("x-frame-options")).toBeNull();
    expect((await call(hub, "GET", "/badge/Windows/eu-central-1.svg")).headers.get("x-frame-options")).toBe("DENY");
  });

  test("region names from the catalogue are escaped in the embed", async () => {
    const dir = tempDir();
    const file = join(dir.path, "hub.json");
    writeFileSync(file, JSON.stringify({ regions: [{ id: "xx-evil-1", name: `<img src=x onerror="alert(1)">`, tz: "UTC" }] }));
    const hub = testHub({ argv: ["--config", file] });
    dir.cleanup();
    addAgent(hub, "xx-evil-1");
    const html = await (await call(hub, "GET", "/embed/Windows")).text();
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
  });
});
