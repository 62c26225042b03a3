/**
 * PUBLIC_DIR (SPEC §22): a folder served instead of the embedded web app, for
 * operators who customised the field hub's dashboard. Every page path that is
 * not a file gets the folder's `index.html`; the API, docs, health and metrics
 * stay the hub's. Files get the same security headers, compression and ETags
 * as the embedded app, and every answer the page's CSP (the hub's, widened
 * only by PUBLIC_DIR_CSP). A path that would leave the folder (`..`, encoded
 * or not, a symlink pointing out) or names a hidden file (a segment starting
 * with `.`, outside `/.well-known/`) is a 404, and so is a plain name that
 * resolves to one (`envlink` → `.env`, `gitdir/config` → `.git/config`). The hub's own public routes
 * (SPEC §19) keep answering. The field's pages leave their origin to the hub
 * as `__OG_ORIGIN__`, which is filled in.
 */
import type { BunRequest } from "bun";
import { realpathSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { ConfigError } from "../config/load.ts";
import type { CspAdditions } from "../config/options.ts";
import { HTML_CSP, SECURITY_HEADERS } from "./security.ts";
import { retiringWorkerRoute } from "./service-worker.ts";
import { serveFile, WebFile } from "./web-bundle.ts";

/** Paths the hub itself answers, whatever the folder holds: by prefix, and exactly. */
const HUB_PATHS = ["/api/", "/docs", "/openapi.", "/healthz", "/metrics", "/og/", "/badge/", "/embed/", "/feeds/"];
const HUB_FILES = new Set(["/og.png", "/robots.txt", "/sitemap.xml", "/manifest.webmanifest"]);
/** The one hidden folder a site publishes (RFC 8615). */
const WELL_KNOWN = ".well-known";
/** What the field's pages hold where the hub's origin belongs. */
const ORIGIN_PLACEHOLDER = /__OG_ORIGIN__/g;
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

/**
 * The folder's path segments of a request path, or null when one is not a
 * plain name (`..`, `.`, an encoded slash, a NUL) or is hidden (starts with
 * `.`, as `.env` or `.git`), `/.well-known/` itself aside.
 */
function segmentsOf(pathname: string): string[] | null {
  const segments: string[] = [];
  for (const raw of pathname.split("/").filter((s) => s !== "")) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (/[/\\\0]/.test(segment)) return null;
    if (segment.startsWith(".") && !(segments.length === 0 && segment === WELL_KNOWN)) return null;
    segments.push(segment);
  }
  return segments;
}

/**
 * Whether a resolved path may be served from the folder `root`: inside it, and
 * with no hidden segment once symlinks are followed (a plain name may point
 * at `.env` or into `.git`), `/.well-known/` aside as for the request path.
 */
function servable(root: string, real: string): boolean {
  if (real === root) return true;
  if (!real.startsWith(`${root}${sep}`)) return false;
  return segmentsOf(relative(root, real).split(sep).join("/")) !== null;
}

type Fallback = (request: Request) => Response | Promise<Response>;
type Handler = { GET: (request: BunRequest<string>) => Response | Promise<Response> };

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function publicDirRoutes(options: { root: string; origin: string; https: boolean; csp: CspAdditions; hub: Fallback }): Record<string, Handler> {
  const { root } = options;
  const security: Record<string, string> = { ...SECURITY_HEADERS, "content-security-policy": widenedCsp(options.csp) };
  if (options.https) security["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  const pageHeaders = { ...security, "cache-control": "no-cache" };
  const origin = escapeAttribute(options.origin.replace(/\/+$/, ""));
  const notFound = () => new Response("Not found", { status: 404, headers: { ...security, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  // Read once per version of a file: a rebuilt dashboard is picked up without a restart.
  const cache = new Map<string, { version: string; file: WebFile }>();

  const load = async (path: string, version: string): Promise<WebFile> => {
    const cached = cache.get(path);
    if (cached?.version === version) return cached.file;
    const read = await Bun.file(path).bytes();
    const body = path.endsWith(".html") ? new TextEncoder().encode(new TextDecoder().decode(read).replace(ORIGIN_PLACEHOLDER, origin)) : read;
    const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    const type = path.endsWith(".html") ? "text/html; charset=utf-8" : Bun.file(path).type.replace(";charset=", "; charset=");
    const file = new WebFile(path, type, body, etag);
    cache.set(path, { version, file });
    return file;
  };

  /** The file a path names inside the folder, or null; a symlink whose target is outside the folder or hidden is not followed. */
  const inside = (segments: readonly string[]): { path: string; version: string } | null => {
    try {
      const real = realpathSync(join(root, ...segments));
      if (!servable(root, real)) return null;
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
    "/sw.js": retiringWorkerRoute(security),
    "/*": {
      GET: async (request) => {
        const { pathname } = new URL(request.url, "http://hub.invalid");
        if (HUB_FILES.has(pathname) || HUB_PATHS.some((p) => pathname.startsWith(p))) return await options.hub(request);
        const segments = segmentsOf(pathname);
        if (segments === null) return notFound();
        if (segments.length === 0 || (segments.length === 1 && segments[0] === "index.html")) return await page(request);
        const found = inside(segments);
        if (found) {
          const headers = found.path.endsWith(".html") ? pageHeaders : { ...security, "cache-control": HASHED_NAME.test(found.path) ? IMMUTABLE : "no-cache" };
          return await serveFile(await load(found.path, found.version), request, headers);
        }
        // A missing file (a name with an extension, or anything under /.well-known/) is a 404; any other path is a page of the app.
        if (segments[0] === WELL_KNOWN || extname(segments[segments.length - 1] ?? "") !== "") return notFound();
        const refused = (() => {
          try {
            return !servable(root, realpathSync(join(root, ...segments)));
          } catch {
            return false;
          }
        })();
        return refused ? notFound() : await page(request);
      },
    },
  };
}
