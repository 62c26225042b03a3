/**
 * The web app's routes (SPEC §17): every client route answers with the
 * app's page (with a page's own head and a board's first paint when given),
 * each bundled file under its own path, and /sw.js; the files themselves come
 * from src/http/web-bundle.ts.
 */
import type { BunRequest } from "bun";
import { basename } from "node:path";
import { HttpProblem } from "../domain/problem.ts";
import { wantsHtmlPage } from "./addresses.ts";
import { fieldAddressRoutes } from "./field-addresses.ts";
import { SECURITY_HEADERS } from "./security.ts";
import { serviceWorkerRoute } from "./service-worker.ts";
import { BUILT_PREFIX, embedded, etagOf, serveFile, webBundle, WebFile } from "./web-bundle.ts";

/** Client routes (SPEC §17): every one answers with the app's page. */
export const CLIENT_ROUTES = [
  "/",
  "/contribute",
  "/contribute/agents",
  "/setup",
  "/login",
  "/account",
  "/admin",
  "/admin/*",
  "/Windows",
  "/Windows/:region",
  "/EGS",
  "/EGS/:region",
  "/GRDK",
  "/GRDK/:region",
] as const;

const IMMUTABLE = "public, max-age=31536000, immutable";

/** The app's page with status 404, for an unknown path a browser asked for; the app shows its not-found view. */
export function webNotFoundPage(https: boolean, csp: string): (request: Request) => Promise<Response> {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, "cache-control": "no-cache", "content-security-policy": csp };
  if (https) headers["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  return async (request) => {
    // Never a 304: a cached copy of the page would be shown with no sign of the 404.
    const fresh = new Request(request.url, { headers: { "accept-encoding": request.headers.get("accept-encoding") ?? "" } });
    const page = await serveFile((await webBundle()).html, fresh, headers);
    return new Response(page.body, { status: 404, headers: page.headers });
  };
}

type Handler = { GET: (request: BunRequest<string>) => Response | Promise<Response> };

/** A page's own <head> (title, preview tags); equal keys give equal heads. */
export type PageHead = (path: string) => { readonly key: string; readonly head: string };

/** Most page variants kept at once: a few per page of the board, a handful of revisions each. */
const MAX_HEADED = 256;

/** The app's page with its <title> replaced by a page's own head, built (and compressed) once per key. */
function headedPages(head: PageHead): (html: WebFile, path: string) => WebFile {
  const pages = new Map<string, WebFile>();
  const encoder = new TextEncoder();
  return (html, path) => {
    const { key, head: tags } = head(path);
    let page = pages.get(key);
    if (!page) {
      const text = new TextDecoder().decode(html.body).replace(/<title>[^<]*<\/title>/, () => tags);
      const body = encoder.encode(text);
      if (pages.size >= MAX_HEADED) pages.clear();
      page = new WebFile(html.path, html.type, body, etagOf(body));
      pages.set(key, page);
    }
    return page;
  };
}

/** A board page's first paint, rendered on the server (src/share/first-paint.tsx) for the app to take over. */
export interface FirstPaint {
  /** The language it is written in, for <html lang>. */
  readonly lang: string;
  /** The markup that goes inside the app's root element. */
  readonly html: string;
  /** The page, language and query it is for: a newer paint for the same slot replaces it. */
  readonly slot: string;
  /** Equal keys mean equal markup. */
  readonly key: string;
}

/** Renders a board page's first paint for a request (src/share/first-paint.tsx); null when the page has none. */
export type FirstPaintFor = (path: string, search: string, acceptLanguage: string | null) => Promise<FirstPaint | null>;

const APP_ROOT = '<div id="app"></div>';

/** The page with a first paint inside its root element (marked, so the app and its tests can tell) and its language on <html>; one kept per slot. */
function paintedPages(): (html: WebFile, paint: FirstPaint) => WebFile {
  const pages = new Map<string, { key: string; page: WebFile }>();
  const encoder = new TextEncoder();
  return (html, paint) => {
    const key = `${html.etag}\n${paint.key}`;
    const kept = pages.get(paint.slot);
    if (kept?.key === key) return kept.page;
    const text = new TextDecoder().decode(html.body);
    if (!text.includes(APP_ROOT)) return html;
    const body = encoder.encode(
      text.replace(APP_ROOT, () => `<div id="app" data-first-paint="">${paint.html}</div>`).replace(/<html lang="[^"]*"/, () => `<html lang="${paint.lang}"`),
    );
    const page = new WebFile(html.path, html.type, body, etagOf(body), true);
    if (pages.size >= MAX_HEADED) pages.clear();
    pages.set(paint.slot, { key, page });
    return page;
  };
}

/**
 * Native routes for the page (every client route) and each bundled file. The
 * routes are known at once (the compiled bundle's file names are in the
 * import; a from-source build serves everything under /assets/), and the files
 * are read or built on first use, so the web app never delays start-up.
 */
export function webRoutes(https: boolean, csp: string, regions: readonly string[], head?: PageHead, firstPaint?: FirstPaintFor): Record<string, Handler> {
  const security: Record<string, string> = { ...SECURITY_HEADERS };
  if (https) security["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  const pageHeaders = { ...security, "cache-control": "no-cache", "content-security-policy": csp };
  const assetHeaders = { ...security, "cache-control": IMMUTABLE };
  const notFound = () => new Response("Not found", { status: 404, headers: { ...security, "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  const asset = async (request: BunRequest<string>) => {
    // A base, since Bun leaves the host out of the URL when the Host header is not a valid name.
    const file = (await webBundle()).assets.get(new URL(request.url, "http://hub.invalid").pathname);
    return file ? await serveFile(file, request, assetHeaders) : notFound();
  };
  const headed = head ? headedPages(head) : null;
  const painted = firstPaint ? paintedPages() : null;
  const page = async (request: BunRequest<string>) => {
    const bundled = (await webBundle()).html;
    const url = new URL(request.url, "http://hub.invalid");
    const html = headed ? headed(bundled, url.pathname) : bundled;
    const paint = firstPaint ? await firstPaint(url.pathname, url.search, request.headers.get("accept-language")) : null;
    const response = await serveFile(painted && paint ? painted(html, paint) : html, request, pageHeaders);
    // The first paint is written in the language the request asks for.
    if (firstPaint) response.headers.set("vary", "Accept-Encoding, Accept-Language");
    return response;
  };
  // An address the field never had gets what any unknown path gets (SPEC §17.1): the app's 404 page, or the problem detail.
  const notFoundPage = webNotFoundPage(https, csp);
  const unknownAddress = (request: Request) => {
    const { pathname } = new URL(request.url, "http://hub.invalid");
    if (wantsHtmlPage(request, pathname)) return notFoundPage(request);
    const problem = new HttpProblem(404, `There is no route ${request.method} ${pathname}.`).toResponse();
    for (const [name, value] of Object.entries({ ...security, "cache-control": "no-store" })) problem.headers.set(name, value);
    return problem;
  };
  const routes: Record<string, Handler> = { ...fieldAddressRoutes(security, unknownAddress), "/sw.js": serviceWorkerRoute(security, regions) };
  for (const route of CLIENT_ROUTES) routes[route] = { GET: page };
  if (embedded) {
    for (const file of embedded) if (file.loader !== "html") routes[`/${basename(file.path)}`] = { GET: asset };
  } else {
    routes[`${BUILT_PREFIX}*`] = { GET: asset };
  }
  // Nothing of the app is read, built or compressed before a request asks for it: a hub nobody visits holds none
  // of it. A bundle that cannot be loaded fails the requests for it, where it can be seen, not the start-up.
  return routes;
}
