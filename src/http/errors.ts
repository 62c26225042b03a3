/**
 * Turns every failure into a problem detail: our own HttpProblems, Elysia's
 * validation and parse errors, unknown routes (404), wrong methods (405),
 * oversized (413) or non-JSON (415/400) bodies, and unexpected exceptions
 * (500, logged with their stack but never shown to the client).
 */
import { Elysia, NotFoundError, ParseError, ValidationError } from "elysia";
import type { Logger } from "../log.ts";
import { HttpProblem, type ProblemField } from "./problem.ts";
import { ruleMessage } from "./rules.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface RouteShape {
  readonly method: string;
  readonly path: string;
}

const SENSITIVE_FIELD = /password|token|secret|code|response|key/i;
const MAX_ECHO_LENGTH = 100;

function echo(value: unknown): unknown {
  if (typeof value === "string") return value.length > MAX_ECHO_LENGTH ? `${value.slice(0, MAX_ECHO_LENGTH)}…` : value;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  return undefined;
}

function validationProblem(error: ValidationError): HttpProblem {
  if (error.type === "response") {
    return new HttpProblem(500, "The hub produced a response that does not match its own description; the error has been logged.");
  }
  const seen = new Set<string>();
  const fields: ProblemField[] = [];
  for (const issue of error.all) {
    const path = issue.path.replace(/^\//, "").replaceAll("/", ".");
    const location = path === "" ? error.type : `${error.type}.${path}`;
    if (seen.has(location)) continue;
    seen.add(location);
    const message = ruleMessage(issue.schema, issue.value);
    const value = SENSITIVE_FIELD.test(path) ? undefined : echo(issue.value);
    fields.push(value === undefined ? { location, message } : { location, message, value });
  }
  const first = fields[0];
  const detail = first ? `Invalid ${first.location}: ${first.message}.` : `The request ${error.type} is not valid.`;
  return new HttpProblem(400, detail, { errors: fields });
}

/** SQLite failures that mean "storage is unavailable right now", not "the request was wrong". */
const UNAVAILABLE_STORAGE = new Set(["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN", "SQLITE_NOMEM"]);

function storageUnavailable(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== "SQLiteError") return false;
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === "string" && UNAVAILABLE_STORAGE.has(code.split("_").slice(0, 2).join("_"));
}

function methodNotAllowed(method: string, path: string, allowed: readonly string[]): HttpProblem {
  return new HttpProblem(405, `${method} is not allowed on ${path}; use ${allowed.join(", ")}.`, { headers: { allow: allowed.join(", ") } });
}

/** The path of a request URL, without its query, cheaply (this runs on every request). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  const path = query < 0 ? url.slice(start) : url.slice(start, query);
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** A route's shape for precedence: one letter per segment, literal ("s") before parameter ("p"). */
function shapeOf(path: string): string {
  return path
    .split("/")
    .slice(1)
    .map((segment) => (segment.startsWith(":") || segment === "*" ? "p" : "s"))
    .join("");
}

/**
 * Which methods a path takes. A literal segment wins over a parameter, as in
 * the router: /admin/agents/export is that route, never agent "export", so its
 * Allow lists only the literal route's methods, and another method on it is a
 * 405 rather than being answered by /admin/agents/:id.
 */
class RouteTable {
  private readonly patterns: { method: string; pattern: RegExp; shape: string }[];
  private readonly literals = new Map<string, string[]>();

  constructor(routes: readonly RouteShape[]) {
    this.patterns = routes.map((r) => ({ method: r.method.toUpperCase(), pattern: compilePattern(r.path), shape: shapeOf(r.path) }));
    for (const route of routes) {
      if (route.path.includes(":") || route.path.includes("*")) continue;
      const methods = this.literals.get(route.path) ?? [];
      methods.push(route.method.toUpperCase());
      this.literals.set(route.path, methods);
    }
  }

  allowedMethods(path: string): string[] {
    const matching = this.patterns.filter((p) => p.pattern.test(path));
    const best = matching.reduce((top, p) => (p.shape > top ? p.shape : top), "");
    return [...new Set(matching.filter((p) => p.shape === best).map((p) => p.method))];
  }

  /** A 405 for a method that only a parameter route would take on a literal route's path. */
  literalRefusal(method: string, path: string): HttpProblem | null {
    const methods = this.literals.get(path);
    if (!methods || methods.includes(method) || method === "OPTIONS" || (method === "HEAD" && methods.includes("GET"))) return null;
    return methodNotAllowed(method, path, methods);
  }
}

function compilePattern(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

/**
 * Errors, body limits and JSON parsing for the whole app (a declared length
 * over the limit is refused before anything is read). `routes` is read on
 * the first unknown request, once the app is fully assembled, to tell a
 * wrong method (405 with Allow) from an unknown path (404).
 */
export function errorHandling(log: Logger, routes: () => readonly RouteShape[], finish: (response: Response, request: Request, route: string | undefined) => Response) {
  let table: RouteTable | null = null;
  const routeTable = () => (table ??= new RouteTable(routes()));

  const tooLarge = () => new HttpProblem(413, `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes (1 MiB).`);
  return new Elysia({ name: "hub/errors" })
    // Refusals before routing are answered here, finished like every other reply: Elysia answers an
    // error thrown this early through its toResponse() without the app's error handler or headers.
    .onRequest(({ request }) => {
      let refusal: HttpProblem | null = null;
      if (request.method !== "GET" && request.method !== "HEAD") {
        const length = request.headers.get("content-length");
        if (length !== null && Number(length) > MAX_BODY_BYTES) refusal = tooLarge();
      }
      refusal ??= routeTable().literalRefusal(request.method, pathOf(request.url));
      return refusal ? finish(refusal.toResponse(), request, undefined) : undefined;
    })
    .onParse({ as: "global" }, async ({ request, contentType }) => {
      if (!request.body) return null;
      const bytes = await readCapped(request.body, MAX_BODY_BYTES);
      if (bytes.byteLength === 0) return null;
      const type = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
      if (type !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
        throw new HttpProblem(415, `Send the request body as JSON with "Content-Type: application/json" (got "${type || "none"}").`);
      }
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      } catch {
        throw new HttpProblem(400, "The request body is not valid UTF-8.");
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text) as unknown;
      } catch (error) {
        const reason = error instanceof SyntaxError ? `: ${error.message}` : "";
        throw new HttpProblem(400, `The request body is not valid JSON${reason}.`);
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new HttpProblem(400, "The request body must be a JSON object.", { errors: [{ location: "body", message: "expected an object" }] });
      }
      return parsed;
    })
    .onError({ as: "global" }, ({ error, request, path, set, route }) => {
      let problem: HttpProblem;
      if (error instanceof HttpProblem) problem = error;
      else if (error instanceof ValidationError) problem = validationProblem(error);
      else if (error instanceof ParseError) {
        problem = error.cause instanceof HttpProblem ? error.cause : new HttpProblem(400, "The request body could not be parsed as JSON.");
      }
      else if (error instanceof NotFoundError) {
        const allowed = routeTable().allowedMethods(path);
        problem =
          allowed.length > 0 && !allowed.includes(request.method)
            ? methodNotAllowed(request.method, path, allowed)
            : new HttpProblem(404, `There is no route ${request.method} ${path}.`);
      } else if (storageUnavailable(error)) {
        problem = new HttpProblem(503, "The hub cannot write to its database right now (full, read-only or busy); nothing was changed. Try again later.", {
          headers: { "retry-after": "30" },
        });
      } else {
        problem = new HttpProblem(500, "The hub could not complete this request; the error has been logged.");
      }
      if (problem.status >= 500) log.error(problem.status === 503 ? "storage unavailable" : "request failed", { method: request.method, path, error });
      set.status = problem.status;
      return finish(problem.toResponse(), request, error instanceof NotFoundError ? undefined : route);
    });
}

async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new HttpProblem(413, `The request body is larger than the limit of ${limit} bytes.`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
