/**
 * The page the bundler writes loads only its entry module; the browser finds
 * the chunks that module imports once the entry has arrived and been parsed,
 * one round trip later, and their own imports one more later. A
 * `<link rel="modulepreload">` for every module the entry needs before it can
 * run (its static imports, followed through the chunks they import) puts them
 * all on the wire beside the entry. Dynamic imports (the region page, each
 * language) stay on demand, so the board's first load does not grow.
 */

const transpiler = new Bun.Transpiler({ loader: "js" });

/** The modules a script imports statically (`import … from`, `export … from`, bare `import "…"`), as written. */
export function staticImports(code: string): string[] {
  return transpiler
    .scanImports(code)
    .filter((entry) => entry.kind === "import-statement")
    .map((entry) => entry.path);
}

/** A path the page asks for, resolved against the module that names it, as the browser does. */
function resolvePath(specifier: string, from: string): string {
  return new URL(specifier, new URL(from, "http://hub.invalid")).pathname;
}

/** Every module the HTML's module scripts need before running, entries excluded, in the order they are first met. */
export function preloadPaths(entries: readonly string[], code: (path: string) => string | undefined): string[] {
  const seen = new Set<string>(entries);
  const found: string[] = [];
  const pending = [...entries];
  for (let path = pending.shift(); path !== undefined; path = pending.shift()) {
    const source = code(path);
    if (source === undefined) continue;
    for (const specifier of staticImports(source)) {
      const imported = resolvePath(specifier, path);
      if (seen.has(imported)) continue;
      seen.add(imported);
      found.push(imported);
      pending.push(imported);
    }
  }
  return found;
}

const MODULE_SCRIPT = /<script\b[^>]*\btype=["']?module["']?[^>]*>/gi;
const SOURCE = /\bsrc=["']?([^"'\s>]+)/i;

/**
 * The page with a modulepreload link ahead of its first module script for
 * each module its module scripts import statically. The links take the
 * scripts' `crossorigin`, so the preloaded response is the one the import
 * uses (a different credentials mode would fetch it again).
 */
export function withModulePreloads(html: string, code: (path: string) => string | undefined): string {
  const tags = [...html.matchAll(MODULE_SCRIPT)];
  const first = tags[0];
  if (first === undefined || first.index === undefined) return html;
  const entries = tags.flatMap((tag) => {
    const src = SOURCE.exec(tag[0])?.[1];
    return src ? [resolvePath(src, "/")] : [];
  });
  const paths = preloadPaths(entries, code);
  if (paths.length === 0) return html;
  const crossorigin = /\bcrossorigin\b/i.test(first[0]) ? " crossorigin" : "";
  const links = paths.map((path) => `<link rel="modulepreload"${crossorigin} href="${path}">`).join("");
  return `${html.slice(0, first.index)}${links}${html.slice(first.index)}`;
}
