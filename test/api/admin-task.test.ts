/**
 * An admin task done the way an admin with only /docs would: every request is
 * built from an operation listed in /openapi.json, every body is checked
 * against the schema the description gives for it, and so is every reply.
 */
import { describe, expect, test } from "bun:test";
import { Browser } from "../browser.ts";
import { call, testHub } from "../helpers.ts";
import { check, deref, type JsonSchema } from "../json-schema.ts";

interface Operation {
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required: boolean }[];
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> } };

/** The description with its schema references resolved, as the checks below read it. */
async function description(hub: ReturnType<typeof testHub>): Promise<Doc> {
  const doc = (await (await call(hub, "GET", "/openapi.json")).json()) as Doc;
  return { ...doc, paths: deref(doc.paths, doc.components.schemas) };
}

describe("an admin task from the OpenAPI description alone", () => {
  test("create an agent, post a reading as it, move it orphaning its data, check attribution, delete orphans", async () => {
    const hub = testHub({ env: { MFA_ENFORCED_ROLES: "" } });
    const doc = await description(hub);
    const admin = new Browser(hub);

    /** Calls a documented operation, checking the request body and the reply against the description. */
    const operate = async (method: string, template: string, params: Record<string, string | number>, body?: unknown, headers?: Record<string, string>) => {
      const op = doc.paths[template]?.[method];
      expect(op ? `${method} ${template}` : `missing ${method} ${template}`).toBe(`${method} ${template}`);
      if (!op) throw new Error("unreachable");
      for (const parameter of op.parameters ?? []) if (parameter.in === "path") expect(params[parameter.name]).toBeDefined();
      if (body !== undefined) {
        const schema = op.requestBody?.content["application/json"]?.schema;
        expect(schema).toBeDefined();
        expect(check(schema ?? {}, body)).toEqual([]);
      }
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));
      const response = headers ? await call(hub, method.toUpperCase(), path, { body, headers }) : await admin.request(method.toUpperCase(), path, { body });
      const text = await response.text();
      const documented = op.responses[String(response.status)];
      expect(documented ? response.status : `undocumented ${response.status}: ${text}`).toBe(response.status);
      const payload = text ? JSON.parse(text) : null;
      const schema = documented?.content?.["application/json"]?.schema;
      if (schema && payload !== null) expect(check(schema, payload)).toEqual([]);
      return { status: response.status, body: payload };
    };

    expect((await operate("post", "/api/v1/auth/setup", {}, { username: "root", password: "correct horse battery" })).status).toBe(201);
    const session = await operate("get", "/api/v1/auth/session", {});
    admin.csrf = session.body.csrfToken;

    const created = await operate("post", "/api/v1/admin/agents", {}, { region: "eu-west-1", provider: "steam", label: "Attic" });
    expect(created.status).toBe(201);
    const { agent, token } = created.body as { agent: { id: number }; token: string };
    expect(doc.paths["/api/v1/agent/readings"]?.post?.security).toEqual([{ agentToken: [] }]);

    const readingBody = { region: "eu-west-1", platform: "Windows", isReal: true, measuredAt: new Date().toISOString(), survivor: 0, killer: 75, ratio: 2.5 };
    const posted = await operate("post", "/api/v1/agent/readings", {}, readingBody, { authorization: `Bearer ${token}` });
    expect(posted.status).toBe(201);
    expect(posted.body.live).toBe(true);

    const moved = await operate("patch", "/api/v1/admin/agents/{id}", { id: agent.id }, { region: "eu-west-2", dataMode: "orphan" });
    expect(moved.status).toBe(200);
    expect(moved.body.agent).toMatchObject({ region: "eu-west-2", readings: 0 });

    const attribution = await operate("get", "/api/v1/admin/platforms/{platform}/regions/{region}/attribution", { platform: "Windows", region: "eu-west-1" });
    expect(attribution.body.attribution).toEqual([expect.objectContaining({ agentId: null, readings: 1 })]);

    const removed = await operate("delete", "/api/v1/admin/readings/orphans", {});
    expect(removed.body).toEqual({ removed: 1 });
    const after = await operate("get", "/api/v1/admin/platforms/{platform}/regions/{region}/attribution", { platform: "Windows", region: "eu-west-1" });
    expect(after.body.attribution).toEqual([]);
  });

  test("every admin operation documents its request, its replies, its errors and an example", async () => {
    const hub = testHub();
    const doc = (await description(hub)) as Doc & { paths: Record<string, Record<string, Operation & { "x-access": string }>> };
    const admin = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op }))).filter((o) => o.path.startsWith("/api/v1/admin"));
    expect(admin.length).toBeGreaterThanOrEqual(20);
    for (const { path, method, op } of admin) {
      const where = `${method} ${path}`;
      expect({ where, access: op["x-access"] }).toEqual({ where, access: "admin" });
      for (const status of ["401", "403"]) expect({ where, status, documented: status in op.responses }).toEqual({ where, status, documented: true });
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      expect({ where, success: success.length }).toEqual({ where, success: 1 });
      const own = JSON.stringify([op.requestBody ?? null, op.responses[success[0] ?? ""] ?? null]);
      const hasExample = own.includes('"examples"') || success[0] === "204";
      expect({ where, hasExample }).toEqual({ where, hasExample: true });
    }
  });
});
