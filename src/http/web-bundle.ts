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
import { basename } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import page from "../web/index.html";
import { withModulePreloads } from "./module-preloads.ts";
import { etagMatches } from "./schemas.ts";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

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
export abstract class ServedFile {
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

export function etagOf(bytes: Uint8Array): string {
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
export const BUILT_PREFIX = "/assets/";

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

/** The files the compiled binary embedded; null when running from source. */
export const embedded = page.files && page.files.length > 0 ? page.files : null;
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
