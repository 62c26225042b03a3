/**
 * The web app (SPEC §17), bundled by Bun from its HTML entry point. In the
 * compiled binary, `bun build --compile` has already bundled it and embedded
 * every file (the import's `files`); from source, the same bundle is built on
 * first use with the same options. Either way the files are served here, not
 * by Bun's own HTML route, because the hub decides their headers: hashed files
 * cached for a year, the HTML revalidated every time under a strict CSP, and
 * gzip or brotli chosen from Accept-Encoding, each compressed once, off the
 * main thread, when first asked for. The compiled binary's files stay in the
 * binary and are read from it when their bytes are needed.
 */
import type { BunRequest } from "bun";
import { basename } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import page from "../web/index.html";
import { wantsHtmlPage } from "./addresses.ts";
import { fieldAddressRoutes } from "./field-addresses.ts";
import type { Logger } from "../log.ts";
import type { FirstPaint, FirstPaintDeps } from "../share/first-paint.tsx";
import { withModulePreloads } from "./module-preloads.ts";
import { HttpProblem } from "./problem.ts";
import { etagMatches } from "./schemas.ts";
import { serviceWorkerRoute } from "./service-worker.ts";
import { SECURITY_HEADERS } from "./security.ts";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

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
/** Below this a compressed copy saves too little to be worth a header. */
const MIN_COMPRESS_BYTES = 1024;

type Encoding = "br" | "gzip";
/** Levels for pages rendered per payload: a few milliseconds for the board's page, against tens at the highest levels. */
const QUICK_BROTLI = 5;
const QUICK_GZIP = 6;

/**
 * A file the app serves, with its compressed copies: each made once, off the
 * main thread, when a request first accepts it, and kept (they cannot be read
 * from anywhere else).
 */
abstract class ServedFile {
  private readonly encoded = new Map<Encoding, Promise<Uint8Array<ArrayBuffer>>>();

  constructor(
    readonly path: string,
    readonly type: string,
    readonly etag: string,
    private readonly size: number,
    /** Compressed quickly rather than smallest: a page rendered per payload is compressed many times, a bundled file once. */
    private readonly quick: boolean,
  ) {}

  /** The file's bytes. */
  abstract bytes(): Promise<Uint8Array<ArrayBuffer>>;

  compressed(encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
    let pending = this.encoded.get(encoding);
    if (!pending) {
      pending = this.bytes()
        .then((body) =>
          encoding === "br"
            ? brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: this.quick ? QUICK_BROTLI : 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
            : gzipped(body, { level: this.quick ? QUICK_GZIP : 9 }),
        )
        .then((bytes) => new Uint8Array(bytes));
      this.encoded.set(encoding, pending);
    }
    return pending;
  }

  get compressible(): boolean {
    return this.size >= MIN_COMPRESS_BYTES && !this.type.startsWith("image/");
  }
}

/** A file whose bytes the hub holds: a page it made, a file it built or read from a folder. */
export class WebFile extends ServedFile {
  constructor(path: string, type: string, readonly body: Uint8Array<ArrayBuffer>, etag: string, quick = false) {
    super(path, type, etag, body.byteLength, quick);
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return Promise.resolve(this.body);
  }
}

/** A file embedded in the binary, read from it each time its bytes are needed rather than held. */
class EmbeddedFile extends ServedFile {
  constructor(path: string, type: string, private readonly embedded: string, etag: string, size: number) {
    super(path, type, etag, size, false);
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return Bun.file(this.embedded).bytes();
  }
}

export interface WebBundle {
  readonly html: WebFile;
  /** Every other file, by the path the page asks for it under (such as /chunk-1a2b3c.js). */
  readonly assets: ReadonlyMap<string, ServedFile>;
}

function etagOf(bytes: Uint8Array): string {
  return `"${new Bun.CryptoHasher("sha256").update(bytes).digest("base64url").slice(0, 22)}"`;
}

function typeOf(path: string, declared: string | undefined): string {
  if (declared) return declared.replace(";charset=", "; charset=");
  if (path.endsWith(".js")) return "text/javascript; charset=utf-8";
  if (path.endsWith(".css")) return "text/css; charset=utf-8";
  if (path.endsWith(".html")) return "text/html; charset=utf-8";
  return Bun.file(path).type;
}

/** The page with a modulepreload for every chunk its entry imports statically, so they load beside the entry, not after it. */
async function withPreloads(html: WebFile, assets: ReadonlyMap<string, ServedFile>): Promise<WebFile> {
  const decoder = new TextDecoder();
  const text = decoder.decode(html.body);
  const scripts = new Map<string, string>();
  for (const [path, file] of assets) if (file.type.startsWith("text/javascript")) scripts.set(path, decoder.decode(await file.bytes()));
  const preloaded = withModulePreloads(text, (path) => scripts.get(path));
  if (preloaded === text) return html;
  const body = new TextEncoder().encode(preloaded);
  return new WebFile(html.path, html.type, body, etagOf(body));
}

/**
 * The files `bun build --compile` embedded: each read once now for its ETag,
 * then read from the binary again whenever its bytes are needed. Only the
 * page, which the hub rewrites, is held.
 */
async function embeddedBundle(files: NonNullable<typeof page.files>): Promise<WebBundle> {
  let html: WebFile | null = null;
  const assets = new Map<string, ServedFile>();
  for (const file of files) {
    const body = await Bun.file(file.path).bytes();
    const path = `/${basename(file.path)}`;
    const type = typeOf(file.path, file.headers["content-type"]);
    if (file.loader === "html") html = new WebFile(path, type, body, etagOf(body));
    else assets.set(path, new EmbeddedFile(path, type, file.path, etagOf(body), body.byteLength));
  }
  if (!html) throw new Error("the embedded web app has no HTML page");
  return { html: await withPreloads(html, assets), assets };
}

/** Where a from-source build puts its files; the compiled bundle keeps Bun's own root paths. */
const BUILT_PREFIX = "/assets/";

/** The same bundle, built now (running from source). */
async function builtBundle(entry: string): Promise<WebBundle> {
  const result = await Bun.build({ entrypoints: [entry], target: "browser", splitting: true, minify: true, publicPath: BUILT_PREFIX });
  if (!result.success) throw new Error(`the web app did not build: ${result.logs.map(String).join("; ")}`);
  let html: WebFile | null = null;
  const assets = new Map<string, ServedFile>();
  for (const output of result.outputs) {
    const body = new Uint8Array(await output.arrayBuffer());
    const served = new WebFile(`${BUILT_PREFIX}${basename(output.path)}`, typeOf(output.path, output.type), body, etagOf(body));
    if (output.path.endsWith(".html")) html = served;
    else assets.set(served.path, served);
  }
  if (!html) throw new Error("the web app's build has no HTML page");
  return { html: await withPreloads(html, assets), assets };
}

const embedded = page.files && page.files.length > 0 ? page.files : null;
let bundle: Promise<WebBundle> | null = null;

/** The web app's files, loaded (or built) once, on first use. */
export function webBundle(): Promise<WebBundle> {
  bundle ??= embedded ? embeddedBundle(embedded) : builtBundle(page.index);
  return bundle;
}

function acceptedEncoding(request: Request): Encoding | null {
  const accept = request.headers.get("accept-encoding") ?? "";
  if (/\bbr\b/.test(accept)) return "br";
  if (/\bgzip\b/.test(accept)) return "gzip";
  return null;
}

export async function serveFile(file: ServedFile, request: Request, headers: Record<string, string>): Promise<Response> {
  const base: Record<string, string> = { ...headers, "content-type": file.type, etag: file.etag, vary: "Accept-Encoding" };
  if (etagMatches(request.headers.get("if-none-match"), file.etag)) return new Response(null, { status: 304, headers: base });
  const encoding = file.compressible ? acceptedEncoding(request) : null;
  if (encoding === null) return new Response(await file.bytes(), { headers: base });
  return new Response(await file.compressed(encoding), { headers: { ...base, "content-encoding": encoding } });
}

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

/** Renders a board page's first paint for a request (src/share/first-paint.tsx); null when the page has none. */
export type FirstPaintFor = (path: string, search: string, acceptLanguage: string | null) => Promise<FirstPaint | null>;

/**
 * First paints rendered by src/share/first-paint.tsx, whose code (the app's
 * components, the renderer, every language) is loaded on the first board
 * page asked for rather than at start-up, so a hub nobody has visited yet
 * starts and idles as it did without it.
 */
export function lazyFirstPaints(deps: FirstPaintDeps & { readonly log: Logger }): FirstPaintFor {
  let loading: Promise<FirstPaintFor> | null = null;
  let failed = false;
  return async (path, search, acceptLanguage) => {
    loading ??= import("../share/first-paint.tsx").then((module) => module.firstPaints(deps));
    try {
      return await (await loading)(path, search, acceptLanguage);
    } catch (error) {
      // The first paint is a head start, not the page: without it the app renders the board as before.
      if (!failed) deps.log.error("the board's first paint could not be rendered; pages are served without it", { error });
      failed = true;
      return null;
    }
  };
}

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
export function webRoutes(https: boolean, csp: string, head?: PageHead, firstPaint?: FirstPaintFor): Record<string, Handler> {
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
  const routes: Record<string, Handler> = { ...fieldAddressRoutes(security, unknownAddress), "/sw.js": serviceWorkerRoute(security) };
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
