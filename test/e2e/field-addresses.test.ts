/** The field hub's public addresses on the compiled hub (SPEC §22): its links keep working. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inflateSync } from "node:zlib";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();

describe("the field hub's addresses", () => {
  let hub: RunningHub;

  beforeAll(async () => {
    hub = await startHub({ cmd: [await compiledHub()], args: ["--db", join(scratch(), "hub.db"), "--contribute"] });
  }, 60_000);

  afterAll(async () => {
    await hub.stop();
  });

  const get = (path: string) => fetch(`${hub.url}${path}`, { redirect: "manual" });

  test("its board and region paths redirect for good to ours, the platform in any case, the query kept", async () => {
    const cases: [string, string][] = [
      ["/platforms/Windows", "/Windows"],
      ["/platforms/egs", "/EGS"],
      ["/platforms/GRDK", "/GRDK"],
      ["/platforms/Windows/regions/eu-central-1", "/Windows/eu-central-1"],
      ["/platforms/windows/regions/EU-CENTRAL-1?lang=fr", "/Windows/eu-central-1?lang=fr"],
      ["/platforms/Egs/regions/us-east-1", "/EGS/us-east-1"],
    ];
    for (const [from, to] of cases) {
      const response = await get(from);
      expect(`${from} ${response.status} ${response.headers.get("location")}`).toBe(`${from} 301 ${to}`);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect((await get(to)).status).toBe(200);
    }
  });

  test("a platform or region the field never had is a 404: the app's page for a browser, the problem detail otherwise", async () => {
    for (const path of ["/platforms/Nope", "/platforms/Xbox", "/platforms/Windows/regions/not_a_region"]) {
      const page = await fetch(`${hub.url}${path}`, { headers: { accept: "text/html,application/xhtml+xml" } });
      expect(`${path} ${page.status} ${page.headers.get("content-type")}`).toBe(`${path} 404 text/html; charset=utf-8`);
      expect(page.headers.get("content-security-policy")).toContain("default-src");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await page.text()).toContain('<div id="app"');
      const problem = await get(path);
      expect(`${path} ${problem.status} ${problem.headers.get("content-type")}`).toBe(`${path} 404 application/problem+json`);
      expect(problem.headers.get("x-content-type-options")).toBe("nosniff");
      expect(((await problem.json()) as { status: number }).status).toBe(404);
    }
  });

  test("/register leads to the contribute page", async () => {
    const response = await get("/register");
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/contribute");
    expect((await get("/contribute")).status).toBe(200);
  });

  test("/favicon.svg leads to the hub's SVG icon", async () => {
    const response = await get("/favicon.svg");
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/icons/icon.svg");
    const icon = await get("/icons/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toStartWith("image/svg+xml");
    expect(await icon.text()).toContain("<svg");
  });

  test("/og.png is a valid 1200 × 630 PNG", async () => {
    const response = await get("/og.png");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    const png = new Uint8Array(await response.arrayBuffer());
    expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const view = new DataView(png.buffer);
    expect([view.getUint32(16), view.getUint32(20)]).toEqual([1200, 630]);
    // Bit depth 8 and colour type 6: RGBA, four bytes a pixel.
    expect([png[24], png[25]]).toEqual([8, 6]);
    let at = 8;
    const data: Uint8Array[] = [];
    while (at < png.length) {
      const length = view.getUint32(at);
      const typeAndData = png.slice(at + 4, at + 8 + length);
      expect(view.getUint32(at + 8 + length)).toBe(Bun.hash.crc32(typeAndData));
      if (new TextDecoder().decode(typeAndData.slice(0, 4)) === "IDAT") data.push(typeAndData.slice(4));
      at += 12 + length;
    }
    expect(inflateSync(Buffer.concat(data)).length).toBe((1 + 1200 * 4) * 630);
  });
});
