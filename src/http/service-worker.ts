/**
 * GET /sw.js (SPEC §23, §16.4): the board's service worker, embedded as text
 * and served with the running build's version and file list before it, so a
 * new build is a new worker, which replaces the old one at the next load and
 * drops the old build's cache; and with the platforms and the catalogue's
 * regions, which name the only pages it keeps. Revalidated on every load,
 * never cached long.
 */
import serviceWorker from "../web/sw.js" with { type: "text" };
import { PLATFORMS } from "../domain/catalogue.ts";
import { HUB_VERSION } from "../version.ts";
import { serveFile, webBundle, WebFile } from "./web-bundle.ts";

let built: Promise<WebFile> | null = null;

async function build(regions: readonly string[]): Promise<WebFile> {
  const bundle = await webBundle();
  const files = [...bundle.assets.keys()].sort();
  const version = `${HUB_VERSION}-${bundle.html.etag.replaceAll('"', "")}`;
  const constants = [`const BUILD = ${JSON.stringify(version)};`, `const FILES = ${JSON.stringify(files)};`, `const PLATFORMS = ${JSON.stringify(PLATFORMS)};`, `const REGIONS = ${JSON.stringify(regions)};`];
  const text = `${constants.join("\n")}\n${serviceWorker}`;
  const body = new TextEncoder().encode(text);
  const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
  return new WebFile("/sw.js", "text/javascript; charset=utf-8", body, etag);
}

/** `regions`: the catalogue's region ids (fixed for the life of the process, as the worker is built once). */
export function serviceWorkerRoute(security: Readonly<Record<string, string>>, regions: readonly string[]): { GET: (request: Request) => Promise<Response> } {
  return {
    GET: async (request) => {
      built ??= build(regions);
      return await serveFile(await built, request, { ...security, "cache-control": "no-cache" });
    },
  };
}

/**
 * GET /sw.js while PUBLIC_DIR serves another dashboard: a worker that removes
 * itself. A browser that once ran the embedded board keeps its worker until
 * the script at /sw.js changes; this one drops the board's caches and
 * unregisters, so the folder's pages are never answered from the old app.
 */
const RETIRING_WORKER = `// No service worker while this hub serves another dashboard: the embedded board's is removed.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("hub-")).map((name) => caches.delete(name))))
      .then(() => self.registration.unregister()),
  );
});
`;

export function retiringWorkerRoute(security: Readonly<Record<string, string>>): { GET: (request: Request) => Promise<Response> } {
  const body = new TextEncoder().encode(RETIRING_WORKER);
  const file = new WebFile("/sw.js", "text/javascript; charset=utf-8", body, `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`);
  return { GET: async (request) => await serveFile(file, request, { ...security, "cache-control": "no-cache" }) };
}
