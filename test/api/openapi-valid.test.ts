/**
 * The OpenAPI description is a valid 3.1 document that says what the server
 * does (SPEC §7): three independent validators report zero errors, its shapes
 * follow the rules listed there, and a client generated from it by
 * openapi-typescript type-checks against real replies of every read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import openapiTS from "openapi-typescript";
import { adminHub } from "../admin-helpers.ts";
import { call, json, tempDir, testHub } from "../helpers.ts";
import { storeReadings } from "../history-helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const ROOT = join(import.meta.dir, "..", "..");
const BIN = join(ROOT, "node_modules", ".bin");

type Json = Record<string, unknown>;
interface Operation extends Json {
  parameters?: Json[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { content?: Record<string, { schema: Json }>; headers?: Record<string, unknown> }>;
}
interface Doc {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; parameters: Record<string, Json>; headers: Record<string, Json> };
}

const scratch = tempDir("hub-openapi-");
let docPath = "";
let doc: Doc;

beforeAll(async () => {
  doc = await json<Doc>(await call(testHub(), "GET", "/openapi.json"));
  docPath = join(scratch.path, "openapi.json");
  writeFileSync(docPath, JSON.stringify(doc, null, 2));
});

afterAll(() => scratch.cleanup());

function run(cmd: string[]): { exitCode: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync(cmd, { cwd: scratch.path, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off" } });
  return { exitCode: result.exitCode ?? 1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

function operations(): { where: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ where: `${method} ${path}`, method, path, op })));
}

function walk(node: unknown, visit: (node: Json, at: string) => void, at = "$"): void {
  if (Array.isArray(node)) node.forEach((item, i) => walk(item, visit, `${at}[${i}]`));
  else if (node !== null && typeof node === "object") {
    visit(node as Json, at);
    for (const [key, value] of Object.entries(node)) walk(value, visit, `${at}.${key}`);
  }
}

function schemaOf(ref: Json): Json {
  const name = typeof ref.$ref === "string" ? ref.$ref.replace("#/components/schemas/", "") : null;
  return name === null ? ref : (doc.components.schemas[name] ?? {});
}

function bodyProperty(method: string, path: string, property: string): Json {
  const schema = schemaOf(doc.paths[path]?.[method]?.requestBody?.content["application/json"]?.schema ?? {});
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  return properties[property] ?? {};
}

function firstBranch(schema: Json): Json {
  const branches = schema.anyOf as Json[] | undefined;
  return branches?.find((b) => b.type !== "null") ?? schema;
}

describe("the OpenAPI description validates", () => {
  test("Redocly lint: zero errors", () => {
    const result = run(["node", join(BIN, "redocly"), "lint", docPath, "--format=json"]);
    const report = JSON.parse(result.stdout.slice(result.stdout.indexOf("{"))) as { totals: { errors: number }; problems: { severity: string; message: string; location: unknown }[] };
    expect(report.problems.filter((p) => p.severity === "error")).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);

  test("Spectral with spectral:oas: zero errors", () => {
    writeFileSync(join(scratch.path, ".spectral.yaml"), 'extends: ["spectral:oas"]\n');
    const result = run(["node", join(BIN, "spectral"), "lint", docPath, "--ruleset", join(scratch.path, ".spectral.yaml"), "--format", "json", "--fail-severity", "error"]);
    // Spectral prints the JSON list, then (with no errors) a sentence after it on the same stream.
    const start = result.stdout.indexOf("[");
    const end = result.stdout.lastIndexOf("]");
    const findings = start < 0 ? [] : (JSON.parse(result.stdout.slice(start, end + 1)) as { severity: number; code: string; message: string; path: string[] }[]);
    expect(findings.filter((f) => f.severity === 0)).toEqual([]);
    expect({ exitCode: result.exitCode, stderr: result.exitCode === 0 ? "" : result.stderr }).toEqual({ exitCode: 0, stderr: "" });
  }, 60_000);

  test("@apidevtools/swagger-parser: valid", async () => {
    const api = await SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
    expect((api as { openapi?: string }).openapi).toStartWith("3.1");
  });
});

describe("the OpenAPI description says what the server does", () => {
  test("3.1 only: no nullable, no additionalProperties false, a server", () => {
    const offenders: string[] = [];
    walk(doc, (node, at) => {
      if ("nullable" in node) offenders.push(`${at}.nullable`);
      if (node.additionalProperties === false) offenders.push(`${at}.additionalProperties`);
      if (node.format === "integer" && node.type === "string") offenders.push(`${at}: an integer typed as a string`);
    });
    expect(offenders).toEqual([]);
    expect(doc.servers?.length ?? 0).toBeGreaterThan(0);
  });

  test("204 and 304 have no content; every other reply has a real media type", () => {
    for (const { where, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === "204" || status === "304") expect({ where, status, content: response.content }).toEqual({ where, status, content: undefined });
        else expect({ where, status, types: Object.keys(response.content ?? {}).length > 0 }).toEqual({ where, status, types: true });
        if (Number(status) >= 400 && where !== "get /healthz") expect({ where, status, types: Object.keys(response.content ?? {}) }).toEqual({ where, status, types: ["application/problem+json"] });
      }
    }
    const mediaOf = (method: string, path: string) => Object.keys(doc.paths[path]?.[method]?.responses["200"]?.content ?? {});
    expect(mediaOf("get", "/api/v1/platforms/{platform}/incentives/stream")).toEqual(["text/event-stream"]);
    expect(mediaOf("get", "/docs")).toEqual(["text/html"]);
    expect(mediaOf("get", "/openapi.yaml")).toEqual(["application/yaml"]);
    expect(mediaOf("get", "/openapi.json")).toEqual(["application/json"]);
    expect(mediaOf("get", "/metrics")).toEqual(["text/plain"]);
  });

  test("every operation documents 405 and 500; with a body also 400, 408, 413 and 415; 405 with Allow, 429 and 503 with Retry-After", () => {
    for (const { where, op } of operations()) {
      const statuses = Object.keys(op.responses);
      for (const status of ["405", "500"]) expect({ where, status, documented: statuses.includes(status) }).toEqual({ where, status, documented: true });
      if (op.requestBody) for (const status of ["400", "408", "413", "415"]) expect({ where, status, documented: statuses.includes(status) }).toEqual({ where, status, documented: true });
      expect(op.responses["405"]?.headers?.Allow).toEqual({ $ref: "#/components/headers/Allow" });
      for (const status of ["429", "503"]) {
        if (op.responses[status]) expect({ where, status, retryAfter: op.responses[status]?.headers?.["Retry-After"] !== undefined }).toEqual({ where, status, retryAfter: true });
      }
    }
  });

  test("integer parameters are integers (int64); ids too", () => {
    const parameter = (method: string, path: string, name: string) => doc.paths[path]?.[method]?.parameters?.find((p) => p.name === name)?.schema as Json | undefined;
    const history = "/api/v1/platforms/{platform}/regions/{region}/history";
    for (const name of ["from", "to"]) expect(parameter("get", history, name)).toMatchObject({ type: "integer", format: "int64" });
    expect(parameter("get", "/api/v1/platforms/{platform}/regions/{region}/activity", "limit")).toMatchObject({ type: "integer", format: "int64", minimum: 1, maximum: 50 });
    for (const [method, path] of [
      ["patch", "/api/v1/admin/agents/{id}"],
      ["delete", "/api/v1/admin/users/{id}"],
      ["patch", "/api/v1/admin/events/{id}"],
      ["delete", "/api/v1/auth/api-keys/{id}"],
      ["delete", "/api/v1/auth/mfa/passkeys/{id}"],
    ] as const) {
      expect({ path, schema: parameter(method, path, "id") }).toMatchObject({ path, schema: { type: "integer", format: "int64", minimum: 1 } });
    }
    for (const name of ["from", "to", "survivorMin", "killerMax"]) {
      expect(parameter("delete", "/api/v1/admin/agents/{id}/readings", name)).toMatchObject({ type: "integer", format: "int64" });
    }
  });

  test("the headers clients rely on are documented", () => {
    const incentives = doc.paths["/api/v1/platforms/{platform}/incentives"]?.get;
    expect(Object.keys(incentives?.responses["200"]?.headers ?? {}).sort()).toEqual(["Cache-Control", "ETag"]);
    expect(Object.keys(incentives?.responses["304"]?.headers ?? {}).sort()).toEqual(["Cache-Control", "ETag"]);
    expect(incentives?.parameters).toContainEqual({ $ref: "#/components/parameters/IfNoneMatch" });
    expect(doc.paths["/api/v1/platforms/{platform}/incentives/stream"]?.get?.parameters).toContainEqual({ $ref: "#/components/parameters/LastEventId" });
    expect(doc.paths["/api/v1/auth/login"]?.post?.responses["200"]?.headers).toEqual({ "Set-Cookie": { $ref: "#/components/headers/Set-Cookie" } });
    expect(doc.paths["/api/v1/platforms/{platform}/coverage"]?.get?.responses["200"]?.headers).toHaveProperty("Cache-Control");
    for (const { where, method, op } of operations()) {
      const access = op["x-access"];
      const withCookie = access === "session" || access === "session-partial" || access === "admin";
      const csrf = (op.parameters ?? []).some((p) => p.$ref === "#/components/parameters/CsrfToken");
      expect({ where, csrf }).toEqual({ where, csrf: withCookie && method !== "get" });
    }
    expect(doc.components.parameters.CsrfToken).toMatchObject({ name: "X-CSRF-Token", in: "header" });
  });

  test("the rules the server checks are in the schemas", () => {
    const username = bodyProperty("post", "/api/v1/admin/users", "username");
    expect(username).toMatchObject({ type: "string", minLength: 1, maxLength: 64 });
    expect(new RegExp(String(username.pattern), "u").test("alice.b_c-1")).toBe(true);
    expect(new RegExp(String(username.pattern), "u").test("alice b")).toBe(false);
    expect(bodyProperty("post", "/api/v1/auth/setup", "password")).toMatchObject({ type: "string", minLength: 10, maxLength: 1024 });
    expect(bodyProperty("post", "/api/v1/auth/password", "newPassword")).toMatchObject({ minLength: 10, maxLength: 1024 });
    const key = bodyProperty("post", "/api/v1/admin/events", "key");
    expect(key).toMatchObject({ type: "string", minLength: 1, maxLength: 64 });
    expect(new RegExp(String(key.pattern), "u").test("Double BP")).toBe(false);
    expect(bodyProperty("post", "/api/v1/admin/events", "startsAt")).toMatchObject({ type: "string", format: "date-time" });
    const provider = bodyProperty("post", "/api/v1/admin/agents", "provider");
    for (const ok of ["steam", "EPIC", "Grdk"]) expect(new RegExp(String(provider.pattern), "u").test(ok)).toBe(true);
    expect(new RegExp(String(provider.pattern), "u").test("psn")).toBe(false);
    expect(bodyProperty("post", "/api/v1/admin/agents", "region").enum).toContain("eu-west-1");
    const roles = bodyProperty("post", "/api/v1/auth/mfa/policy", "roles");
    expect(roles.items).toEqual({ $ref: "#/components/schemas/UserRole" });
    expect(doc.components.schemas.UserRole).toEqual({ title: "UserRole", type: "string", enum: ["admin", "user"] });
    expect(firstBranch(bodyProperty("patch", "/api/v1/admin/users/{id}", "email"))).toMatchObject({ type: "string", format: "email", maxLength: 254 });
  });
});

describe("a client generated from the description", () => {
  test("openapi-typescript types every read endpoint's real reply", async () => {
    const { hub, admin } = await adminHub();
    const now = hub.ctx.now();
    const agent = addAgent(hub, "eu-west-1");
    addAgent(hub, "us-east-1", "epic");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 1000, { survivor: 25, killer: 75, version: "9.3.0" }))).status).toBe(201);
    storeReadings(
      hub.ctx.db,
      Array.from({ length: 48 }, (_, i) => ({ t: now - (i + 2) * 3_600_000, survivor: i % 3 === 0 ? 25 : 0, killer: i % 2 === 0 ? 75 : 50 })),
    );
    hub.reloadExternal();

    const reads: [string, string, string][] = [
      ["/healthz", "/healthz", "200"],
      ["/api/v1/meta", "/api/v1/meta", "200"],
      ["/api/v1/platforms/{platform}/incentives", "/api/v1/platforms/Windows/incentives", "200"],
      ["/api/v1/platforms/{platform}/coverage", "/api/v1/platforms/Windows/coverage", "200"],
      ["/api/v1/platforms/{platform}/regions/{region}/history", `/api/v1/platforms/Windows/regions/eu-west-1/history?from=${now - 3 * 86_400_000}`, "200"],
      ["/api/v1/platforms/{platform}/regions/{region}/activity", "/api/v1/platforms/Windows/regions/eu-west-1/activity?limit=5", "200"],
      ["/api/v1/platforms/{platform}/regions/{region}/forecast", "/api/v1/platforms/Windows/regions/eu-west-1/forecast", "200"],
      ["/api/v1/auth/session", "/api/v1/auth/session", "200"],
      ["/api/v1/admin/agents", "/api/v1/admin/agents", "200"],
      ["/api/v1/admin/users", "/api/v1/admin/users", "200"],
      ["/api/v1/admin/settings", "/api/v1/admin/settings", "200"],
      ["/api/v1/platforms/{platform}/incentives", "/api/v1/platforms/GRDK/incentives", "200"],
      ["/api/v1/platforms/{platform}/regions/{region}/history", "/api/v1/platforms/Windows/regions/eu-west-1/history?from=0", "200"],
      ["/api/v1/platforms/{platform}/incentives", "/api/v1/platforms/PS5/incentives", "404"],
    ];
    const lines: string[] = ['import type { paths } from "./api";', "type Reply<P extends keyof paths, S extends number> = paths[P] extends { get: { responses: infer R } } ? (S extends keyof R ? R[S] extends { content: infer C } ? C[keyof C] : never : never) : never;"];
    for (const [i, [template, url, status]] of reads.entries()) {
      const response = await admin.request("GET", url);
      expect({ url, status: response.status }).toEqual({ url, status: Number(status) });
      lines.push(`export const read${i}: Reply<${JSON.stringify(template)}, ${status}> = ${await response.text()};`);
    }
    const generated = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]);
    writeFileSync(join(scratch.path, "api.d.ts"), generated);
    const tsconfig = { compilerOptions: { strict: true, exactOptionalPropertyTypes: true, noEmit: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler", skipLibCheck: false, types: [] }, files: ["reads.ts"] };
    writeFileSync(join(scratch.path, "tsconfig.json"), JSON.stringify(tsconfig));
    const typecheck = () => run([join(BIN, "tsc"), "-p", join(scratch.path, "tsconfig.json")]);

    writeFileSync(join(scratch.path, "reads.ts"), `${lines.join("\n")}\n`);
    const good = typecheck();
    expect(good.stdout + good.stderr).toBe("");
    expect(good.exitCode).toBe(0);

    // The same check must fail on a reply that breaks the description, or it proves nothing.
    const broken = [...lines, `export const wrong: Reply<"/api/v1/platforms/{platform}/incentives", 200> = { platform: "Windows", status: "fine", statusReason: null, updatedAt: null, version: null, category: null, activeEvent: null, regions: [], generatedAt: "x" };`];
    writeFileSync(join(scratch.path, "reads.ts"), `${broken.join("\n")}\n`);
    const bad = typecheck();
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stdout).toContain('"fine"');
  }, 60_000);
});
