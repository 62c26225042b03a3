/**
 * Turns every failure into a problem detail: our own HttpProblems, Elysia's
 * validation and parse errors, unknown routes (404), wrong methods (405),
 * oversized (413) or non-JSON (415/400) bodies, and unexpected exceptions
 * (500, logged with their stack but never shown to the client).
 */
import { Elysia, NotFoundError, ParseError, ValidationError } from "elysia";
import type { Logger } from "../log.ts";
import { HttpProblem, type ProblemField } from "./problem.ts";

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
    const message = "summary" in issue && typeof issue.summary === "string" ? issue.summary : issue.message;
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
  let patterns: { method: string; pattern: RegExp }[] | null = null;
  const allowedMethods = (path: string): string[] => {
    patterns ??= routes().map((r) => ({ method: r.method.toUpperCase(), pattern: compilePattern(r.path) }));
    return [...new Set(patterns.filter((p) => p.pattern.test(path)).map((p) => p.method))];
  };

  const tooLarge = () => new HttpProblem(413, `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes (1 MiB).`);
  return new Elysia({ name: "hub/errors" })
    .onRequest(({ request }) => {
      if (request.method === "GET" || request.method === "HEAD") return;
      const length = request.headers.get("content-length");
      if (length !== null && Number(length) > MAX_BODY_BYTES) throw tooLarge();
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
        const allowed = allowedMethods(path);
        problem =
          allowed.length > 0 && !allowed.includes(request.method)
            ? new HttpProblem(405, `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}.`, {
                headers: { allow: allowed.join(", ") },
              })
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
