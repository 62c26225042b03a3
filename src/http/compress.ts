/**
 * Compression of API answers (SPEC §7): JSON (and the YAML description) over
 * 1 KiB leaves as brotli or gzip when the request accepts it, with
 * `Vary: Accept-Encoding` either way. Streams are never touched. Dynamic
 * bodies use fast settings: at these sizes a lower brotli quality loses a
 * few per cent of ratio and gains an order of magnitude in time.
 */
import { brotliCompressSync, constants as zlib } from "node:zlib";

export const MIN_COMPRESS_BYTES = 1024;

export type Encoding = "br" | "gzip";

const COMPRESSIBLE = /^application\/(json|problem\+json|yaml)\b/;

/** The encoding to answer in: brotli before gzip, an explicit q=0 refusing one. */
export function acceptedEncoding(header: string | null): Encoding | null {
  if (!header) return null;
  const accepted = new Set<string>();
  for (const part of header.toLowerCase().split(",")) {
    const [name = "", ...params] = part.trim().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name.trim());
  }
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return null;
}

export function compress(bytes: Uint8Array<ArrayBuffer>, encoding: Encoding): Uint8Array<ArrayBuffer> {
  if (encoding === "gzip") return new Uint8Array(Bun.gzipSync(bytes, { level: 6 }));
  return new Uint8Array(brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }));
}

export function isCompressibleType(contentType: string | null): boolean {
  return contentType !== null && COMPRESSIBLE.test(contentType);
}

/** Whether a text body stays within MIN_COMPRESS_BYTES whatever its characters: UTF-8 spends at most 3 bytes on a UTF-16 code unit. */
export function neverCompressed(text: string): boolean {
  return text.length * 3 <= MIN_COMPRESS_BYTES;
}

/** A finished response whose body is known to be too small to compress: only its Vary is set, without reading the body back. */
export function uncompressed(response: Response): Response {
  addVary(response.headers);
  return response;
}

function addVary(headers: Headers): void {
  const vary = headers.get("vary");
  if (!vary) headers.set("vary", "Accept-Encoding");
  else if (!/accept-encoding/i.test(vary)) headers.set("vary", `${vary}, Accept-Encoding`);
}

/** A response built from a body already in hand, compressed when it is worth it and accepted. */
export function compressedResponse(body: string | Uint8Array<ArrayBuffer>, init: { status: number; headers: Headers }, request: Request): Response {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  addVary(init.headers);
  const encoding = bytes.byteLength > MIN_COMPRESS_BYTES ? acceptedEncoding(request.headers.get("accept-encoding")) : null;
  if (encoding === null) return new Response(bytes, init);
  init.headers.set("content-encoding", encoding);
  return new Response(compress(bytes, encoding), init);
}

/**
 * The same for a finished Response: only a compressible type with a body that
 * is not already encoded is read (a Response made from a string, never a
 * stream, since streams are text/event-stream).
 */
export async function compressFinished(response: Response, request: Request): Promise<Response> {
  if (!response.body || response.headers.has("content-encoding") || !isCompressibleType(response.headers.get("content-type"))) return response;
  const bytes = new Uint8Array(await response.arrayBuffer());
  return compressedResponse(bytes, { status: response.status, headers: new Headers(response.headers) }, request);
}
