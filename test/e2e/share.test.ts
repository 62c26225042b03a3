/**
 * Sharing through dist/hub (SPEC §19): the page heads a crawler reads in the
 * raw HTML, the link-preview pictures decoded and sampled and rendered once
 * per revision, badges and feeds, under both SEO settings and the read gate.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { HTML_CSP } from "../../src/http/security.ts";
import { tempDir } from "../helpers.ts";
import { decodePng } from "../png.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const TOKEN = "share-e2e-token-aaaaaaaaaaaaaa";
const ORIGIN = "https://hub.example.org";
const dirs: { cleanup: () => void }[] = [];
let binary = "";

beforeAll(async () => {
  binary = await compiledHub();
}, 120_000);
afterAll(() => {
  for (const dir of dirs) dir.cleanup();
});

async function start(env: Record<string, string> = {}): Promise<RunningHub> {
  const dir = tempDir("hub-share-");
  dirs.push(dir);
  return await startHub({ cmd: [binary], cwd: dir.path, args: ["--db", join(dir.path, "hub.db")], env: { ORIGIN, PROVISION_AGENTS: `fra:${TOKEN}:eu-central-1:steam`, ...env } });
}

async function postReading(hub: RunningHub, killer: number, survivor = 0): Promise<void> {
  const body = JSON.stringify({ region: "eu-central-1", platform: "Windows", survivor, killer, ratio: 0.5, isReal: true, measuredAt: new Date().toISOString() });
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body });
  expect(response.status).toBe(201);
}

/** The <head> as a crawler gets it: raw HTML, no script run. */
async function headOf(hub: RunningHub, path: string): Promise<{ title: string; meta: Map<string, string>; html: string }> {
  const html = await (await fetch(`${hub.url}${path}`)).text();
  const head = html.slice(0, html.indexOf("</head>"));
  const meta = new Map<string, string>();
  for (const match of head.matchAll(/<meta (?:name|property)="([^"]+)" content="([^"]*)"/g)) meta.set(match[1] ?? "", match[2] ?? "");
  return { title: /<title>([^<]*)<\/title>/.exec(head)?.[1] ?? "", meta, html: head };
}

const unescape = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");

describe("link previews through dist/hub", () => {
  test("each board page carries its own title, description and Open Graph tags with the live value; SEO off says noindex", async () => {
    const hub = await start();
    try {
      await postReading(hub, 75);
      const region = await headOf(hub, "/Windows/eu-central-1");
      expect(region.title).toBe("EU Central (Frankfurt), Steam: Killer +75 % now");
      expect((await fetch(`${hub.url}/Windows/eu-central-1`)).headers.get("content-security-policy")).toBe(HTML_CSP);
      expect(region.meta.get("og:title")).toBe(region.title);
      expect(unescape(region.meta.get("description") ?? "")).toContain("Killer +75 % now");
      expect(region.meta.get("og:url")).toBe(`${ORIGIN}/Windows/eu-central-1`);
      expect(region.meta.get("og:image")).toBe(`${ORIGIN}/og/Windows/eu-central-1.png`);
      expect(region.meta.get("og:image:width")).toBe("1200");
      expect(region.meta.get("og:image:height")).toBe("630");
      expect(region.meta.get("twitter:card")).toBe("summary_large_image");
      expect(region.meta.get("robots")).toBe("noindex");
      expect(region.html).not.toContain('rel="canonical"');
      const platform = await headOf(hub, "/Windows");
      expect(platform.meta.get("og:image")).toBe(`${ORIGIN}/og/Windows.png`);
      expect(unescape(platform.meta.get("og:description") ?? "")).toContain("EU Central (Frankfurt): Killer +75 %");
      const board = await headOf(hub, "/");
      expect(board.meta.get("og:image")).toBe(`${ORIGIN}/og/Windows.png`);
      await postReading(hub, 0, 50);
      expect((await headOf(hub, "/Windows/eu-central-1")).title).toBe("EU Central (Frankfurt), Steam: Survivor +50 % now");
      expect(await (await fetch(`${hub.url}/robots.txt`)).text()).toBe("User-agent: *\nDisallow: /\n");
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("SEO on: canonical links, JSON-LD WebSite on the board, no noindex, a sitemap", async () => {
    const hub = await start({ SEO_ENABLED: "true" });
    try {
      const region = await headOf(hub, "/Windows/eu-central-1");
      expect(region.html).toContain(`<link rel="canonical" href="${ORIGIN}/Windows/eu-central-1" />`);
      expect(region.meta.has("robots")).toBe(false);
      const board = await headOf(hub, "/");
      const ld = /<script type="application\/ld\+json">([^<]*)<\/script>/.exec(board.html)?.[1] ?? "{}";
      expect(JSON.parse(ld)).toEqual({ "@context": "https://schema.org", "@type": "WebSite", name: "Bloodpoint incentives", url: `${ORIGIN}/` });
      expect(await (await fetch(`${hub.url}/sitemap.xml`)).text()).toContain(`<loc>${ORIGIN}/Windows/eu-central-1</loc>`);
      expect(await (await fetch(`${hub.url}/robots.txt`)).text()).toContain("Disallow: /admin");
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("under requireAuth previews show only the site name and the shared reads answer 401", async () => {
    const hub = await start({ REQUIRE_AUTH: "true" });
    try {
      await postReading(hub, 75);
      const region = await headOf(hub, "/Windows/eu-central-1");
      expect(region.title).toBe("Bloodpoint incentives");
      expect(region.html).not.toContain("+75");
      expect(region.meta.has("og:image")).toBe(false);
      for (const path of ["/og/Windows/eu-central-1.png", "/og/Windows.png", "/og.png", "/badge/Windows/eu-central-1.svg", "/badge/Windows/eu-central-1.json", "/feeds/Windows.atom", "/feeds/Windows/eu-central-1.atom"]) {
        expect({ path, status: (await fetch(`${hub.url}${path}`)).status }).toEqual({ path, status: 401 });
      }
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("feeds: every min filters one build per revision; made-up paths share one head (SPEC §16.3)", async () => {
    const hub = await start();
    try {
      await postReading(hub, 75);
      const kinds: string[] = [];
      for (let min = 0; min <= 1000; min += 40) {
        const response = await fetch(`${hub.url}/feeds/Windows.atom?min=${min}`);
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text.includes("Killer +75 % now")).toBe(min <= 75);
        kinds.push((response.headers.get("server-timing") ?? "").split(";")[0] ?? "");
      }
      expect(kinds.filter((k) => k === "build")).toHaveLength(1);
      expect((await fetch(`${hub.url}/feeds/Windows.atom?min=1001`)).status).toBe(400);
      const heads = await Promise.all(["/admin/x1", "/admin/x2", "/Windows/xx-nowhere-1"].map(async (path) => (await headOf(hub, path)).html));
      expect(new Set(heads).size).toBe(1);
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("the region picture is a 1200×630 PNG in the role's colour, rendered once per revision, cached with the revision as ETag", async () => {
    const hub = await start();
    try {
      await postReading(hub, 75);
      const first = await fetch(`${hub.url}/og/Windows/eu-central-1.png`);
      expect(first.status).toBe(200);
      expect(first.headers.get("content-type")).toBe("image/png");
      expect(first.headers.get("cache-control")).toBe("public, max-age=60");
      expect(first.headers.get("server-timing")).toStartWith("render;");
      const etag = first.headers.get("etag") ?? "";
      const png = decodePng(new Uint8Array(await first.arrayBuffer()));
      expect([png.width, png.height]).toEqual([1200, 630]);
      // The killer row's bar (x 64–80, around y 340–400) is the killer colour; the survivor row's bar is grey (no bonus).
      expect(png.pixel(70, 370)).toEqual([0xff, 0x7a, 0x70, 255]);
      expect(png.pixel(70, 270)).toEqual([0x7d, 0x83, 0x90, 255]);
      expect(png.pixel(600, 620)).toEqual([0x15, 0x17, 0x1c, 255]);
      const again = await fetch(`${hub.url}/og/Windows/eu-central-1.png`);
      expect(again.headers.get("server-timing")).toStartWith("cache;");
      expect(again.headers.get("etag")).toBe(etag);
      expect((await fetch(`${hub.url}/og/Windows/eu-central-1.png`, { headers: { "if-none-match": etag } })).status).toBe(304);
      await postReading(hub, 0, 100);
      const changed = await fetch(`${hub.url}/og/Windows/eu-central-1.png`);
      expect(changed.headers.get("server-timing")).toStartWith("render;");
      expect(changed.headers.get("etag")).not.toBe(etag);
      const survivor = decodePng(new Uint8Array(await changed.arrayBuffer()));
      expect(survivor.pixel(70, 270)).toEqual([0x6c, 0xb8, 0xff, 255]);
      const platform = await fetch(`${hub.url}/og/Windows.png`);
      expect(decodePng(new Uint8Array(await platform.arrayBuffer())).width).toBe(1200);
      expect((await fetch(`${hub.url}/og.png`)).headers.get("content-type")).toBe("image/png");
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("embeds in the language asked for: each catalogue is loaded when an embed first asks for it", async () => {
    const hub = await start();
    try {
      await postReading(hub, 75);
      const embed = async (lang: string) => await (await fetch(`${hub.url}/embed/Windows/eu-central-1?lang=${lang}`)).text();
      const japanese = await embed("ja");
      expect(japanese).toContain('<html lang="ja"');
      expect(japanese).toContain("キラー +75");
      expect(japanese).toContain("ブラッドポイントボーナス");
      const french = await embed("fr");
      expect(french).toContain('<html lang="fr"');
      expect(french).toContain("Tueur +75");
      expect(await embed("ja")).toBe(japanese);
      const unknown = await embed("xx");
      expect(unknown).toContain('<html lang="en"');
      expect(unknown).toContain("Killer +75");
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("icons: the SVG favicon, PNGs of 32, 180, 192 and 512 px from the same drawing, theme colours and the manifest", async () => {
    const hub = await start();
    try {
      const head = await headOf(hub, "/");
      expect(head.html).toContain('<link rel="icon" href="/icons/icon.svg" type="image/svg+xml" />');
      expect(head.html).toContain('<link rel="apple-touch-icon" href="/icons/icon-180.png" />');
      expect(head.html).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
      expect(head.html).toContain('<meta name="theme-color" media="(prefers-color-scheme: dark)"');
      expect(head.html).toContain('<meta name="theme-color" media="(prefers-color-scheme: light)"');
      expect(head.html).not.toContain('href="data:,"');
      const svg = await fetch(`${hub.url}/icons/icon.svg`);
      expect(svg.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
      expect(await svg.text()).toStartWith("<svg");
      for (const size of [32, 180, 192, 512]) {
        const response = await fetch(`${hub.url}/icons/icon-${size}.png`);
        expect(response.headers.get("content-type")).toBe("image/png");
        const png = decodePng(new Uint8Array(await response.arrayBuffer()));
        expect([png.width, png.height]).toEqual([size, size]);
        // The drawing's centre is the white drop.
        expect(png.pixel(size / 2, Math.round(size * 0.66))).toEqual([0xf2, 0xf3, 0xf5, 255]);
      }
      expect((await fetch(`${hub.url}/icons/icon-64.png`)).status).toBe(404);
      const manifest = await fetch(`${hub.url}/manifest.webmanifest`);
      expect(manifest.headers.get("content-type")).toBe("application/manifest+json; charset=utf-8");
      const body = (await manifest.json()) as { name: string; start_url: string; display: string; icons: { src: string; sizes: string }[] };
      expect(body).toMatchObject({ name: "Bloodpoint incentives", start_url: "/", display: "standalone" });
      expect(body.icons.map((i) => i.sizes)).toEqual(["any", "192x192", "512x512"]);
    } finally {
      await hub.stop();
    }
  }, 60_000);
});
