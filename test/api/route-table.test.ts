/**
 * Walks the whole route table: every route must declare an access rule, and
 * each rule is checked in both directions (allowed and refused) on every
 * route that uses it.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { schema } from "../../src/db/schema.ts";
import { ACCESS_RULES, type AccessRule } from "../../src/http/access.ts";
import type { Hub } from "../../src/hub.ts";
import { Browser } from "../browser.ts";
import { call, testHub } from "../helpers.ts";
import { addAgent } from "../live-helpers.ts";
import { discordEnv, discordKeys, signatureHeaders } from "../discord.ts";

interface RouteInfo {
  readonly method: string;
  readonly path: string;
  readonly access: AccessRule | undefined;
}

function routeTable(hub: Hub): RouteInfo[] {
  return hub.app.routes.map((route) => {
    const detail = (route.hooks as { detail?: Record<string, unknown> } | undefined)?.detail;
    const access = detail?.["x-access"];
    return { method: route.method, path: route.path, access: typeof access === "string" ? (access as AccessRule) : undefined };
  });
}

const SAMPLES: Record<string, string> = { platform: "Windows", region: "eu-west-1", name: "init.js", id: "1" };
const sample = (path: string): string => path.replace(/:([A-Za-z]+)/g, (_, name: string) => SAMPLES[name] ?? "1");
const PASSWORD = "correct horse battery";

const BASE_ENV = { ENABLE_API_KEYS: "true", SESSION_SECRET: "route-table-test-secret-0123456789abcdef" };

/** Everyone a rule can meet: anonymous, a partial session, full sessions of an admin and a user, and their API keys. */
async function world() {
  const hub = testHub({ env: BASE_ENV });
  const admin = new Browser(hub, "192.0.2.1");
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  await admin.json("POST", "/api/v1/auth/mfa/policy", { roles: ["user"] });
  // Choosing the policy made the admin fully signed in with a new session, and a new CSRF token.
  await admin.session();
  await admin.json("POST", "/api/v1/admin/users", { username: "bob", role: "user", password: PASSWORD });
  await admin.json("POST", "/api/v1/admin/users", { username: "carl", role: "user", password: PASSWORD });
  const adminKey = (await admin.json<{ key: string }>("POST", "/api/v1/auth/api-keys", {})).body.key;
  await admin.json("PATCH", "/api/v1/admin/settings", { mfaEnforcedRoles: [] });
  const user = new Browser(hub, "192.0.2.2");
  await user.login("carl", PASSWORD);
  const userKey = (await user.json<{ key: string }>("POST", "/api/v1/auth/api-keys", {})).body.key;
  await admin.json("PATCH", "/api/v1/admin/settings", { mfaEnforcedRoles: ["user"] });
  const partial = new Browser(hub, "192.0.2.3");
  expect((await partial.login("bob", PASSWORD)).next).toBe("enroll_mfa");
  return { hub, admin, user, partial, adminKey, userKey };
}

type World = Awaited<ReturnType<typeof world>>;

let template: World;

/** A copy of the template world on a fresh hub: same accounts and cookies, no shared in-memory state. */
function fresh(env: Record<string, string> = {}): World {
  const sqlite = Database.deserialize(template.hub.ctx.db.sqlite.serialize());
  sqlite.exec("PRAGMA foreign_keys = ON");
  const hub = testHub({ db: { path: ":memory:", sqlite, orm: drizzle(sqlite, { schema }) }, env: { ...BASE_ENV, ...env } });
  const clone = (browser: Browser): Browser => {
    const copy = new Browser(hub, browser.ip);
    for (const [name, value] of browser.cookies) copy.cookies.set(name, value);
    copy.csrf = browser.csrf;
    return copy;
  };
  return { hub, admin: clone(template.admin), user: clone(template.user), partial: clone(template.partial), adminKey: template.adminKey, userKey: template.userKey };
}
type Probe = (w: World, route: RouteInfo) => Promise<Response>;

const bodyFor = (route: RouteInfo) => (route.method === "GET" || route.method === "DELETE" ? undefined : {});
const anonymous: Probe = (w, r) => call(w.hub, r.method, sample(r.path), { body: bodyFor(r) });
const asBrowser = (pick: (w: World) => Browser, csrf = true): Probe => (w, r) => pick(w).request(r.method, sample(r.path), { body: bodyFor(r), csrf });
const withKey = (pick: (w: World) => string): Probe => (w, r) => call(w.hub, r.method, sample(r.path), { body: bodyFor(r), headers: { authorization: `Bearer ${pick(w)}` } });
const changes = (r: RouteInfo) => r.method !== "GET";

interface Refusal {
  readonly name: string;
  readonly status: number;
  readonly probe: Probe;
  readonly env?: Record<string, string>;
  readonly when?: (route: RouteInfo) => boolean;
}

const METRICS_TOKEN = "metrics-token-for-the-route-table";
const withMetricsToken: Probe = (w, r) => call(w.hub, r.method, sample(r.path), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });

const DISCORD_KEYS = discordKeys();
const DISCORD_ENV = discordEnv(DISCORD_KEYS);
const signedBy = (keys: typeof DISCORD_KEYS): Probe => (w, r) => {
  const body = JSON.stringify({ type: 1 });
  return call(w.hub, r.method, sample(r.path), { rawBody: body, headers: signatureHeaders(keys, body) });
};

const RULES: Record<AccessRule, { allowed: (Probe | { probe: Probe; env: Record<string, string> })[]; refused: Refusal[] }> = {
  public: { allowed: [anonymous], refused: [] },
  "public-read": {
    allowed: [anonymous],
    refused: [
      { name: "anonymous while requireAuth", status: 401, env: { REQUIRE_AUTH: "true" }, probe: anonymous },
      { name: "partial session while requireAuth", status: 401, env: { REQUIRE_AUTH: "true" }, probe: asBrowser((w) => w.partial) },
    ],
  },
  agent: {
    allowed: [
      (w, r) => {
        const agent = addAgent(w.hub, "eu-west-1");
        return call(w.hub, r.method, sample(r.path), { headers: { authorization: `Bearer ${agent.token}` }, body: bodyFor(r) });
      },
    ],
    refused: [
      { name: "no token", status: 401, probe: anonymous },
      { name: "unknown token", status: 401, probe: (w, r) => call(w.hub, r.method, sample(r.path), { headers: { authorization: "Bearer unknown-token-value" } }) },
      {
        name: "disabled agent",
        status: 403,
        probe: (w, r) => {
          const agent = addAgent(w.hub, "eu-west-1", "steam", { enabled: false });
          return call(w.hub, r.method, sample(r.path), { headers: { authorization: `Bearer ${agent.token}` } });
        },
      },
      { name: "a user's session", status: 401, probe: asBrowser((w) => w.admin) },
    ],
  },
  "session-partial": {
    allowed: [asBrowser((w) => w.partial)],
    refused: [
      { name: "anonymous", status: 401, probe: anonymous },
      { name: "an API key", status: 403, probe: withKey((w) => w.adminKey) },
      { name: "no CSRF token", status: 403, probe: asBrowser((w) => w.partial, false), when: changes },
    ],
  },
  session: {
    allowed: [asBrowser((w) => w.user)],
    refused: [
      { name: "anonymous", status: 401, probe: anonymous },
      { name: "partial session", status: 401, probe: asBrowser((w) => w.partial) },
      { name: "an API key", status: 403, probe: withKey((w) => w.userKey) },
      { name: "no CSRF token", status: 403, probe: asBrowser((w) => w.user, false), when: changes },
    ],
  },
  admin: {
    allowed: [asBrowser((w) => w.admin), withKey((w) => w.adminKey)],
    refused: [
      { name: "anonymous", status: 401, probe: anonymous },
      { name: "partial session", status: 401, probe: asBrowser((w) => w.partial) },
      { name: "a non-admin session", status: 403, probe: asBrowser((w) => w.user) },
      { name: "a non-admin's API key", status: 403, probe: withKey((w) => w.userKey) },
      { name: "no CSRF token", status: 403, probe: asBrowser((w) => w.admin, false), when: changes },
    ],
  },
  signed: {
    allowed: [{ probe: signedBy(DISCORD_KEYS), env: DISCORD_ENV }],
    refused: [
      { name: "unsigned", status: 401, env: DISCORD_ENV, probe: anonymous },
      { name: "signed with another key", status: 401, env: DISCORD_ENV, probe: signedBy(discordKeys()) },
      { name: "an admin's API key", status: 401, env: DISCORD_ENV, probe: withKey((w) => w.adminKey) },
    ],
  },
  metrics: {
    allowed: [asBrowser((w) => w.admin), withKey((w) => w.adminKey), { probe: withMetricsToken, env: { METRICS_TOKEN } }],
    refused: [
      { name: "anonymous", status: 401, probe: anonymous },
      { name: "a wrong metrics token", status: 401, env: { METRICS_TOKEN }, probe: (w, r) => call(w.hub, r.method, sample(r.path), { headers: { authorization: "Bearer not-the-metrics-token" } }) },
      { name: "a token when none is configured", status: 401, probe: withMetricsToken },
      { name: "a non-admin session", status: 403, probe: asBrowser((w) => w.user) },
      { name: "a non-admin's API key", status: 403, probe: withKey((w) => w.userKey) },
    ],
  },
};

describe("route table", () => {
  const routes = routeTable(testHub());
  beforeAll(async () => {
    template = await world();
  });

  test("every route declares an access rule the hub knows", () => {
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => r.access === undefined || !(ACCESS_RULES as readonly string[]).includes(r.access));
    expect(missing).toEqual([]);
  });

  test("every rule is tested and used", () => {
    expect(Object.keys(RULES).sort()).toEqual([...ACCESS_RULES].sort());
    for (const rule of ACCESS_RULES) expect(routes.some((r) => r.access === rule)).toBe(true);
  });

  for (const route of routes) {
    const rule = route.access;
    if (!rule) continue;
    const { allowed, refused } = RULES[rule];
    test(`${route.method} ${route.path} (${rule})`, async () => {
      for (const entry of allowed) {
        const { probe, env } = typeof entry === "function" ? { probe: entry, env: {} } : entry;
        const response = await probe(fresh(env), route);
        await response.body?.cancel();
        expect({ allowed: route.path, status: response.status }).not.toMatchObject({ status: 401 });
        expect({ allowed: route.path, status: response.status }).not.toMatchObject({ status: 403 });
        expect(response.status).toBeLessThan(500);
      }
      for (const refusal of refused) {
        if (refusal.when && !refusal.when(route)) continue;
        const response = await refusal.probe(fresh(refusal.env), route);
        expect({ refused: refusal.name, status: response.status }).toEqual({ refused: refusal.name, status: refusal.status });
      }
    }, 30_000);
  }
});
