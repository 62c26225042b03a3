/** Security headers on every response, and CORS for the configured origins only. */
import { Elysia } from "elysia";
import type { CorsOrigins } from "../config/options.ts";
import { HttpProblem } from "./problem.ts";

/** For HTML pages: only the hub's own scripts, styles, images and API. */
export const HTML_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
const ALLOWED_HEADERS = "Content-Type, Authorization, X-API-Key, X-CSRF-Token, Last-Event-ID, If-None-Match";
const EXPOSED_HEADERS = "ETag, Retry-After";

export function securityHeaders(options: { https: boolean; cors: CorsOrigins }) {
  const base: Record<string, string> = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
  if (options.https) base["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  const { cors } = options;
  const allowedOrigin = (origin: string): boolean => cors.kind === "any" || (cors.kind === "list" && cors.origins.includes(origin));

  return new Elysia({ name: "hub/security" }).onRequest(({ request, set }) => {
    Object.assign(set.headers, base);
    const origin = request.headers.get("origin");
    const preflight = request.method === "OPTIONS" && request.headers.has("access-control-request-method");
    if (origin === null || cors.kind === "none" || !allowedOrigin(origin)) {
      if (preflight) throw new HttpProblem(403, `Cross-origin requests from ${origin ?? "this page"} are not allowed; ask the operator to add it to CORS_ALLOWED_ORIGINS.`);
      return;
    }
    if (cors.kind === "any") {
      set.headers["access-control-allow-origin"] = "*";
    } else {
      set.headers["access-control-allow-origin"] = origin;
      set.headers["access-control-allow-credentials"] = "true";
      set.headers.vary = "Origin";
    }
    set.headers["access-control-expose-headers"] = EXPOSED_HEADERS;
    if (preflight) {
      set.headers["access-control-allow-methods"] = ALLOWED_METHODS;
      set.headers["access-control-allow-headers"] = ALLOWED_HEADERS;
      set.headers["access-control-max-age"] = "600";
      return new Response(null, { status: 204 });
    }
  });
}
