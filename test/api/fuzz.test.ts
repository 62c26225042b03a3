/**
 * Thousands of generated bad inputs against every route of the route table:
 * malformed JSON, wrong content types, wrong types for every documented field,
 * huge and strange numbers, unicode, SQL fragments, path tricks. Never a 500,
 * always a problem detail, and nothing already stored changes.
 */
import { describe, expect, test } from "bun:test";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import type { Hub } from "../../src/hub.ts";
import { Browser } from "../browser.ts";
import { testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

/** A small seeded PRNG, so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRANGE_STRINGS = [
  "",
  " ",
  "' OR 1=1 --",
  "1; DROP TABLE readings; --",
  "\" UNION SELECT password_hash FROM users --",
  "../../../../etc/passwd",
  "..%2f..%2f..%2fetc%2fpasswd",
  "%00",
  "\u0000",
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "𝕳𝖚𝖇 🦄 \u202e\u200b",
  "NaN",
  "Infinity",
  "-0",
  "1e309",
  "0x1F",
  "9".repeat(400),
  "x".repeat(70_000),
];
const STRANGE_NUMBERS = [-1, -0, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 0.1 + 0.2];
const MALFORMED_JSON = [
  "{",
  "}",
  "[",
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  "NaN",
  "Infinity",
  "-",
  "undefined",
  '{"a":1} trailing',
  "\u0000",
  "[".repeat(20_000),
  '{"a":"\\ud800"}x',
  "\ufeff{",
];
const CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz", "application/xml", "application/octet-stream"];

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; anyOf?: Schema[] };

function typesOf(schema: Schema): Set<string> {
  const types = new Set<string>();
  if (schema.anyOf) for (const s of schema.anyOf) for (const t of typesOf(s)) types.add(t);
  if (Array.isArray(schema.type)) for (const t of schema.type) types.add(t);
  else if (schema.type) types.add(schema.type);
  if (types.has("integer")) types.add("number");
  return types;
}

/** A value whose JSON type the schema does not allow (so the whole body is invalid). */
function wrongValue(schema: Schema, random: () => number): unknown {
  const allowed = typesOf(schema);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const candidates: unknown[] = [];
  if (!allowed.has("string")) candidates.push(pick(STRANGE_STRINGS));
  if (!allowed.has("number")) candidates.push(pick(STRANGE_NUMBERS));
  if (!allowed.has("boolean")) candidates.push(random() < 0.5);
  if (!allowed.has("array")) candidates.push([pick(STRANGE_STRINGS), pick(STRANGE_NUMBERS)]);
  if (!allowed.has("object")) candidates.push({ $where: pick(STRANGE_STRINGS), nested: { deeper: [null] } });
  if (!allowed.has("null")) candidates.push(null);
  return pick(candidates);
}

function plainSchema(schema: unknown): Schema | null {
  if (schema === undefined || schema === null) return null;
  return JSON.parse(JSON.stringify(schema)) as Schema;
}

interface RouteUnderTest {
  readonly method: string;
  readonly path: string;
  readonly access: string;
  readonly body: Schema | null;
  readonly query: Schema | null;
}

function routes(hub: Hub): RouteUnderTest[] {
  return hub.app.routes.map((route) => {
    const hooks = route.hooks as { detail?: Record<string, unknown>; body?: unknown; query?: unknown } | undefined;
    return {
      method: route.method,
      path: route.path,
      access: String(hooks?.detail?.["x-access"] ?? "public"),
      body: plainSchema(hooks?.detail?.["x-request-body"] ?? hooks?.body),
      query: plainSchema(hooks?.query),
    };
  });
}

/** Every stored row, except what reading it may legitimately touch. */
function snapshot(hub: Hub): Record<string, unknown[]> {
  const tables = hub.ctx.db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  return Object.fromEntries(tables.map(({ name }) => [name, hub.ctx.db.sqlite.query(`SELECT * FROM "${name}" ORDER BY 1`).all()]));
}

describe("fuzzing every route", () => {
  test("thousands of bad inputs: never a 500, always problem+json, nothing stored changes", async () => {
    const now = Date.now();
    const hub = testHub({ env: { MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true" }, now: () => now });
    const admin = new Browser(hub);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: "correct horse battery" });
    await admin.session();
    const agent = addAgent(hub, "eu-west-1");
    await post(hub, agent, reading("Windows", "eu-west-1", now));
    await admin.json("POST", "/api/v1/admin/events", { key: "bp", label: "BP", multiplier: 2, startsAt: new Date(now).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() });
    await admin.json("POST", "/api/v1/auth/api-keys", { label: "k" });
    // What the set-up changed is pushed (and judged by alerts) at most FLUSH_SPACING_MS later: the snapshot comes after it.
    await Bun.sleep(FLUSH_SPACING_MS + 5);
    const before = snapshot(hub);
    const random = prng(20261121);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

    let sent = 0;
    const failures: string[] = [];
    const send = async (route: RouteUnderTest, path: string, init: { body?: BodyInit; contentType?: string }) => {
      const headers: Record<string, string> = {};
      if (init.contentType) headers["content-type"] = init.contentType;
      if (route.access === "agent") headers.authorization = `Bearer ${agent.token}`;
      let response: Response;
      if (route.access === "agent" || route.access.startsWith("public")) {
        response = await hub.app.handle(new Request(`http://localhost${path}`, { method: route.method, headers, body: init.body }));
      } else {
        const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
        response = await hub.app.handle(
          new Request(`http://localhost${path}`, { method: route.method, headers: { ...headers, cookie, "x-csrf-token": admin.csrf ?? "" }, body: init.body }),
        );
      }
      sent++;
      const type = response.headers.get("content-type") ?? "";
      const text = await response.text();
      const where = `${route.method} ${path.slice(0, 120)} [${String(init.contentType)}] ${String(init.body).slice(0, 60)}`;
      if (response.status >= 500) failures.push(`${where} → ${response.status} ${text.slice(0, 200)}`);
      else if (response.status >= 400) {
        if (!type.startsWith("application/problem+json")) failures.push(`${where} → ${response.status} not problem+json`);
        else {
          const problem = JSON.parse(text) as { title?: unknown; status?: unknown; detail?: unknown };
          if (typeof problem.title !== "string" || problem.status !== response.status || typeof problem.detail !== "string") failures.push(`${where} → malformed problem ${text.slice(0, 200)}`);
        }
      }
    };

    const strangeSegment = () => encodeURIComponent(pick([...STRANGE_STRINGS.slice(0, 19), "-1", "0", "1.5", "1e3", "99999999999999999999999", "Windows/../admin"]).slice(0, 200));
    for (const route of routes(hub)) {
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? "");
      const concrete = (garbage: string | null) => route.path.replace(/:(\w+)/g, (_, name: string) => (name === garbage ? strangeSegment() : name === "platform" ? "Windows" : name === "region" ? "eu-west-1" : name === "name" ? "init.js" : strangeSegment()));
      const hasBody = route.method === "POST" || route.method === "PATCH" || route.method === "DELETE";
      const safePath = concrete(params.includes("id") ? "id" : null);
      for (let i = 0; i < 30; i++) {
        for (const param of params) await send(route, concrete(param), hasBody ? { body: pick(MALFORMED_JSON), contentType: "application/json" } : {});
        if (route.query) {
          const names = Object.keys(route.query.properties ?? {});
          const query = names.map((n) => `${n}=${strangeSegment()}`).join("&");
          await send(route, `${safePath}?${query}&${strangeSegment()}=${strangeSegment()}`, {});
        }
        if (!hasBody) continue;
        await send(route, safePath, { body: pick(MALFORMED_JSON), contentType: "application/json" });
        await send(route, safePath, { body: `${pick(STRANGE_STRINGS)}=${pick(STRANGE_STRINGS)}`, contentType: pick(CONTENT_TYPES) });
        if (route.body?.properties) {
          await send(route, safePath, { body: JSON.stringify(pick([null, 42, "text", [], [1, 2], true, -1e308])), contentType: "application/json" });
          const body: Record<string, unknown> = {};
          for (const [name, schema] of Object.entries(route.body.properties)) body[name] = wrongValue(schema, random);
          await send(route, safePath, { body: JSON.stringify(body), contentType: pick(["application/json", "application/json; charset=utf-8", "application/merge-patch+json"]) });
        }
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(sent).toBeGreaterThan(3000);
    expect(snapshot(hub)).toEqual(before);
  }, 120_000);
});
