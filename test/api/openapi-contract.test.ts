/**
 * The description against the server, operation by operation: a malformed
 * `{id}` is a 400 the description lists, and a body the server requires is
 * declared required (and one it does not require is not).
 */
import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { json } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";

interface Operation {
  parameters?: { name?: string; in?: string }[];
  requestBody?: { required?: boolean };
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

async function fixture() {
  const { hub, admin } = await adminHub({ ENABLE_API_KEYS: "true" });
  const doc = await json<Doc>(await admin.request("GET", "/openapi.json"));
  const agent = addAgent(hub, "eu-west-1");
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
  /** Calls an operation as the admin (or as an agent on agent routes), with `{param}`s filled in. */
  const send = (method: string, path: string, fill: (name: string) => string, body?: string) => {
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => fill(name));
    const headers: Record<string, string> = path.startsWith("/api/v1/agent/") ? { authorization: `Bearer ${agent.token}` } : {};
    if (body !== undefined) headers["content-type"] = "application/json";
    return admin.request(method, url, { headers, body: body === undefined ? undefined : JSON.parse(body) });
  };
  return { operations, send };
}

const VALID: Record<string, string> = { platform: "Windows", region: "eu-west-1", name: "x" };

describe("the description says what the server does", () => {
  test("every operation with an {id} answers a malformed id with 400, and documents it", async () => {
    const { operations, send } = await fixture();
    const withId = operations.filter((o) => o.path.includes("{id}"));
    expect(withId.length).toBeGreaterThan(10);
    for (const { method, path, op } of withId) {
      const response = await send(method, path, (name) => (name === "id" ? "not-an-id" : (VALID[name] ?? "1")), method === "GET" || method === "DELETE" ? undefined : "{}");
      expect({ operation: `${method} ${path}`, status: response.status }).toEqual({ operation: `${method} ${path}`, status: 400 });
      expect({ operation: `${method} ${path}`, documented: Object.keys(op.responses).includes("400") }).toEqual({ operation: `${method} ${path}`, documented: true });
    }
  });

  test("requestBody.required is true exactly where the server refuses a missing body", async () => {
    const { operations, send } = await fixture();
    const withBody = operations.filter((o) => o.op.requestBody !== undefined);
    let checked = 0;
    for (const { method, path, op } of withBody) {
      const response = await send(method, path, (name) => VALID[name] ?? "999999");
      const text = await response.text();
      const refusedForBody = response.status === 400 && /"location":"body/.test(text);
      // An unknown {id} is refused before its body is looked at, so it tells nothing about the body.
      if (response.status === 404 && path.includes("{id}")) continue;
      // A signed route (Discord's interactions) checks the signature before the body, so an unsigned probe tells nothing about the body either.
      if (JSON.stringify(op.security ?? []).includes("discordSignature")) continue;
      checked++;
      expect({ operation: `${method} ${path}`, required: op.requestBody?.required === true }).toEqual({ operation: `${method} ${path}`, required: refusedForBody });
    }
    expect(checked).toBeGreaterThan(withBody.length - 3);
  });

  test("every operation without a request body that answers 400 to a body (nested too deep) documents 400", async () => {
    const { operations, send } = await fixture();
    const tooDeep = `{"a":${"[".repeat(40)}${"]".repeat(40)}}`;
    const withoutBody = operations.filter((o) => o.op.requestBody === undefined && o.method !== "GET" && o.method !== "HEAD");
    expect(withoutBody.length).toBeGreaterThan(5);
    const refused: string[] = [];
    for (const { method, path, op } of withoutBody) {
      const response = await send(method, path, (name) => VALID[name] ?? "1", tooDeep);
      await response.arrayBuffer();
      if (response.status !== 400) continue;
      refused.push(`${method} ${path}`);
      expect({ operation: `${method} ${path}`, documented: Object.keys(op.responses).includes("400") }).toEqual({ operation: `${method} ${path}`, documented: true });
    }
    expect(refused.length).toBeGreaterThan(0);
  });
});
