/** Security headers on every response, and CORS for the configured origins only. */
import { Elysia } from "elysia";
import type { CorsOrigins } from "../config/options.ts";
import { answered } from "./client-ip.ts";
import { compressFinished, isCompressibleType, neverCompressed, uncompressed } from "./compress.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { Metrics } from "../metrics.ts";
import { JSON_TYPE } from "./schemas.ts";

/**
 * For HTML pages: only the hub's own scripts, styles, images and API, and,
 * when latency probes are on, exactly the game's regional hosts the board
 * times over HTTPS (SPEC §17.1).
 */
export function htmlCsp(latencyHosts: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...latencyHosts.map((host) => `https://${host}`)].join(" "),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export const HTML_CSP = htmlCsp();

const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
const ALLOWED_HEADERS = "Content-Type, Authorization, X-API-Key, X-CSRF-Token, Last-Event-ID, If-None-Match";
const EXPOSED_HEADERS = "ETag, Retry-After";

function isPlainData(value: unknown): value is object {
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

type Finish = (response: Response, request: Request, route: string | undefined) => Response;

export interface ResponseFinisher {
  readonly plugin: ReturnType<typeof finisherPlugin>;
  /**
   * Adds the security headers, and CORS headers for an allowed origin, to a
   * response in place, and counts it for the metrics by route template.
   */
  finish: Finish;
}

/** Whether a response's CSP allows framing by some origin (frame-ancestors present and not 'none'). */
export function frameable(headers: Headers): boolean {
  const directive = /(?:^|;)\s*frame-ancestors\s+([^;]*)/.exec(headers.get("content-security-policy") ?? "")?.[1]?.trim();
  return directive !== undefined && directive !== "'none'";
}

/** Headers every response carries; a route that builds its own Response may include them up front. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "strict-origin-when-cross-origin",
};

/** The security headers, with HSTS when the hub's origin is https. */
export function securityHeaders(https: boolean): [string, string][] {
  const headers = Object.entries(SECURITY_HEADERS);
  if (https) headers.push(["strict-transport-security", "max-age=31536000; includeSubDomains"]);
  return headers;
}

function finisherPlugin(finish: Finish, preflight: (request: Request) => Response | undefined) {
  return new Elysia({ name: "hub/responses" })
    .onRequest(({ request }) => (request.method === "OPTIONS" ? preflight(request) : undefined))
    .mapResponse({ as: "global" }, ({ responseValue, request, set, route }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      let response: Response;
      let small = false;
      if (responseValue instanceof Response) response = responseValue;
      else if (isPlainData(responseValue)) {
        const text = JSON.stringify(responseValue);
        small = neverCompressed(text);
        response = new Response(text, { status, headers: { "content-type": JSON_TYPE } });
      } else if (responseValue === undefined || responseValue === null) response = new Response(null, { status });
      else if (typeof responseValue === "string") response = new Response(responseValue, { status, headers: { "content-type": "text/plain; charset=utf-8" } });
      else return;
      if (response.status < 400) finish(response, request, route);
      // Error replies were finished (and counted) by the error handler already; a handler that returned
      // one itself must still give back its request's slot.
      else answered(request);
      if (!response.body || !isCompressibleType(response.headers.get("content-type"))) return response;
      // Most JSON answers (a reading's among them) are far below the size worth compressing.
      return small ? uncompressed(response) : compressFinished(response, request);
    });
}

/**
 * Every response leaves through here: plain data becomes JSON
 * (`application/json; charset=utf-8`) with the handler's status, every
 * response gets the security headers, written onto the Response itself
 * (cheaper than Elysia's per-request header merge on the hot path), and the
 * request gives back its in-flight slot (a stream's answer is ready when the
 * stream opens, so open streams hold none).
 */
export function responseFinisher(options: { https: boolean; cors: CorsOrigins; metrics: Metrics }): ResponseFinisher {
  const base = securityHeaders(options.https);
  const { cors } = options;
  const allowedOrigin = (origin: string): boolean => cors.kind === "any" || (cors.kind === "list" && cors.origins.includes(origin));

  const finish: Finish = (response, request, route) => {
    answered(request);
    options.metrics.count(request.method, route || "unmatched", response.status);
    const headers = response.headers;
    if (options.https || !headers.has("x-content-type-options")) for (const [name, value] of base) headers.set(name, value);
    // A page whose CSP lets other sites frame it (the embeds) must not be refused by the older header.
    if (frameable(headers)) headers.delete("x-frame-options");
    if (cors.kind === "none") return response;
    const origin = request.headers.get("origin");
    if (origin === null || !allowedOrigin(origin)) return response;
    if (cors.kind === "any") {
      headers.set("access-control-allow-origin", "*");
    } else {
      headers.set("access-control-allow-origin", origin);
      headers.set("access-control-allow-credentials", "true");
      headers.append("vary", "Origin");
    }
    headers.set("access-control-expose-headers", EXPOSED_HEADERS);
    return response;
  };

  const preflight = (request: Request): Response | undefined => {
    if (!request.headers.has("access-control-request-method")) return undefined;
    const origin = request.headers.get("origin");
    if (origin === null || cors.kind === "none" || !allowedOrigin(origin)) {
      // Answered rather than thrown: an error thrown before routing would leave without the security headers.
      const refusal = new HttpProblem(403, `Cross-origin requests from ${origin ?? "this page"} are not allowed; ask the operator to add it to CORS_ALLOWED_ORIGINS.`);
      return finish(refusal.toResponse(), request, undefined);
    }
    const response = new Response(null, {
      status: 204,
      headers: { "access-control-allow-methods": ALLOWED_METHODS, "access-control-allow-headers": ALLOWED_HEADERS, "access-control-max-age": "600" },
    });
    return finish(response, request, undefined);
  };

  return { plugin: finisherPlugin(finish, preflight), finish };
}
