/**
 * GET /sw.js (SPEC §23): the board's service worker, embedded as text and
 * served with the running build's version and file list before it, so a new
 * build is a new worker, which replaces the old one at the next load and
 * drops the old build's cache. Revalidated on every load, never cached long.
 */
import serviceWorker from "../web/sw.js" with { type: "text" };
import { HUB_VERSION } from "../version.ts";
import { WebFile, webBundle, serveFile } from "./web.ts";

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
