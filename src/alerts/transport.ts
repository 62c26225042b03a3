/**
 * One attempt to hand a request to a webhook's receiver: through the guard,
 * to the checked address, following at most a few redirects (each one
 * checked again), within a time limit, reading only the start of the reply.
 */
import { RefusedTarget, resolveTarget, type Resolve } from "./guard.ts";
import { redactAnswer } from "./redact.ts";
import type { FormatMethod, FormatSpec, Rendered } from "./formats/format.ts";

/** fetch as Bun has it: with TLS options, which pin the certificate's name while the URL names the address. */
export type Fetcher = (url: string, init: BunFetchRequestInit) => Promise<Response>;

export interface TransportOptions {
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  /** How much of a reply is read (for the delivery log) before the connection is dropped. */
  readonly bodyCapBytes: number;
  readonly resolve: Resolve;
  readonly fetch: Fetcher;
  /** Keep the connection for the next request to the same host (push services take thousands in a row); off unless asked. */
  readonly keepAlive?: boolean;
}

export interface Outcome {
  /** The receiver answered 2xx. */
  readonly delivered: boolean;
  /** The last reply's status, or null when none came. */
  readonly statusCode: number | null;
  /**
   * Why it was not delivered, in words safe to show, store and log: never the URL (which may hold a token), and the
   * receiver's answer only as redactAnswer leaves it (no URL, no token-like run, at most 200 characters).
   */
  readonly error: string | null;
}

/** What goes on the wire: a rendered message, sent with its format's method (POST when it names none). */
export interface OutgoingRequest extends Rendered {
  readonly method?: FormatMethod;
}

/**
 * The request one attempt makes in a format: to the URL the format's rule
 * builds from the target, with the format's method, and the delivery's id in
 * the headers the format puts it in.
 */
export function formatRequest(format: FormatSpec, target: string, messageId: string, rendered: Rendered): { url: string; request: OutgoingRequest } {
  return {
    url: format.target.deliveryUrl(new URL(target), messageId).href,
    request: { method: format.method, headers: { ...rendered.headers, ...format.idempotency(messageId) }, body: rendered.body },
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Reads at most `cap` bytes of a reply, then drops the rest (and, with keep-alive off, the connection). */
async function readCapped(response: Response, cap: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < cap) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, cap));
}

/**
 * Words for a failed request. Bun's messages repeat the URL, which for
 * Discord or ntfy holds the credential, so only the error's code is kept.
 */
function failure(error: unknown, timeoutMs: number, stopped: boolean): string {
  if (error instanceof RefusedTarget) return error.message;
  if (stopped) return "stopped before a reply came (the hub shut down)";
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `no reply within ${timeoutMs / 1000} s`;
  const code = error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : error instanceof Error ? error.name : "unknown error";
  return `request failed (${code})`;
}

/** The request to make for a URL once its address is known: to that address, with the name in Host and, over TLS, as the certificate's name. */
export function pinnedRequest(url: URL, address: string): { url: string; host: string; serverName: string | null } {
  const target = new URL(url.href);
  target.hostname = address.includes(":") ? `[${address}]` : address;
  const named = target.hostname !== url.hostname;
  return { url: target.href, host: url.host, serverName: named && url.protocol === "https:" ? url.hostname : null };
}

/** Sends the request (a push's body is encrypted bytes), to each redirect with the same method; never throws. `stop` aborts it when the hub shuts down. */
export async function deliver(
  target: string,
  request: Omit<OutgoingRequest, "body"> & { readonly body: string | Blob },
  options: TransportOptions,
  stop: AbortSignal,
): Promise<Outcome> {
  const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), stop]);
  let url = new URL(target);
  let statusCode: number | null = null;
  try {
    for (let hop = 0; ; hop++) {
      const address = await resolveTarget(url, options.allowPrivate, options.resolve);
      signal.throwIfAborted();
      const pinned = pinnedRequest(url, address);
      const response = await options.fetch(pinned.url, {
        method: request.method ?? "POST",
        headers: { ...request.headers, host: pinned.host, "user-agent": "incentives-hub-webhooks" },
        body: request.body,
        redirect: "manual",
        keepalive: options.keepAlive ?? false,
        signal,
        ...(pinned.serverName === null ? {} : { tls: { serverName: pinned.serverName } }),
      });
      statusCode = response.status;
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel().catch(() => undefined);
        if (hop >= options.maxRedirects) return { delivered: false, statusCode, error: `more than ${options.maxRedirects} redirects` };
        url = new URL(location, url);
        if (url.protocol !== "http:" && url.protocol !== "https:") return { delivered: false, statusCode, error: "redirected to a URL that is not http or https" };
        continue;
      }
      if (response.ok) {
        // The 2xx is the acknowledgement; what follows it is not needed.
        await response.body?.cancel().catch(() => undefined);
        return { delivered: true, statusCode, error: null };
      }
      const said = (await readCapped(response, options.bodyCapBytes)).trim();
      return { delivered: false, statusCode, error: redactAnswer(said === "" ? `HTTP ${response.status}` : `HTTP ${response.status}: ${said}`) };
    }
  } catch (error) {
    return { delivered: false, statusCode, error: failure(error, options.timeoutMs, stop.aborted) };
  }
}
