/**
 * PUBLIC_DIR (SPEC §22): a folder served instead of the embedded web app, for
 * operators who customised the field hub's dashboard. Every page path that is
 * not a file gets the folder's `index.html`; the API, docs, health and metrics
 * stay the hub's. Files get the same security headers, compression and ETags
 * as the embedded app; the page's CSP is the hub's, widened only by
 * PUBLIC_DIR_CSP. A path that would leave the folder (`..`, encoded or not, a
 * symlink pointing out) is a 404.
 */
import type { BunRequest } from "bun";
import { realpathSync, statSync } from "node:fs";
import { extname, join, sep } from "node:path";
import { ConfigError } from "../config/load.ts";
import type { CspAdditions } from "../config/options.ts";
import { HTML_CSP, SECURITY_HEADERS } from "./security.ts";
import { serveFile, WebFile } from "./web.ts";

/** Paths the hub itself answers, whatever the folder holds. */
const HUB_PATHS = ["/api/", "/docs", "/openapi.", "/healthz", "/metrics"];
/** Names a bundler gives files whose content decides the name (`index-3f9a1c2b.js`): safe to cache for a year. */
const HASHED_NAME = /[-.][A-Za-z0-9_]{8,}\.[a-z0-9]+$/;
const IMMUTABLE = "public, max-age=31536000, immutable";

/** The folder, resolved, or the one line that stops start-up. */
export function publicDirectory(dir: string): string {
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    throw new ConfigError(`PUBLIC_DIR ${dir} does not exist; build the dashboard into it, or unset PUBLIC_DIR to serve the embedded app`);
  }
  if (!statSync(root).isDirectory()) throw new ConfigError(`PUBLIC_DIR ${dir} is not a folder`);
  try {
    if (!statSync(join(root, "index.html")).isFile()) throw new Error("not a file");
  } catch {
    throw new ConfigError(`PUBLIC_DIR ${dir} has no index.html to serve for its pages`);
  }
  return root;
}

/** The hub's page CSP with the operator's sources added to the directives they name. */
export function widenedCsp(additions: CspAdditions): string {
  const directives = HTML_CSP.split("; ").map((d) => d.split(" "));
  for (const [name, sources] of Object.entries(additions)) {
    const existing = directives.find(([n]) => n === name);
    if (!existing) directives.push([name, ...sources]);
    else {
      // 'none' cannot stand beside a source.
      const kept = existing.slice(1).filter((s) => s !== "'none'");
      existing.splice(1, existing.length - 1, ...kept, ...sources);
    }
  }
  return directives.map((d) => d.join(" ")).join("; ");
}

/** The folder's path segments of a request path, or null when one is not a plain name (`..`, `.`, an encoded slash, a NUL). */
function segmentsOf(pathname: string): string[] | null {
  const segments: string[] = [];
  for (const raw of pathname.split("/").filter((s) => s !== "")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === "." || segment === ".." || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

type Fallback = (request: Request) => Response | Promise<Response>;
type Handler = { GET: (request: BunRequest<string>) => Response | Promise<Response> };

export function publicDirRoutes(options: { root: string; https: boolean; csp: CspAdditions; hub: Fallback }): Record<string, Handler> {
  const { root } = options;
  const security: Record<string, string> = { ...SECURITY_HEADERS };
  if (options.https) security["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  const pageHeaders = { ...security, "cache-control": "no-cache", "content-security-policy": widenedCsp(options.csp) };
  const notFound = () => new Response("Not found", { status: 404, headers: { ...security, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  // Read once per version of a file: a rebuilt dashboard is picked up without a restart.
  const cache = new Map<string, { version: string; file: WebFile }>();

  const load = async (path: string, version: string): Promise<WebFile> => {
    const cached = cache.get(path);
    if (cached?.version === version) return cached.file;
    const body = await Bun.file(path).bytes();
    const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    const type = path.endsWith(".html") ? "text/html; charset=utf-8" : Bun.file(path).type.replace(";charset=", "; charset=");
    const file = new WebFile(path, type, body, etag);
    cache.set(path, { version, file });
    return file;
  };

  /** The file a path names inside the folder, or null; a symlink whose target is outside the folder is not followed. */
  const inside = (segments: readonly string[]): { path: string; version: string } | null => {
    try {
      const real = realpathSync(join(root, ...segments));
      if (real !== root && !real.startsWith(`${root}${sep}`)) return null;
      const stat = statSync(real);
      return stat.isFile() ? { path: real, version: `${stat.mtimeMs}:${stat.size}` } : null;
    } catch {
      return null;
    }
  };

  const page = async (request: Request): Promise<Response> => {
    const index = inside(["index.html"]);
    if (!index) return notFound();
    return await serveFile(await load(index.path, index.version), request, pageHeaders);
  };

  return {
    "/*": {
      GET: async (request) => {
        const { pathname } = new URL(request.url, "http://hub.invalid");
        if (HUB_PATHS.some((p) => pathname.startsWith(p))) return await options.hub(request);
        const segments = segmentsOf(pathname);
        if (segments === null) return notFound();
        if (segments.length === 0 || (segments.length === 1 && segments[0] === "index.html")) return await page(request);
        const found = inside(segments);
        if (found) {
          const headers = found.path.endsWith(".html") ? pageHeaders : { ...security, "cache-control": HASHED_NAME.test(found.path) ? IMMUTABLE : "no-cache" };
          return await serveFile(await load(found.path, found.version), request, headers);
        }
        // A missing file (a name with an extension) is a 404; any other path is a page of the app.
        if (extname(segments[segments.length - 1] ?? "") !== "") return notFound();
        const escapes = (() => {
          try {
            const real = realpathSync(join(root, ...segments));
            return real !== root && !real.startsWith(`${root}${sep}`);
          } catch {
            return false;
          }
        })();
        return escapes ? notFound() : await page(request);
      },
    },
  };
}
