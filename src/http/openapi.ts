/**
 * The OpenAPI 3.1 description, built from the routes themselves: their
 * TypeBox schemas (params, query, headers, body, responses), their access
 * rules and their `detail`. The hub builds it rather than taking a
 * generator's output as is, because the description must be a *valid* 3.1
 * document that says exactly what the server enforces (SPEC §7): real media
 * types, no 3.0-only keywords, documented headers, and every error reply.
 *
 * Route `detail` keys read here (and removed from the output):
 * - `x-request-body`: the body schema when the route checks its body in the
 *   domain rather than by schema;
 * - `x-media-type`: the 200 reply's media type when it is not JSON;
 * - `x-response-headers`: `{ status: [header names] }` beyond the defaults;
 * - `x-body-optional`: true when the route also takes a request without a body;
 * - `x-problems`: `{ status: { description, examples } }`, a refusal particular
 *   to the route: its sentence is added to the status's description and its
 *   named examples (problem bodies) to the problem content.
 */
import type { AnyElysia } from "elysia";
import { HUB_NAME, HUB_VERSION } from "../version.ts";
import { ACCESS_DESCRIPTIONS, type AccessRule } from "./access.ts";
import { MAX_BODY_BYTES } from "./errors.ts";
import { hostChecked } from "./host.ts";
import { STATUS_TITLES, type ProblemBody } from "../domain/problem.ts";
import { ProblemSchema } from "./problem.ts";
import { DOCUMENT_AS } from "./schemas.ts";

export const TAGS = [
  { name: "system", description: "Health, this description and the interactive reference." },
  {
    name: "incentives",
    description:
      "The live incentives per platform and region, as JSON and as a Server-Sent Events stream, with coverage, history, activity and forecast. " +
      "Public unless the hub requires sign-in (requireAuth).",
  },
  {
    name: "agent",
    description: [
      "How volunteer agents report readings.",
      "",
      "An agent watches one region on one platform and posts what it reads. To run one, ask an admin of this hub for a token",
      "(an admin creates the agent and sees its token once), then point the agent at this hub's address with that token.",
      "The agent asks `GET /api/v1/agent/assignment` what to watch and how often, and posts each reading to",
      "`POST /api/v1/agent/readings`; every reply carries the current assignment. An agent that reads the game's Bloodpoint-event schedule",
      "posts it to `POST /api/v1/agent/events`. Tokens go in `Authorization: Bearer <token>`.",
    ].join("\n"),
  },
  {
    name: "auth",
    description:
      "Signing in. Sessions live in the hub_session cookie (HttpOnly, SameSite=Lax; `__Host-hub_session`, always Secure, when the hub's origin is https); " +
      "every state change made with it must send the session's csrfToken (GET /api/v1/auth/session) in X-CSRF-Token. Calls made from this page add it automatically. " +
      "Passing the second factor replaces the session (a new cookie and csrfToken). Adding or removing a second factor and creating an API key need a password or " +
      "second-factor check from the last 10 minutes: otherwise 403 with `reauth: true`, answered by POST /api/v1/auth/reauth.",
  },
  { name: "mfa", description: "Second factors: TOTP apps and passkeys. A session that passed only the password may enrol a first factor or verify one." },
  { name: "api-keys", description: "Your own API keys for scripts (when the hub allows them). Send as Authorization: Bearer hub_… or X-API-Key: hub_…." },
  { name: "admin-users", description: "Admin: users. The last enabled admin can never be demoted, disabled or deleted." },
  { name: "admin-settings", description: "Admin: runtime settings and who is online." },
  { name: "admin-agents", description: "Admin: agents. Every change reaches agents (assignments), viewers (payloads, stream) and coverage at once." },
  { name: "admin-data", description: "Admin: which agent reported what, and removing readings. Live values are rebuilt after every deletion." },
  {
    name: "admin-events",
    description:
      "Admin: bloodpoint events shown as activeEvent while in force; pushed to streams when they start and end. Admins make their own; " +
      "the agents' schedule is listed beside them (source agent) and can be hidden, not changed.",
  },
  { name: "admin-audit", description: "Admin: the audit log of every change, newest first." },
  {
    name: "push",
    description:
      "Web Push (RFC 8030, 8291, 8292) without an account: a browser subscribes with the hub's key and rules, and is told when a rule becomes true, " +
      "even with every page closed. Subscriptions are managed with the manage token handed out at creation.",
  },
  {
    name: "admin-backups",
    description:
      "Admin: backups off the machine (BACKUP_SCHEDULE, BACKUP_TARGET): the target's backups, a run on demand, the last error, and each backup's file. " +
      "Restoring is a command (hub restore), never an API call: it needs the hub stopped.",
  },
  {
    name: "admin-alerts",
    description:
      "Admin: webhooks that tell other services when a bonus worth queuing for appears, a platform's status changes, or an event starts or ends. " +
      "Deliveries go through a durable outbox, in order per webhook, retried for up to a day. The json format follows Standard Webhooks, so any " +
      "of its libraries verifies the signature with the webhook's secret.",
  },
] as const;

export const SECURITY_SCHEMES = {
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "hub_session",
    description:
      "The session cookie set by login: hub_session on an http origin, __Host-hub_session on an https one (send back whichever the hub set). " +
      "State changes made with it must send the session's csrfToken in X-CSRF-Token.",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "hub_<43 base64url characters>",
    description: "A user API key as `Authorization: Bearer hub_…`. It acts as its owner with the owner's current role.",
  },
  apiKeyHeader: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "The same user API key sent as `X-API-Key: hub_…`.",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "The operator's METRICS_TOKEN, for GET /metrics only.",
  },
  agentToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "86 base64url characters",
    description: "An agent's token, for /api/v1/agent/* only.",
  },
} as const;

/** Response headers clients rely on, documented once and referenced by name. */
const HEADERS: Record<string, { description: string; schema: Record<string, unknown> }> = {
  "Cache-Control": {
    description: "How long the reply may be cached: `public, max-age=N, stale-while-revalidate=4N` for public reads, `no-store` while sign-in is required or for private replies.",
    schema: { type: "string", examples: ["public, max-age=15, stale-while-revalidate=60"] },
  },
  ETag: { description: "The payload's entity tag; send it back in If-None-Match to get 304 while nothing changed.", schema: { type: "string", examples: ['"1795300000123"'] } },
  "Retry-After": { description: "Seconds to wait before trying again.", schema: { type: "integer", minimum: 0, examples: [30] } },
  "Set-Cookie": {
    description: "A new session cookie, hub_session (__Host-hub_session on an https origin; HttpOnly, SameSite=Lax), and hub_device when the device is remembered.",
    schema: { type: "string" },
  },
  Allow: { description: "The methods this path accepts.", schema: { type: "string", examples: ["GET"] } },
};

/** Request headers, as reusable parameters. */
const HEADER_PARAMETERS: Record<string, Record<string, unknown>> = {
  CsrfToken: {
    name: "X-CSRF-Token",
    in: "header",
    required: false,
    description: "The session's csrfToken (GET /api/v1/auth/session). Required on this call when it is made with the session cookie; API keys need none.",
    schema: { type: "string" },
  },
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "An ETag from an earlier reply; 304 while the payload is unchanged.",
    schema: { type: "string" },
  },
  LastEventId: {
    name: "Last-Event-ID",
    in: "header",
    required: false,
    description: "The last revision received; sent by browsers when they reconnect. Equal to the current revision: no duplicate first message.",
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
};

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const WITH_COOKIE: ReadonlySet<AccessRule> = new Set(["session-partial", "session", "admin"]);

export interface OpenApiDocument {
  readonly json: string;
  readonly yaml: string;
}

type JsonObject = Record<string, unknown>;

interface RouteHooks {
  readonly params?: unknown;
  readonly query?: unknown;
  readonly headers?: unknown;
  readonly body?: unknown;
  readonly response?: unknown;
  readonly detail?: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Elysia widens each integer of a route's schemas in place to "an integer,
 * or a string holding one" so that it can coerce query strings; the hub
 * checks its wire values strictly, so the description shows the integer.
 */
function uncoerced(node: JsonObject): JsonObject | null {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return null;
  const [first, second] = branches as unknown[];
  if (!isObject(first) || !isObject(second) || first.type !== "string" || first.format !== "integer") return null;
  const { anyOf: _widened, ...outer } = node;
  return { ...outer, ...second };
}

/**
 * A TypeBox schema as an OpenAPI 3.1 schema: TypeBox's symbol-keyed
 * bookkeeping dropped, a wire form declared with DOCUMENT_AS put in place of
 * the schema that checks it, no `additionalProperties: false` (the hub
 * ignores unknown fields) and no 3.0 `nullable`, which Elysia's t.Nullable
 * adds beside the `anyOf` with `null` that already says it.
 */
function toDocSchema(schema: unknown): unknown {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const documented = node[DOCUMENT_AS];
    if (isObject(documented)) {
      const { description } = node;
      return walk(description === undefined ? documented : { description, ...documented });
    }
    const coerced = uncoerced(node);
    if (coerced) return walk(coerced);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "additionalProperties" && value === false) continue;
      if (key === "nullable" || key === "x-rule") continue;
      out[key] = walk(value);
    }
    return out;
  };
  if (schema === undefined) return undefined;
  return walk(JSON.parse(JSON.stringify(schema)) as unknown);
}

/** The values of a vocabulary (a union of string constants, or a string enum), or null for any other schema. */
function vocabularyValues(node: JsonObject): string[] | null {
  const branches = node.anyOf;
  if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => isObject(b) && typeof b.const === "string")) {
    return branches.map((b) => String((b as JsonObject).const));
  }
  if (node.type === "string" && Array.isArray(node.enum) && node.enum.length > 0 && node.enum.every((v) => typeof v === "string")) return node.enum as string[];
  return null;
}

/**
 * Moves every titled object schema and every titled vocabulary into
 * components and refers to it there, so clients generated from the
 * description get named types (and the web app its vocabularies). A
 * vocabulary's description stays where it is used, since each use explains
 * its own field. Two different schemas under one title are a programming error.
 */
function hoist(node: unknown, components: Map<string, string>, schemas: JsonObject): unknown {
  if (Array.isArray(node)) return node.map((item) => hoist(item, components, schemas));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = hoist(value, components, schemas);
  const title = out.title;
  if (typeof title !== "string") return out;
  const values = vocabularyValues(out);
  if (out.type !== "object" && values === null) return out;
  const component = values === null ? out : { title, type: "string", enum: values };
  const text = JSON.stringify(component);
  const known = components.get(title);
  if (known !== undefined && known !== text) throw new Error(`Two different schemas are titled ${title}; give one another title.`);
  components.set(title, text);
  schemas[title] = component;
  const ref = { $ref: `#/components/schemas/${title}` };
  return values !== null && typeof out.description === "string" ? { ...ref, description: out.description } : ref;
}

function parametersOf(schema: unknown, location: "path" | "query" | "header"): JsonObject[] {
  const doc = toDocSchema(schema);
  if (!isObject(doc) || !isObject(doc.properties)) return [];
  const required = new Set(Array.isArray(doc.required) ? doc.required : []);
  return Object.entries(doc.properties).map(([name, property]) => {
    const { description, ...rest } = isObject(property) ? property : {};
    const parameter: JsonObject = { name, in: location, required: location === "path" || required.has(name) };
    if (typeof description === "string") parameter.description = description;
    parameter.schema = rest;
    return parameter;
  });
}

function headersFor(names: readonly string[]): JsonObject | undefined {
  if (names.length === 0) return undefined;
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function operationId(summary: string, used: Set<string>): string {
  const words = summary.replace(/[^A-Za-z0-9 ]+/g, " ").trim().split(/\s+/);
  const base = words.map((w, i) => (i === 0 ? w.toLowerCase() : `${w.charAt(0).toUpperCase()}${w.slice(1)}`)).join("");
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base}${n}`;
  used.add(id);
  return id;
}

/** A refusal particular to one route, documented beside the status's general description (detail key `x-problems`). */
export interface RouteProblem {
  readonly description: string;
  readonly examples: Readonly<Record<string, { readonly summary: string; readonly value: ProblemBody }>>;
}

interface Built {
  readonly operation: JsonObject;
  readonly path: string;
  readonly method: string;
}

function buildOperation(route: { method: string; path: string; hooks: unknown }, usedIds: Set<string>): Built | null {
  const hooks = (route.hooks ?? {}) as RouteHooks;
  const detail = hooks.detail ?? {};
  if (detail.hide === true) return null;
  const method = route.method.toUpperCase();
  const access = detail["x-access"] as AccessRule | undefined;
  const summary = typeof detail.summary === "string" ? detail.summary : `${method} ${route.path}`;
  const operation: JsonObject = {
    operationId: typeof detail.operationId === "string" ? detail.operationId : operationId(summary, usedIds),
  };
  for (const [key, value] of Object.entries(detail)) {
    if (key === "hide" || key === "operationId" || key.startsWith("x-") && key !== "x-access") continue;
    operation[key] = value;
  }
  if (access) {
    const rule = `Who may call it: ${ACCESS_DESCRIPTIONS[access]}`;
    operation.description = typeof detail.description === "string" && detail.description !== "" ? `${detail.description}\n\n${rule}` : rule;
  }

  const parameters: JsonObject[] = [...parametersOf(hooks.params, "path"), ...parametersOf(hooks.query, "query")];
  for (const header of parametersOf(hooks.headers, "header")) {
    const name = String(header.name).toLowerCase();
    if (name === "if-none-match") parameters.push({ $ref: "#/components/parameters/IfNoneMatch" });
    else if (name === "last-event-id") parameters.push({ $ref: "#/components/parameters/LastEventId" });
    else parameters.push(header);
  }
  if (access && WITH_COOKIE.has(access) && STATE_CHANGING.has(method)) parameters.push({ $ref: "#/components/parameters/CsrfToken" });
  if (parameters.length > 0) operation.parameters = parameters;

  const bodySchema = detail["x-request-body"] ?? hooks.body;
  const hasBody = bodySchema !== undefined;
  if (hasBody) {
    const schema = toDocSchema(bodySchema);
    // The schema's first example is the body's example too, so /docs fills the request in (it does not read a referenced schema's `examples`).
    const example = isObject(bodySchema) && Array.isArray(bodySchema.examples) ? bodySchema.examples[0] : undefined;
    // The hub refuses a missing body even where every field is optional; a route that takes none says so.
    operation.requestBody = { required: detail["x-body-optional"] !== true, content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } } };
  }

  const declared: Record<string, unknown> = isObject(hooks.response) && !("type" in hooks.response) && !("anyOf" in hooks.response) ? hooks.response : {};
  const extraHeaders = (detail["x-response-headers"] ?? {}) as Record<string, readonly string[]>;
  const routeProblems = (detail["x-problems"] ?? {}) as Record<string, RouteProblem>;
  const mediaType = typeof detail["x-media-type"] === "string" ? detail["x-media-type"] : "application/json";
  const responses: JsonObject = {};
  const statuses = new Set(Object.keys(declared).map(Number));
  for (const status of [405, 500]) statuses.add(status);
  if (hasBody) for (const status of [400, 408, 413, 415]) statuses.add(status);
  // A body sent where none is taken is still read, so one nested too deep, or over the limit, is refused as anywhere.
  else if (method !== "GET" && method !== "HEAD") for (const status of [400, 413]) statuses.add(status);
  for (const status of Object.keys(routeProblems)) statuses.add(Number(status));
  // A path parameter that does not match its schema (a malformed {id}) is refused before the handler runs.
  if (hooks.params !== undefined) statuses.add(400);
  if (hostChecked(method, route.path)) statuses.add(421);
  if (access === "admin" || access === "session" || access === "agent") for (const status of [401, 403]) statuses.add(status);
  if (access === "session-partial" || access === "public-read" || access === "metrics") statuses.add(401);
  if (access === "metrics") statuses.add(403);

  for (const status of [...statuses].sort((a, b) => a - b)) {
    const schema = declared[String(status)];
    const headerNames = [...(extraHeaders[String(status)] ?? [])];
    if (status >= 200 && status < 300 && method === "GET" && (access === "public-read" || access === "agent" || access === "public") && !headerNames.includes("Cache-Control")) {
      headerNames.push("Cache-Control");
    }
    if (status === 429 || status === 503) headerNames.push("Retry-After");
    if (status === 405) headerNames.push("Allow");
    const response: JsonObject = {};
    if (status >= 400) {
      const problem = schema === undefined || schema === ProblemSchema;
      const particular = routeProblems[String(status)];
      response.description = particular ? `${problemDescription(status)} ${particular.description}` : problemDescription(status);
      response.content = problem
        ? { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" }, ...(particular ? { examples: particular.examples } : {}) } }
        : { "application/json": { schema: toDocSchema(schema) } };
    } else {
      const doc = isObject(schema) ? toDocSchema(schema) : {};
      const description = isObject(doc) && typeof doc.description === "string" ? doc.description : status === 204 ? "Done; no content." : "Success.";
      response.description = description;
      if (status !== 204 && status !== 304) response.content = { [mediaType]: { schema: mediaType === "application/json" ? doc : { type: "string", description } } };
    }
    const headers = headersFor(headerNames);
    if (headers) response.headers = headers;
    responses[String(status)] = response;
  }
  operation.responses = responses;
  return { operation, path: route.path.replace(/:([^/]+)/g, "{$1}"), method: method.toLowerCase() };
}

function problemDescription(status: number): string {
  const title = STATUS_TITLES[status] ?? "Error";
  switch (status) {
    case 400:
      return `${title}: the input is malformed or breaks a rule; \`errors\` names each field.`;
    case 405:
      return `${title}: the path exists but not with this method; Allow lists those it takes.`;
    case 408:
      return `${title}: the body did not arrive in full within BODY_TIMEOUT_MS (10 s by default).`;
    case 413:
      return `${title}: the body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`;
    case 415:
      return `${title}: the body is not sent as application/json.`;
    case 421:
      return `${title}: the request was addressed (Host) to a name that is not this hub's origin or one of its ALLOWED_HOSTS; changes are taken only there.`;
    case 500:
      return `${title}: an unexpected failure, logged by the hub; no internals are shown.`;
    default:
      return title;
  }
}

export function buildOpenApiDocument(app: AnyElysia, origin = "http://localhost:3000"): Record<string, unknown> {
  const paths: Record<string, JsonObject> = {};
  const usedIds = new Set<string>();
  for (const route of app.routes) {
    const built = buildOperation(route, usedIds);
    if (!built) continue;
    paths[built.path] ??= {};
    (paths[built.path] as JsonObject)[built.method] = built.operation;
  }
  const schemas: JsonObject = {};
  const titles = new Map<string, string>();
  const hoistedPaths = hoist(paths, titles, schemas);
  schemas.Problem = toDocSchema(ProblemSchema);
  return {
    openapi: "3.1.1",
    info: {
      title: HUB_NAME,
      version: HUB_VERSION,
      description:
        "Live Dead by Daylight bloodpoint incentives per platform and region, collected from volunteer agents. " +
        "Errors are RFC 9457 problem details (`application/problem+json`). Request bodies are JSON objects of at most 1 MiB; " +
        "unknown fields are ignored, string lengths count characters (Unicode code points), and objects and arrays nest at most 32 levels (400 beyond). " +
        "Requests that change something must be addressed (Host) to this hub's own name or one of its ALLOWED_HOSTS, else 421; the agent routes are exempt. " +
        "The runtime answers two cases itself, without a body or the hub's headers: request headers over 16 KiB (431) and a request it cannot parse, " +
        "such as a control character in a header (400).",
      license: { name: "MIT", identifier: "MIT" },
      contact: { name: `${HUB_NAME} at ${origin}`, url: origin },
    },
    servers: [{ url: origin, description: "This hub" }],
    tags: TAGS,
    paths: hoistedPaths,
    components: {
      schemas,
      parameters: HEADER_PARAMETERS,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** Serialises the description once, on first use, after every route is registered. */
export function openApiDocument(app: () => AnyElysia, origin?: string): () => OpenApiDocument {
  let cached: OpenApiDocument | null = null;
  return () => {
    if (!cached) {
      const doc = buildOpenApiDocument(app(), origin);
      cached = { json: JSON.stringify(doc), yaml: Bun.YAML.stringify(doc, null, 2) };
    }
    return cached;
  };
}
