import { describe, expect, test } from "bun:test";
import { preloadPaths, staticImports, withModulePreloads } from "../../src/http/module-preloads.ts";

/** A bundle shaped like the bundler's: an entry, the chunks it shares, and chunks it loads on demand. */
const MODULES: Record<string, string> = {
  "/entry-a1.js": `import{a as x}from"./chunk-shared.js";import"./chunk-styles.js";const r=()=>import("./chunk-region.js");x(r);`,
  "/chunk-shared.js": `import{b}from"./chunk-deep.js";export{b as a};`,
  "/chunk-deep.js": `import{a}from"./chunk-shared.js";export const b=()=>a;`,
  "/chunk-styles.js": `export{}from"./chunk-deep.js";`,
  "/chunk-region.js": `import{a}from"./chunk-shared.js";import{c}from"./chunk-charts.js";export const p=[a,c];`,
  "/chunk-charts.js": `export const c=1;`,
};
const code = (path: string) => MODULES[path];

const page = (script: string) => `<!doctype html><html><head><title>t</title><link rel="stylesheet" crossorigin href="/s.css">${script}</head><body></body></html>`;

describe("modulepreload links for the entry's static imports", () => {
  test("a script's static imports are listed, its dynamic ones are not", () => {
    expect(staticImports(MODULES["/entry-a1.js"] ?? "")).toEqual(["./chunk-shared.js", "./chunk-styles.js"]);
    expect(staticImports(`export const c=1;`)).toEqual([]);
  });

  test("imports are followed through the chunks they name, once each, entries and on-demand chunks left out", () => {
    expect(preloadPaths(["/entry-a1.js"], code)).toEqual(["/chunk-shared.js", "/chunk-styles.js", "/chunk-deep.js"]);
    // Resolved against the importing module, as the browser does, under whatever folder the bundle is served from.
    const nested = (path: string) => ({ "/assets/e.js": `import"./c.js";import"../top.js";`, "/assets/c.js": `import"/abs.js";` })[path];
    expect(preloadPaths(["/assets/e.js"], nested)).toEqual(["/assets/c.js", "/top.js", "/abs.js"]);
  });

  test("the page gets one link per module, ahead of the entry and with its credentials mode", () => {
    const html = withModulePreloads(page(`<script type="module" crossorigin src="/entry-a1.js"></script>`), code);
    const links = [...html.matchAll(/<link rel="modulepreload"([^>]*)>/g)].map((m) => m[1]);
    expect(links).toEqual([' crossorigin href="/chunk-shared.js"', ' crossorigin href="/chunk-styles.js"', ' crossorigin href="/chunk-deep.js"']);
    expect(html.indexOf('rel="modulepreload"')).toBeLessThan(html.indexOf("<script"));
    expect(html.indexOf('rel="modulepreload"')).toBeGreaterThan(html.indexOf('rel="stylesheet"'));
    // Without crossorigin on the script, the links leave it off too (a mismatch would fetch each chunk twice).
    const plain = withModulePreloads(page(`<script type="module" src="/entry-a1.js"></script>`), code);
    expect(plain).toContain('<link rel="modulepreload" href="/chunk-shared.js">');
    expect(plain).not.toContain("modulepreload crossorigin");
  });

  test("a page whose entry imports nothing, or with no module script, is left as it is", () => {
    const alone = page(`<script type="module" src="/chunk-charts.js"></script>`);
    expect(withModulePreloads(alone, code)).toBe(alone);
    const none = page(`<script src="/entry-a1.js"></script>`);
    expect(withModulePreloads(none, code)).toBe(none);
  });
});
