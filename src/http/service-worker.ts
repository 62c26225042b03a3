/**
 * GET /sw.js (SPEC §23): the board's service worker, embedded as text and
 * served with the running build's version and file list before it, so a new
 * build is a new worker, which replaces the old one at the next load and
 * drops the old build's cache. Revalidated on every load, never cached long.
 */
import serviceWorker from "../web/sw.js" with { type: "text" };
import { HUB_VERSION } from "../version.ts";
import { serveFile, webBundle, WebFile } from "./web-bundle.ts";

let built: Promise<WebFile> | null = null;

async function build(): Promise<WebFile> {
  const bundle = await webBundle();
  const files = [...bundle.assets.keys()].sort();
  const version = `${HUB_VERSION}-${bundle.html.etag.replaceAll('"', "")}`;
  const text = `const BUILD = ${JSON.stringify(version)};\nconst FILES = ${JSON.stringify(files)};\n${serviceWorker}`;
  const body = new TextEncoder().encode(text);
  const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url").slice(0, 22)}"`;
  return new WebFile("/sw.js", "text/javascript; charset=utf-8", body, etag);
}

export function serviceWorkerRoute(security: Readonly<Record<string, string>>): { GET: (request: Request) => Promise<Response> } {
  return {
    GET: async (request) => {
      built ??= build();
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
