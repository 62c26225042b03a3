/**
 * One vocabulary, one place (issue 27): the catalogue in src/domain/catalogue.ts
 * is the only list of regions. No other module of src/ declares region ids
 * (an OpenAPI example may name one or two), and the web app takes the
 * catalogue's pure module into its bundle, and nothing else from the server.
 */
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join, relative } from "node:path";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { Flag, hasFlag } from "../../src/web/components/flag.tsx";

const ROOT = join(import.meta.dir, "../..");
const CATALOGUE = "src/domain/catalogue.ts";
/** Written by scripts/web-types.ts from the OpenAPI description, which takes its region enums from the catalogue. */
const GENERATED = "src/web/api/schema.d.ts";
/** Where OpenAPI descriptions and examples are declared. */
const EXAMPLE_FOLDERS = ["src/routes/", "src/http/"];
const MAX_EXAMPLE_IDS = 2;
const REGION_ID = /\b[a-z]{2}-[a-z]+-[0-9]+\b/g;
const REGION_KEY = /["'`]?\b[a-z]{2}-[a-z]+-[0-9]+\b["'`]?\s*:(?!:)/;

/** Why a source file holds a copy of the region vocabulary, or null when it does not. */
function regionCopy(path: string, text: string): string | null {
  const ids = new Set(text.match(REGION_ID) ?? []);
  if (ids.size === 0) return null;
  if (!EXAMPLE_FOLDERS.some((folder) => path.startsWith(folder))) return `names region ids (${[...ids].join(", ")}) outside the catalogue`;
  if (ids.size > MAX_EXAMPLE_IDS) return `names ${ids.size} region ids, more than an example needs`;
  const key = REGION_KEY.exec(text);
  if (key) return `maps by region id (${key[0].trim()})`;
  return null;
}

describe("the region vocabulary is declared once", () => {
  test("the scan finds a copied table, a list and a stray id, and lets an example pass", () => {
    const table = 'const COUNTRY = { "eu-west-1": "IE" };';
    expect(regionCopy("src/web/components/flag.tsx", table)).toContain("outside the catalogue");
    expect(regionCopy("src/routes/public.ts", table)).toContain("maps by region id");
    expect(regionCopy("src/routes/public.ts", 'const SHOWN = ["eu-west-1", "eu-west-2", "us-east-1"];')).toContain("3 region ids");
    expect(regionCopy("src/sim/live.ts", 'const first = "me-central-1";')).toContain("me-central-1");
    expect(regionCopy("src/routes/history.ts", 'examples: [{ region: "eu-west-1", host: "gamelift.eu-west-1.amazonaws.com" }]')).toBeNull();
    expect(regionCopy("src/web/regions.ts", "const STORAGE_KEY = \"hub.region\";")).toBeNull();
  });

  test("no module of src/ but the catalogue declares region ids", async () => {
    const copies: string[] = [];
    for await (const file of new Glob("src/**/*.{ts,tsx}").scan({ cwd: ROOT })) {
      const path = relative(".", file);
      if (path === CATALOGUE || path === GENERATED) continue;
      const problem = regionCopy(path, await Bun.file(join(ROOT, path)).text());
      if (problem) copies.push(`${path}: ${problem}`);
    }
    expect(copies).toEqual([]);
  });

  test("every built-in region has its flag drawn for the web app, through the country the catalogue gives it", () => {
    for (const region of BUILT_IN_REGIONS) expect({ region: region.id, drawn: hasFlag(region.id) }).toEqual({ region: region.id, drawn: true });
    expect(hasFlag("me-south-1")).toBe(false);
    const flag = new Flag({ region: "eu-west-1" }).render();
    expect(flag.props["data-flag"]).toBe("IE");
  });

  test("the web bundle takes the pure catalogue from the server side, and nothing else", async () => {
    const built = await Bun.build({ entrypoints: [join(ROOT, "src/web/index.html")], target: "browser", splitting: true, minify: true, metafile: true });
    expect(built.success).toBe(true);
    const inputs = Object.keys(built.metafile?.inputs ?? {}).map((input) => relative(ROOT, join(ROOT, input)));
    expect(inputs).toContain("src/web/regions.ts");
    expect(inputs.filter((input) => !input.includes("node_modules/") && !input.startsWith("src/web/"))).toEqual([CATALOGUE]);
    // Only what the app uses comes along: the operator's checks stay on the server.
    const code = (await Promise.all(built.outputs.map((output) => output.text()))).join("\n");
    expect(code).toContain("America/Argentina/Buenos_Aires");
    expect(code).not.toContain("is already in the catalogue");
  }, 60_000);
});
