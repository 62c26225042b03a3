/**
 * The OpenAPI 3.1 description, generated from the routes' own TypeBox
 * schemas and access rules, plus what only the hub knows: its name and
 * version, tags and security schemes.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { HUB_NAME, HUB_VERSION } from "../version.ts";
import { ProblemSchema, STATUS_TITLES } from "./problem.ts";

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
      "`POST /api/v1/agent/readings`; every reply carries the current assignment. Tokens go in `Authorization: Bearer <token>`.",
    ].join("\n"),
  },
  {
    name: "auth",
    description:
      "Signing in. Sessions live in the hub_session cookie (HttpOnly, SameSite=Lax); every state change made with it must send the session's csrfToken " +
      "(GET /api/v1/auth/session) in X-CSRF-Token. Calls made from this page add it automatically.",
  },
  { name: "mfa", description: "Second factors: TOTP apps and passkeys. A session that passed only the password may enrol a first factor or verify one." },
  { name: "api-keys", description: "Your own API keys for scripts (when the hub allows them). Send as Authorization: Bearer hub_… or X-API-Key: hub_…." },
  { name: "admin-users", description: "Admin: users. The last enabled admin can never be demoted, disabled or deleted." },
  { name: "admin-settings", description: "Admin: runtime settings and who is online." },
  { name: "admin-agents", description: "Admin: agents. Every change reaches agents (assignments), viewers (payloads, stream) and coverage at once." },
  { name: "admin-data", description: "Admin: which agent reported what, and removing readings. Live values are rebuilt after every deletion." },
  { name: "admin-events", description: "Admin: bloodpoint events shown as activeEvent while in force; pushed to streams when they start and end." },
] as const;

export const SECURITY_SCHEMES = {
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "hub_session",
    description: "The session cookie set by login. State changes made with it must send the session's csrfToken in X-CSRF-Token.",
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

export interface OpenApiDocument {
  readonly json: string;
  readonly yaml: string;
}

type Operation = Record<string, unknown> & { requestBody?: unknown };

/** A TypeBox schema as plain JSON Schema (its symbol-keyed bookkeeping dropped). */
function jsonSchema(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}

/**
 * Request bodies are JSON only. The generator cannot see body schemas behind
 * the hub's own JSON parser, so they are taken from the routes directly; a
 * route whose rules are checked in the domain rather than by schema documents
 * its body through `x-request-body`.
 */
function documentBodies(app: AnyElysia, paths: Record<string, Record<string, Operation>>): void {
  for (const route of app.routes) {
    const operation = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    if (!operation) continue;
    const hooks = route.hooks as { body?: unknown } | undefined;
    const documented = operation["x-request-body"] ?? hooks?.body;
    delete operation["x-request-body"];
    if (documented === undefined) delete operation.requestBody;
    else operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(documented) } } };
  }
}

/** Error replies are problem details: one shared schema, served as application/problem+json. */
function documentProblems(paths: Record<string, Record<string, Operation>>): void {
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const responses = operation.responses as Record<string, unknown> | undefined;
      if (!responses) continue;
      for (const status of Object.keys(responses)) {
        if (Number(status) < 400) continue;
        responses[status] = {
          description: STATUS_TITLES[Number(status)] ?? "Error",
          content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
        };
      }
    }
  }
}

export function buildOpenApiDocument(app: AnyElysia): Record<string, unknown> {
  const generated = toOpenAPISchema(app, { staticFile: false }, undefined, undefined, "3.1.1");
  const paths = generated.paths as Record<string, Record<string, Operation>>;
  documentBodies(app, paths);
  documentProblems(paths);
  return {
    openapi: "3.1.1",
    info: {
      title: HUB_NAME,
      version: HUB_VERSION,
      description:
        "Live Dead by Daylight bloodpoint incentives per platform and region, collected from volunteer agents. " +
        "Errors are RFC 9457 problem details (`application/problem+json`).",
      license: { name: "MIT", identifier: "MIT" },
    },
    tags: TAGS,
    paths: generated.paths,
    components: {
      schemas: { ...(generated.components.schemas as Record<string, unknown>), Problem: jsonSchema(ProblemSchema) },
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** Serialises the description once, on first use, after every route is registered. */
export function openApiDocument(app: () => AnyElysia): () => OpenApiDocument {
  let cached: OpenApiDocument | null = null;
  return () => {
    if (!cached) {
      const doc = buildOpenApiDocument(app());
      cached = { json: JSON.stringify(doc), yaml: Bun.YAML.stringify(doc, null, 2) };
    }
    return cached;
  };
}
