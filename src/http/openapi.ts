/**
 * The OpenAPI 3.1 description, generated from the routes' own TypeBox
 * schemas and access rules, plus what only the hub knows: its name and
 * version, tags and security schemes.
 */
import { toOpenAPISchema } from "@elysiajs/openapi";
import type { AnyElysia } from "elysia";
import { HUB_NAME, HUB_VERSION } from "../version.ts";
import { ProblemSchema } from "./problem.ts";

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

type Operation = Record<string, unknown> & { requestBody?: { required?: boolean; content?: Record<string, unknown> } };

/**
 * Request bodies are JSON only (Elysia's generator also lists form encodings),
 * and a route whose rules are checked in the domain rather than by schema
 * documents its body through `x-request-body`.
 */
function tidyOperations(paths: Record<string, Record<string, Operation>>): void {
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const documented = operation["x-request-body"];
      if (documented !== undefined) {
        operation.requestBody = { required: true, content: { "application/json": { schema: documented } } };
        delete operation["x-request-body"];
      } else if (operation.requestBody?.content) {
        const json = operation.requestBody.content["application/json"];
        operation.requestBody.content = json === undefined ? {} : { "application/json": json };
      }
    }
  }
}

export function buildOpenApiDocument(app: AnyElysia): Record<string, unknown> {
  const generated = toOpenAPISchema(app, { staticFile: false }, undefined, undefined, "3.1.1");
  tidyOperations(generated.paths as Record<string, Record<string, Operation>>);
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
      schemas: { ...(generated.components.schemas as Record<string, unknown>), Problem: ProblemSchema },
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
