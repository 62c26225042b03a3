import { describe, expect, test } from "bun:test";
import { HUB_NAME, HUB_VERSION } from "../../src/version.ts";
import { adminHub } from "../admin-helpers.ts";
import { call, json, testHub } from "../helpers.ts";
import { deref } from "../json-schema.ts";
import { addAgent, post } from "../live-helpers.ts";

interface Operation {
  readonly "x-access"?: string;
  readonly security?: unknown[];
  readonly tags?: string[];
  readonly summary?: string;
  readonly responses?: Record<string, unknown>;
}
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>; schemas: Record<string, unknown> };
};

describe("OpenAPI description", () => {
  test("JSON: OpenAPI 3.1 with the hub's name, version, tags and security schemes", async () => {
    const hub = testHub();
    const response = await call(hub, "GET", "/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const doc = await json<Doc>(response);
    expect(doc.openapi).toStartWith("3.1");
    expect(doc.info.title).toBe(HUB_NAME);
    expect(doc.info.version).toBe(HUB_VERSION);
    expect(doc.tags.map((t) => t.name)).toContain("system");
    const schemes = doc.components.securitySchemes;
    expect(schemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "hub_session" });
    expect(schemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(schemes.apiKeyHeader).toMatchObject({ type: "apiKey", in: "header", name: "X-API-Key" });
    expect(schemes.agentToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.schemas.Problem).toBeDefined();
    expect(doc.paths["/healthz"]?.get?.responses?.["503"]).toBeDefined();
    expect(doc.paths["/docs/assets/{name}"]).toBeUndefined();
  });

  test("request bodies are JSON only, and the readings body is the full documented schema", async () => {
    const hub = testHub();
    const raw = await json<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; title?: string } }> } }>>;
      components: { schemas: Record<string, unknown> };
    }>(await call(hub, "GET", "/openapi.json"));
    const doc = { paths: deref(raw.paths, raw.components.schemas) };
    for (const methods of Object.values(doc.paths)) {
      for (const op of Object.values(methods)) {
        if (op.requestBody) expect(Object.keys(op.requestBody.content)).toEqual(["application/json"]);
      }
    }
    const readings = doc.paths["/api/v1/agent/readings"]?.post?.requestBody?.content["application/json"]?.schema;
    expect(readings?.title).toBe("ReadingSubmission");
    expect(Object.keys(readings?.properties ?? {})).toEqual(
      expect.arrayContaining(["region", "platform", "survivor", "killer", "ratio", "isReal", "measuredAt", "version", "category", "refreshTimeSeconds", "activeEvent"]),
    );
  });

  test("YAML says the same as JSON", async () => {
    const hub = testHub();
    const yamlResponse = await call(hub, "GET", "/openapi.yaml");
    expect(yamlResponse.headers.get("content-type")).toStartWith("application/yaml");
    const fromYaml = Bun.YAML.parse(await yamlResponse.text());
    const fromJson = await json(await call(hub, "GET", "/openapi.json"));
    expect(fromYaml).toEqual(fromJson);
  });

  test("every operation states its access rule, tag and summary", async () => {
    const hub = testHub();
    const doc = await json<Doc>(await call(hub, "GET", "/openapi.json"));
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
    expect(operations.length).toBeGreaterThan(3);
    for (const { path, method, op } of operations) {
      expect({ path, method, access: typeof op["x-access"] }).toEqual({ path, method, access: "string" });
      expect(op.tags?.length ?? 0).toBeGreaterThan(0);
      expect(op.summary?.length ?? 0).toBeGreaterThan(0);
      expect(Array.isArray(op.security)).toBe(true);
      for (const tag of op.tags ?? []) expect({ path, tag, declared: doc.tags.some((t) => t.name === tag) }).toEqual({ path, tag, declared: true });
    }
  });
});

describe("a refusal particular to a route", () => {
  type Example = { summary: string; value: { title: string; status: number; detail: string; errors: { location: string; message: string }[] } };
  type Described = { description: string; content: Record<string, { schema: unknown; examples?: Record<string, Example> }> };

  test("a webhook that could never fire: the 400 of create and change describes it, with the hub's own problem as the example", async () => {
    const { hub, admin } = await adminHub();
    const doc = await json<{ paths: Record<string, Record<string, { responses: Record<string, Described> }>> }>(await call(hub, "GET", "/openapi.json"));
    const refusals = { post: doc.paths["/api/v1/admin/webhooks"]?.post?.responses["400"], patch: doc.paths["/api/v1/admin/webhooks/{id}"]?.patch?.responses["400"] };
    for (const refusal of Object.values(refusals)) {
      expect(refusal?.description).toStartWith("Bad Request: the input is malformed or breaks a rule; `errors` names each field. A webhook that could never fire is refused too");
      expect(Object.keys(refusal?.content ?? {})).toEqual(["application/problem+json"]);
      expect(refusal?.content["application/problem+json"]?.schema).toEqual({ $ref: "#/components/schemas/Problem" });
      expect(refusal?.content["application/problem+json"]?.examples?.neverFires?.summary).toBe("No condition: the webhook could never fire");
    }
    // Other routes keep the general description, without examples.
    expect(doc.paths["/api/v1/admin/users"]?.post?.responses["400"]?.content["application/problem+json"]?.examples).toBeUndefined();

    // The examples are what the hub answers.
    const url = "https://hooks.example.org/never";
    const created = await admin.json("POST", "/api/v1/admin/webhooks", { url, format: "json" });
    expect(created.status).toBe(400);
    expect(created.response.headers.get("content-type")).toStartWith("application/problem+json");
    expect(created.body).toEqual(refusals.post?.content["application/problem+json"]?.examples?.neverFires?.value ?? {});
    const made = await admin.json<{ webhook: { id: number } }>("POST", "/api/v1/admin/webhooks", { url, format: "json", onStatus: true });
    const changed = await admin.json("PATCH", `/api/v1/admin/webhooks/${made.body.webhook.id}`, { onStatus: false });
    expect(changed.status).toBe(400);
    const example = refusals.patch?.content["application/problem+json"]?.examples?.neverFires?.value;
    const exampleId = /^Webhook (\d+) has no condition/.exec(example?.detail ?? "")?.[1];
    expect(exampleId).toBeDefined();
    expect(changed.body).toEqual(JSON.parse(JSON.stringify(example).replaceAll(`Webhook ${exampleId} `, `Webhook ${made.body.webhook.id} `)));
  });
});

describe("/docs", () => {
  test("serves the page and every asset it references from the hub itself", async () => {
    const hub = testHub();
    const page = await call(hub, "GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const html = await page.text();
    // Besides the assets, one link leads back to the hub's own board.
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "").filter((ref) => !ref.startsWith("data:") && ref !== "/");
    expect(html).toContain('<a class="docs-home" href="/">');
    expect(refs.length).toBe(4);
    for (const ref of refs) {
      expect(ref).toStartWith("/docs/assets/");
      const asset = await call(hub, "GET", ref);
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(100);
    }
    const zipped = await call(hub, "GET", "/docs/assets/swagger-ui-bundle.js", { headers: { "accept-encoding": "gzip, br" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect((await call(hub, "GET", "/docs/assets/nothing.js")).status).toBe(404);
    expect(html).not.toMatch(/https?:\/\//);
  });

  test("keeps no credentials in the browser: authorizations are not persisted", async () => {
    const init = await (await call(testHub(), "GET", "/docs/assets/init.js")).text();
    expect(init).toContain("persistAuthorization: false");
    expect(init).not.toContain("persistAuthorization: true");
  });
});

describe("the agent protocol's request bodies in /openapi.json", () => {
  type Body = { requestBody?: { content: Record<string, { example?: Record<string, unknown> }> } };

  test("each carries an example, and the reading's example is one the hub accepts", async () => {
    const hub = testHub();
    const doc = await json<{ paths: Record<string, Record<string, Body>> }>(await call(hub, "GET", "/openapi.json"));
    const bodies = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith("/api/v1/agent/"))
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => ({ at: `${method} ${path}`, body: operation.requestBody })))
      .filter((operation) => operation.body !== undefined);
    expect(bodies.map((b) => b.at).sort()).toEqual(["post /api/v1/agent/events", "post /api/v1/agent/readings"]);
    for (const { at, body } of bodies) expect({ at, example: typeof body?.content["application/json"]?.example }).toEqual({ at, example: "object" });

    const example = doc.paths["/api/v1/agent/readings"]?.post?.requestBody?.content["application/json"]?.example ?? {};
    const agent = addAgent(hub, String(example.region));
    const response = await post(hub, agent, { ...example, measuredAt: new Date().toISOString() });
    expect(response.status).toBe(201);
  });
});

test("the API reference cites no document outside the repository", async () => {
  const text = await (await call(testHub(), "GET", "/openapi.json")).text();
  expect([...text.matchAll(/.{0,40}(?:\bSPEC\b|§).{0,40}/g)].map((m) => m[0])).toEqual([]);
});
