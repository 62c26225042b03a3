import { describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";

// The hub's layers, top to bottom. A file imports only files of its own layer or of a lower one
// (static, type-only and dynamic imports alike), and no files import each other in a circle.
// An entry ending in "/" is a folder (with everything under it); any other entry is one file.
// docs/guides/development.md describes this list; this is the only place it is written.
const LAYERS: readonly (readonly string[])[] = [
  ["main.ts"],
  ["cli/"],
  ["hub.ts", "server.ts"],
  ["app.ts", "control/"],
  ["routes/"],
  ["sim/"],
  ["push/", "admin/", "discord/", "context.ts"],
  ["share/", "alerts/", "events/", "fanout/", "field/"],
  ["live/"],
  ["http/"],
  ["auth/"],
  ["settings.ts", "backup/"],
  ["db/"],
  ["config/", "metrics.ts", "log.ts"],
  ["web/"],
  ["domain/", "version.ts", "runtime-mode.ts"],
];

// The ambient declarations (`declare module "*.sql"`) are read by the compiler, never imported: no layer.
const AMBIENT = "types.d.ts";

// The reader does not see `typeof import("./x.ts")` inside a type: each relative `import("...")` in a file
// must be among the imports the reader found, or the file is reported (write it as `import type`), as is
// an import the reader cannot find, so that nothing it cannot place goes unchecked.
const RELATIVE_IMPORT_CALL = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

interface Place {
  entry: string;
  depth: number;
}

function placeOf(path: string): Place | null {
  for (const [depth, layer] of LAYERS.entries()) {
    for (const entry of layer) {
      if (entry.endsWith("/") ? path.startsWith(entry) : path === entry) return { entry, depth };
    }
  }
  return null;
}

interface LayerReport {
  files: number;
  imports: number;
  homeless: string[];
  unread: string[];
  upward: string[];
  circles: string[];
}

// Reads every import under `root` (a folder laid out like src/) and reports what breaks the layering.
async function checkLayers(root: string): Promise<LayerReport> {
  const result = await cruise([root], {
    parser: "swc",
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
  });
  const output = result.output as ICruiseResult;
  const inside = (resolved: string): string | null => {
    const path = relative(root, resolved);
    return path.startsWith("..") ? null : path;
  };
  const report: LayerReport = { files: 0, imports: 0, homeless: [], unread: [], upward: [], circles: [] };
  const upward = new Set<string>();
  const groups: Set<string>[] = [];
  const joinCircle = (members: string[]): void => {
    const merged = new Set(members);
    for (const group of groups.filter((candidate) => members.some((member) => candidate.has(member)))) {
      for (const member of group) merged.add(member);
      groups.splice(groups.indexOf(group), 1);
    }
    groups.push(merged);
  };
  for (const module of output.modules) {
    const from = inside(module.source);
    if (from === null || from === AMBIENT) continue;
    report.files += 1;
    const home = placeOf(from);
    if (home === null) {
      report.homeless.push(from);
      continue;
    }
    const seen = new Set(module.dependencies.map((dependency) => dependency.module));
    for (const [, specifier] of readFileSync(join(root, from), "utf8").matchAll(RELATIVE_IMPORT_CALL)) {
      if (specifier !== undefined && !seen.has(specifier)) report.unread.push(`${from}: import("${specifier}")`);
    }
    for (const dependency of module.dependencies) {
      if (dependency.couldNotResolve) {
        report.unread.push(`${from}: "${dependency.module}" is not found`);
        continue;
      }
      const to = inside(dependency.resolved);
      if (to === null) continue;
      report.imports += 1;
      const target = placeOf(to);
      if (target !== null && target.depth < home.depth) {
        upward.add(`${from} (${home.entry}) imports ${to} (${target.entry}), a higher layer`);
      }
      if (dependency.circular && dependency.cycle !== undefined) {
        joinCircle([from, ...dependency.cycle.map((step) => inside(step.name) ?? step.name)]);
      }
    }
  }
  report.upward = [...upward].sort();
  report.circles = groups.map((group) => [...group].sort().join(" <-> ")).sort();
  return report;
}

describe("layers", () => {
  test("every file in src/ has a layer, no import runs back up, and no files import each other in a circle", async () => {
    const report = await checkLayers("src");
    expect(report.files).toBeGreaterThan(200);
    expect(report.imports).toBeGreaterThan(report.files);
    expect(report.homeless).toEqual([]);
    expect(report.unread).toEqual([]);
    expect(report.circles).toEqual([]);
    expect(report.upward).toEqual([]);
  }, 60_000);

  test("the checker sees back-up imports of every kind, circles and files with no layer", async () => {
    const root = mkdtempSync(join(tmpdir(), "hub-layers-"));
    const plant = (path: string, text: string): void => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    try {
      plant("http/problem.ts", 'import { readings } from "../db/readings.ts";\nexport const problem = readings;\n');
      plant("db/readings.ts", "export const readings = 1;\n");
      plant("db/static.ts", 'import { problem } from "../http/problem.ts";\nexport const up = problem;\n');
      plant("auth/typed.ts", 'import type { Route } from "../routes/route.ts";\nexport const route: Route | null = null;\n');
      plant("routes/route.ts", "export type Route = string;\n");
      plant("config/dynamic.ts", 'export const load = async () => (await import("../cli/command.ts")).command;\n');
      plant("cli/command.ts", "export const command = 1;\n");
      plant("domain/events.ts", 'import { reading } from "./readings.ts";\nexport const event = () => reading();\n');
      plant("domain/readings.ts", 'import { event } from "./events.ts";\nexport const reading = () => event;\n');
      plant("domain/a.ts", 'import type { B } from "./b.ts";\nexport type A = B[];\n');
      plant("domain/b.ts", 'import type { C } from "./c.ts";\nexport type B = C;\n');
      plant("domain/c.ts", 'import type { A } from "./a.ts";\nexport type C = A | string;\n');
      plant(
        "log.ts",
        'export const lazily = async () => (await import("./live/store.ts")).store;\nexport let later: Promise<typeof import("./share/og.ts")> | null = null;\n',
      );
      plant("live/store.ts", "export const store = 1;\n");
      plant("share/og.ts", "export const og = 1;\n");
      plant("attic.ts", "export const nobody = 1;\n");
      plant("version.ts", 'import { gone } from "./domain/gone.ts";\nexport const version = gone;\n');
      const report = await checkLayers(root);
      expect(report.homeless).toEqual(["attic.ts"]);
      expect(report.unread.sort()).toEqual(['log.ts: import("./share/og.ts")', 'version.ts: "./domain/gone.ts" is not found']);
      expect(report.upward).toEqual([
        "auth/typed.ts (auth/) imports routes/route.ts (routes/), a higher layer",
        "config/dynamic.ts (config/) imports cli/command.ts (cli/), a higher layer",
        "db/static.ts (db/) imports http/problem.ts (http/), a higher layer",
        "log.ts (log.ts) imports live/store.ts (live/), a higher layer",
      ]);
      expect(report.circles).toEqual([
        "domain/a.ts <-> domain/b.ts <-> domain/c.ts",
        "domain/events.ts <-> domain/readings.ts",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
