/**
 * Turns every failure into a problem detail: our own HttpProblems, Elysia's
 * validation and parse errors, unknown routes (404), wrong methods (405),
 * oversized (413), non-JSON (415/400) or too slow (408) bodies, and
 * unexpected exceptions (500, logged with their stack but never shown to the
 * client). Refusals at a limit and refused access are logged as such, with
 * the client's address and the reason, never with a stack.
 */
import { platformRedirect, wantsHtmlPage } from "./addresses.ts";
import { Elysia, NotFoundError, ParseError, ValidationError } from "elysia";
import { clientKey, viewerKey } from "../auth/presence.ts";
import { OPTIONS } from "../config/options.ts";
import type { LogFields, Logger } from "../log.ts";
import { clientIp } from "./client-ip.ts";
import type { StorageRefusal } from "../db/storage.ts";
import { HttpProblem, type ProblemField } from "../domain/problem.ts";
import { storageProblem } from "./storage-gate.ts";
import { ruleMessage } from "./rules.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** The deepest nesting of objects and arrays a JSON body may have; no request of the API needs more than a few levels. */
export const MAX_JSON_DEPTH = 32;
/** How long a request body may take to arrive in full where no access step says otherwise (BODY_TIMEOUT_MS's default). */
const BODY_DEADLINE_MS = OPTIONS.bodyTimeoutMs.default;
/** A client refused at a limit gets one log line per reason per this interval, however often it is refused. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Refused clients remembered for that; beyond, the longest-quiet are forgotten (and may be logged again). */
const MAX_REFUSED_CLIENTS = 10_000;

type ProblemOptions = ConstructorParameters<typeof HttpProblem>[2];

/**
 * A refusal because a limit was reached (streams, requests in flight, the
 * body deadline): logged at warn once per client and reason per minute, so
 * that a flood of refusals cannot become a flood of log lines.
 */
export class CapacityRefusal extends HttpProblem {
  constructor(
    status: number,
    detail: string,
    /** The refused client's address. */
    readonly ip: string,
    /** Which limit, in words an operator can look up (it names the setting). */
    readonly reason: string,
    options: ProblemOptions = {},
  ) {
    super(status, detail, options);
  }
}

/** A refused credential or CSRF token, logged every time (for forensics) with the client's address and the reason. */
export class AccessRefusal extends HttpProblem {
  constructor(
    problem: HttpProblem,
    readonly ip: string,
    readonly rule: string,
    /** The signed-in user who was refused, when there is one. */
    readonly username: string | null,
  ) {
    super(problem.status, problem.message, { title: problem.title, headers: { ...problem.headers } });
  }
}

/** Logs capacity refusals at most once per client and reason per interval, saying how many went unlogged since. */
export class RefusalLog {
  private readonly logged = new Map<string, { at: number; unlogged: number }>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  note(refusal: CapacityRefusal, fields: LogFields = {}): void {
    const ip = viewerKey(refusal.ip);
    const key = `${clientKey(ip)} ${refusal.reason}`;
    const now = this.now();
    const last = this.logged.get(key);
    if (last && now - last.at < REFUSAL_LOG_INTERVAL_MS) {
      last.unlogged++;
      return;
    }
    this.log.warn("refused at a limit", { ip, reason: refusal.reason, status: refusal.status, ...fields, unloggedSinceLastLine: last?.unlogged ?? 0 });
    // Re-inserted at the end, so the map stays ordered by when each client was last logged.
    this.logged.delete(key);
    this.logged.set(key, { at: now, unlogged: 0 });
    if (this.logged.size > MAX_REFUSED_CLIENTS) this.forget(now);
  }

  private forget(now: number): void {
    for (const [key, entry] of this.logged) {
      if (this.logged.size <= MAX_REFUSED_CLIENTS && now - entry.at < REFUSAL_LOG_INTERVAL_MS) break;
      this.logged.delete(key);
    }
  }
}

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

/** Turns an error that means "storage cannot be written right now" into its refusal (noted and logged by Storage), else null. */
export type StorageRefusals = (error: unknown) => StorageRefusal | null;

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
 * over the limit is refused before anything is read; in the hub a body is
 * read only after its route's access rule passed). `routes` is read on
 * the first unknown request, once the app is fully assembled, to tell a
 * wrong method (405 with Allow) from an unknown path (404).
 */
export function errorHandling(
  log: Logger,
  routes: () => readonly RouteShape[],
  finish: (response: Response, request: Request, route: string | undefined) => Response,
  storageRefusal: StorageRefusals,
  notFoundPage: ((request: Request) => Promise<Response>) | null = null,
) {
  let table: RouteTable | null = null;
  const routeTable = () => (table ??= new RouteTable(routes()));

  const tooLarge = () => new HttpProblem(413, `The request body is larger than the limit of ${MAX_BODY_BYTES} bytes (1 MiB).`);
  const refusals = new RefusalLog(log);
  return new Elysia({ name: "hub/errors" })
    // Refusals before routing are answered here, finished like every other reply: Elysia answers an
    // error thrown this early through its toResponse() without the app's error handler or headers.
    .onRequest(({ request }) => {
      let refusal: HttpProblem | null = null;
      if (request.method !== "GET" && request.method !== "HEAD") {
        const length = request.headers.get("content-length");
        if (length !== null && Number(length) > MAX_BODY_BYTES) {
          const answer = () => finish(tooLarge().toResponse(), request, undefined);
          return request.body ? discardBody(request.body.getReader(), performance.now() + BODY_DEADLINE_MS).then(answer) : answer();
        }
      }
      refusal ??= routeTable().literalRefusal(request.method, pathOf(request.url));
      return refusal ? finish(refusal.toResponse(), request, undefined) : undefined;
    })
    .onParse({ as: "global" }, ({ request, contentType, server }) => {
      if (!request.body) return null;
      const pending = new PendingBody(request, contentType);
      return awaitingAccess.has(request) ? pending : pending.read(BODY_DEADLINE_MS, () => clientIp(request, { kind: "none" }, server));
    })
    .onError({ as: "global" }, ({ error, request, path, set, route }) => {
      let problem: HttpProblem;
      const refusal = error instanceof HttpProblem ? null : storageRefusal(error);
      if (error instanceof HttpProblem) problem = error;
      else if (refusal) problem = storageProblem(refusal);
      else if (error instanceof ValidationError) problem = validationProblem(error);
      else if (error instanceof ParseError) {
        problem = error.cause instanceof HttpProblem ? error.cause : new HttpProblem(400, "The request body could not be parsed as JSON.");
      }
      else if (error instanceof NotFoundError) {
        const url = new URL(request.url);
        const redirect = request.method === "GET" || request.method === "HEAD" ? platformRedirect(url) : null;
        if (redirect !== null) {
          set.status = 301;
          return finish(new Response(null, { status: 301, headers: { location: redirect, "cache-control": "public, max-age=86400" } }), request, undefined);
        }
        if (notFoundPage && wantsHtmlPage(request, path)) {
          set.status = 404;
          return notFoundPage(request).then((page) => finish(page, request, undefined));
        }
        const allowed = routeTable().allowedMethods(path);
        problem =
          allowed.length > 0 && !allowed.includes(request.method)
            ? methodNotAllowed(request.method, path, allowed)
            : new HttpProblem(404, `There is no route ${request.method} ${path}.`);
      } else {
        problem = new HttpProblem(500, "The hub could not complete this request; the error has been logged.");
      }
      if (problem instanceof CapacityRefusal) refusals.note(problem, { method: request.method, path });
      else if (problem instanceof AccessRefusal) logAccessRefusal(log, problem, request.method, path);
      else if (problem.status >= 500 && refusal === null) log.error("request failed", { method: request.method, path, error });
      set.status = problem.status;
      return finish(problem.toResponse(), request, error instanceof NotFoundError ? undefined : route);
    });
}

/** Requests whose route's access step reads their body (see `readBodyAfterAccess`). */
const awaitingAccess = new WeakSet<Request>();

/**
 * Leaves this request's body unread until its route's access rule has
 * passed: the access step then reads it (PendingBody.read), so a caller
 * without the right credentials costs the hub neither reading nor parsing a
 * byte. Without it (an app with no access rules) bodies are read at once.
 */
export function readBodyAfterAccess(request: Request): void {
  awaitingAccess.add(request);
}

/** A request body not read yet. */
export class PendingBody {
  /** Made as routing ends, just after the headers arrived: the deadline counts from here. */
  private readonly since = performance.now();

  constructor(
    private readonly request: Request,
    private readonly contentType: string | undefined,
  ) {}

  /**
   * Reads the whole body, refusing it with 408 when it has not arrived in
   * full `deadlineMs` after the request began (a client that trickles a body
   * would otherwise hold its connection for as long as it likes), and parses
   * it as a JSON object; an empty body is null.
   */
  async read(deadlineMs: number, client: () => string): Promise<object | null> {
    const late = () =>
      new CapacityRefusal(408, `The request body did not arrive in full within ${deadlineMs / 1000} s; send it at once.`, client(), `body not received within ${deadlineMs} ms`, {
        title: "Request Timeout",
        // Closing is what frees the connection of a client that is still trickling.
        headers: { connection: "close" },
      });
    const bytes = await readCapped(this.request, MAX_BODY_BYTES, this.since + deadlineMs, late);
    return bytes.byteLength === 0 ? null : parseJsonObject(bytes, this.contentType);
  }
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests objects and arrays deeper than `limit`, found in
 * one pass over the bytes without building anything. Brackets inside strings
 * do not count; an escaped quote does not end a string. Text that is not
 * valid JSON may give either answer: the parser refuses it next anyway.
 */
export function nestedDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
  }
  return false;
}

function parseJsonObject(bytes: Uint8Array, contentType: string | undefined): object {
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
  // Refused before parsing: building, validating and describing a deeply nested value costs time and memory
  // that grow much faster than its size, and would hold up every other request meanwhile.
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
    throw new HttpProblem(400, `The request body's JSON nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no request needs that many.`, {
      errors: [{ location: "body", message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
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
}

function logAccessRefusal(log: Logger, refusal: AccessRefusal, method: string, path: string): void {
  const fields = { ip: viewerKey(refusal.ip), status: refusal.status, reason: refusal.message, rule: refusal.rule, method, path };
  const withUser = refusal.username === null ? fields : { ...fields, username: refusal.username };
  // A missing or expired credential is routine; a refused CSRF token or a non-admin at an admin route is not.
  if (refusal.status === 401) log.info("access refused", withUser);
  else log.warn("access refused", withUser);
}

/**
 * How much of a body over the limit is read and thrown away before the 413
 * is sent. A connection closed with unread data is reset, and a client that
 * sends its whole body before reading (as curl does) then never sees the
 * answer; past this, or past the body deadline, the hub answers anyway.
 */
const DISCARD_MAX_BYTES = 16 * 1024 * 1024;

/** A client that pauses this long while its refused body is discarded has stopped sending it: it is answered then. */
const DISCARD_IDLE_MS = 1000;

/** Reads and drops what arrives on `reader`, up to DISCARD_MAX_BYTES, until `deadline` or a pause of DISCARD_IDLE_MS, then lets it go. */
async function discardBody(reader: ReadableStreamDefaultReader<Uint8Array>, deadline: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (let dropped = 0; dropped <= DISCARD_MAX_BYTES; ) {
      const wait = Math.min(DISCARD_IDLE_MS, deadline - performance.now());
      if (wait <= 0) break;
      const expired = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), wait);
      });
      const next = await Promise.race([reader.read(), expired]);
      clearTimeout(timer);
      if (next === "late" || next.done) break;
      dropped += next.value.byteLength;
    }
  } catch {
    // The client went away: there is nobody left to answer.
  } finally {
    clearTimeout(timer);
    // Not awaited: cancelling may wait on the very client that stopped sending.
    reader.cancel().catch(() => {});
  }
}

/** The body's length as its Content-Length header declares it, or null without one (a chunked body) or with one that is not a length. */
function declaredLength(request: Request): number | null {
  const header = request.headers.get("content-length");
  return header !== null && /^\d{1,16}$/.test(header) ? Number(header) : null;
}

/**
 * The whole body of a request, refused with 413 beyond `limit` bytes and
 * with `late()` if it has not arrived in full by `deadline`. A body with a
 * declared length within the limit is read in one native call (a declared
 * length over it was refused before routing); any other (chunked) is read
 * chunk by chunk, so that reading stops as soon as the limit is passed.
 */
async function readCapped(request: Request, limit: number, deadline: number, late: () => HttpProblem): Promise<Uint8Array> {
  const tooLarge = () => new HttpProblem(413, `The request body is larger than the limit of ${limit} bytes.`);
  const declared = declaredLength(request);
  const stream = request.body;
  if (stream === null) return new Uint8Array(0);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, deadline - performance.now()));
  });
  try {
    if (declared === null || declared > limit) return await readChunks(stream, limit, expired, late, tooLarge);
    const reading = request.bytes();
    // A body still on its way when the deadline passes ends with its connection; nobody awaits it then.
    reading.catch(() => {});
    const bytes = await Promise.race([reading, expired]);
    if (bytes === "late") throw late();
    if (bytes.byteLength > limit) throw tooLarge();
    return bytes;
  } finally {
    clearTimeout(timer);
  }
}

async function readChunks(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  expired: Promise<"late">,
  late: () => HttpProblem,
  tooLarge: () => HttpProblem,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const next = await Promise.race([reader.read(), expired]);
    if (next === "late") {
      // Not awaited: cancelling may wait on the very client that stopped sending.
      reader.cancel().catch(() => {});
      throw late();
    }
    if (next.done) break;
    total += next.value.byteLength;
    if (total > limit) {
      await discardBody(reader, performance.now() + BODY_DEADLINE_MS);
      throw tooLarge();
    }
    chunks.push(next.value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
