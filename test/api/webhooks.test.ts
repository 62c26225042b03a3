/**
 * Alerts through the admin API and the live path (SPEC §18): webhooks and
 * their validation, secrets and audit; conditions that fire once; the
 * outbox written with the reading; delivery in order with retries, and a
 * webhook disabled after a day of failures.
 */
import { describe, expect, test } from "bun:test";
import { FLUSH_SPACING_MS } from "../../src/live/store.ts";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import type { AlertsOptions } from "../../src/alerts/alerts.ts";
import { discord } from "../../src/alerts/formats/discord.ts";
import type { UnsignedFormat } from "../../src/alerts/formats/format.ts";
import { json } from "../../src/alerts/formats/json.ts";
import { ntfy } from "../../src/alerts/formats/ntfy.ts";
import { FormatRegistry } from "../../src/alerts/formats/registry.ts";
import { slack } from "../../src/alerts/formats/slack.ts";
import type { Resolve } from "../../src/alerts/guard.ts";
import type { Fetcher } from "../../src/alerts/transport.ts";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { PASSWORD } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { call, expectProblem, memoryLog, scratchDirs, testConfig } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

const BASE = "/api/v1/admin/webhooks";
const HOUR = 3_600_000;
const scratch = scratchDirs();

interface WebhookBody {
  id: number;
  url: string;
  format: string;
  enabled: boolean;
  platforms: string[] | null;
  regions: string[] | null;
  roles: string[];
  minBonus: number | null;
  onStatus: boolean;
  onEvents: boolean;
  createdAt: number;
  lastDeliveryAt: number | null;
  failingSince: number | null;
  disabledReason: string | null;
}

interface DeliveryBody {
  id: number;
  messageId: string;
  type: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
  nextAttemptAt: number | null;
}

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  readonly body: string;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers as told (204 by default). */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: ReturnType<typeof Bun.serve>;

  constructor(private readonly answer: (index: number) => Response | Promise<Response> = () => new Response(null, { status: 204 })) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const url = new URL(request.url);
        this.received.push({ method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers, body: await request.text() });
        return await this.answer(this.received.length - 1);
      },
    });
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.server.port}${path}`;
  }

  async waitFor(count: number, timeoutMs = 5000): Promise<Received[]> {
    await eventually(() => this.received.length >= count, timeoutMs);
    return this.received;
  }

  async stop(): Promise<void> {
    await this.server.stop(true);
  }
}

async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

interface AlertHubOptions {
  readonly env?: Record<string, string>;
  readonly now?: () => number;
  readonly alerts?: AlertsOptions;
  readonly log?: Logger;
  readonly db?: string;
}

/** A hub with a signed-in admin; the private-address guard is off (receivers live on loopback) unless the env says otherwise. */
async function alertHub(options: AlertHubOptions = {}): Promise<{ hub: Hub; admin: Browser }> {
  const argv = options.db === undefined ? [] : ["--db", options.db];
  const config = testConfig(argv, { MFA_ENFORCED_ROLES: "", WEBHOOK_ALLOW_PRIVATE: "true", ...options.env });
  const hub = createHub(config, {
    db: openDatabase(options.db ?? ":memory:"),
    log: options.log ?? createLogger("error", () => {}),
    now: options.now ?? Date.now,
    alerts: options.alerts,
  });
  const admin = new Browser(hub);
  if ((await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD })).status !== 201) await admin.login("root", PASSWORD);
  await admin.session();
  return { hub, admin };
}

/** A webhook needs a condition to exist; a test that gives none gets onEvents, which fires only on an event change. */
const CONDITION_KEYS = ["minBonus", "onStatus", "onEvents"];

async function create(admin: Browser, body: Record<string, unknown>): Promise<{ webhook: WebhookBody; secret: string }> {
  const withCondition = CONDITION_KEYS.some((key) => key in body) ? body : { ...body, onEvents: true };
  const made = await admin.json<{ webhook: WebhookBody; secret: string }>("POST", BASE, withCondition);
  if (made.status !== 201) throw new Error(`create failed: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body;
}

interface OutboxRow {
  id: number;
  type: string;
  status: string;
  data: Record<string, unknown>;
}

function outbox(hub: Hub, webhookId: number): OutboxRow[] {
  return hub.ctx.db.sqlite
    .query<{ id: number; type: string; status: string; payload: string }, [number]>("SELECT id, type, status, payload FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id")
    .all(webhookId)
    .map((row) => ({ id: row.id, type: row.type, status: row.status, data: (JSON.parse(row.payload) as { data: Record<string, unknown> }).data }));
}

/** Posts a reading from a fresh agent (so the one-reading-per-poll rule never interferes). */
async function send(hub: Hub, region: string, measuredAt: number, values: { survivor?: number; killer?: number }, provider: "steam" | "epic" | "grdk" = "steam"): Promise<Response> {
  const platform = { steam: "Windows", epic: "EGS", grdk: "GRDK" }[provider];
  return await post(hub, addAgent(hub, region, provider), reading(platform, region, measuredAt, { survivor: 0, killer: 0, ...values }));
}

/** Lets the microtasks that judge republished payloads run. */
// A changed payload is pushed at most FLUSH_SPACING_MS after the one before it; what follows from it (judging alerts) right after.
const settle = () => Bun.sleep(FLUSH_SPACING_MS + 5);

describe("webhooks: the admin API", () => {
  test("create, list, change, rotate, delete; the secret is shown once and stored sealed; every change is audited", async () => {
    const { hub, admin } = await alertHub();
    const url = "https://hooks.example.org/incoming/secret-token-123";
    const made = await admin.json<{ webhook: WebhookBody; secret: string }>("POST", BASE, { url, format: "json", onEvents: true });
    expect(made.status).toBe(201);
    expect(made.response.headers.get("cache-control")).toBe("no-store");
    const { webhook, secret } = made.body;
    expect(webhook).toEqual({
      id: webhook.id,
      url: "https://hooks.example.org/…-123",
      format: "json",
      enabled: true,
      platforms: null,
      regions: null,
      roles: ["survivor", "killer"],
      minBonus: null,
      onStatus: false,
      onEvents: true,
      createdAt: expect.any(Number),
      lastDeliveryAt: null,
      failingSince: null,
      disabledReason: null,
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64").length).toBe(32);

    const listed = await admin.request("GET", BASE);
    const listedText = await listed.text();
    expect(JSON.parse(listedText)).toEqual({ webhooks: [webhook] });
    expect(listedText).not.toContain(secret.slice(6));
    const stored = hub.ctx.db.sqlite.query<{ secret: string }, []>("SELECT secret FROM webhooks").get()?.secret ?? "";
    expect(stored).toStartWith("v1:");
    expect(stored).not.toContain(secret.slice(6));

    const changed = await admin.json<{ webhook: WebhookBody }>("PATCH", `${BASE}/${webhook.id}`, {
      url: "https://discord.com/api/webhooks/1/other-token",
      format: "discord",
      platforms: ["GRDK", "Windows", "Windows"],
      regions: ["eu-west-2", "eu-west-1"],
      roles: ["killer"],
      minBonus: 100,
      onStatus: true,
      onEvents: true,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.webhook).toEqual({
      ...webhook,
      url: "https://discord.com/…oken",
      format: "discord",
      platforms: ["Windows", "GRDK"],
      regions: ["eu-west-1", "eu-west-2"],
      roles: ["killer"],
      minBonus: 100,
      onStatus: true,
      onEvents: true,
    });
    const cleared = await admin.json<{ webhook: WebhookBody }>("PATCH", `${BASE}/${webhook.id}`, { minBonus: null, platforms: null, enabled: false });
    expect(cleared.body.webhook).toMatchObject({ minBonus: null, platforms: null, regions: ["eu-west-1", "eu-west-2"], enabled: false });

    const rotated = await admin.json<{ secret: string }>("POST", `${BASE}/${webhook.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.response.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(secret);

    expect((await admin.request("DELETE", `${BASE}/${webhook.id}`)).status).toBe(204);
    expect((await admin.json("GET", BASE)).body).toEqual({ webhooks: [] });
    for (const [method, path] of [
      ["DELETE", `${BASE}/${webhook.id}`],
      ["PATCH", `${BASE}/${webhook.id}`],
      ["POST", `${BASE}/${webhook.id}/secret`],
      ["POST", `${BASE}/${webhook.id}/test`],
      ["GET", `${BASE}/${webhook.id}/deliveries`],
    ] as const) {
      const response = await admin.request(method, path, { body: method === "PATCH" ? { enabled: true } : undefined });
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      expectProblem(response);
    }

    const audited = hub.ctx.db.sqlite
      .query<{ action: string; target: string; actor: string; via: string; detail: string | null }, []>("SELECT action, target, actor, via, detail FROM audit_log WHERE action LIKE 'webhook.%' ORDER BY id")
      .all();
    expect(audited.map((a) => a.action)).toEqual(["webhook.create", "webhook.update", "webhook.update", "webhook.rotateSecret", "webhook.delete"]);
    for (const row of audited) expect(row).toMatchObject({ target: `webhook:${webhook.id}`, actor: "root", via: "session" });
    const trail = JSON.stringify(audited);
    expect(trail).toContain("hooks.example.org");
    expect(trail).not.toContain("secret-token-123");
    expect(trail).not.toContain("other-token");
    expect(trail).not.toContain(secret.slice(6));
  });

  test("webhook and delivery ids are never reused", async () => {
    const { admin } = await alertHub();
    const a = await create(admin, { url: "https://a.example.org/", format: "json" });
    const b = await create(admin, { url: "https://b.example.org/", format: "json" });
    const first = (await admin.json<{ deliveryId: number }>("POST", `${BASE}/${b.webhook.id}/test`)).body.deliveryId;
    await admin.request("DELETE", `${BASE}/${b.webhook.id}`);
    const c = await create(admin, { url: "https://c.example.org/", format: "json" });
    expect(c.webhook.id).toBeGreaterThan(b.webhook.id);
    const second = (await admin.json<{ deliveryId: number }>("POST", `${BASE}/${a.webhook.id}/test`)).body.deliveryId;
    expect(second).toBeGreaterThan(first);
  });

  test("a webhook that could never fire is refused: no minBonus, onStatus and onEvents false, on create and on change", async () => {
    const { hub, admin } = await alertHub();
    const refused = await admin.json<{ detail: string; errors: { location: string; message: string }[] }>("POST", BASE, { url: "https://hooks.example.org/x", format: "json" });
    expect(refused.status).toBe(400);
    expectProblem(refused.response);
    expect(refused.body.detail).toBe(
      "This webhook has no condition: no condition is set, so it could never fire: give minBonus, or set onStatus or onEvents to true.",
    );
    expect(refused.body.errors).toEqual([{ location: "body.minBonus", message: expect.stringContaining("could never fire") }]);
    const explicit = await admin.json("POST", BASE, { url: "https://hooks.example.org/x", format: "json", minBonus: null, onStatus: false, onEvents: false });
    expect(explicit.status).toBe(400);
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhooks").get()?.n).toBe(0);

    for (const condition of [{ minBonus: 0 }, { onStatus: true }, { onEvents: true }]) {
      expect((await admin.json("POST", BASE, { url: "https://hooks.example.org/x", format: "json", ...condition })).status).toBe(201);
    }
    const { webhook } = await create(admin, { url: "https://hooks.example.org/y", format: "json", minBonus: 50, onStatus: true });
    expect((await admin.json("PATCH", `${BASE}/${webhook.id}`, { minBonus: null })).status).toBe(200);
    const emptied = await admin.json<{ detail: string }>("PATCH", `${BASE}/${webhook.id}`, { onStatus: false });
    expect(emptied.status).toBe(400);
    expect(emptied.body.detail).toStartWith(`Webhook ${webhook.id} has no condition`);
    const after = await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE);
    expect(after.body.webhooks.find((w) => w.id === webhook.id)).toMatchObject({ minBonus: null, onStatus: true });
  });

  test("invalid input is a 400 naming the field, and nothing is stored", async () => {
    const { hub, admin } = await alertHub();
    const good = { url: "https://hooks.example.org/x", format: "json" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, url: "not a url" }, "body.url"],
      [{ ...good, url: "ftp://hooks.example.org/x" }, "body.url"],
      [{ ...good, url: "https://user:password@hooks.example.org/x" }, "body.url"],
      [{ ...good, url: `https://hooks.example.org/${"a".repeat(2100)}` }, "body.url"],
      [{ format: "json" }, "body.url"],
      [{ ...good, format: "xml" }, "body.format"],
      [{ url: good.url }, "body.format"],
      [{ ...good, platforms: ["PS5"] }, "body.platforms"],
      [{ ...good, platforms: [] }, "body.platforms"],
      [{ ...good, regions: ["mars-north-1"] }, "body.regions"],
      [{ ...good, regions: "eu-west-1" }, "body.regions"],
      [{ ...good, roles: ["healer"] }, "body.roles"],
      [{ ...good, roles: [] }, "body.roles"],
      [{ ...good, minBonus: -1 }, "body.minBonus"],
      [{ ...good, minBonus: 1001 }, "body.minBonus"],
      [{ ...good, minBonus: 12.5 }, "body.minBonus"],
      [{ ...good, minBonus: "fifty" }, "body.minBonus"],
      [{ ...good, onStatus: "yes" }, "body.onStatus"],
    ];
    for (const [body, location] of cases) {
      const response = await admin.json<{ detail: string; errors?: { location: string }[] }>("POST", BASE, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expectProblem(response.response);
      expect({ body, location: response.body.errors?.[0]?.location }).toEqual({ body, location: expect.stringMatching(new RegExp(`^${location.replace(".", "\\.")}`)) });
      expect(response.body.detail).toContain(location.replace("body.", ""));
    }
    expect(hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM webhooks").get()?.n).toBe(0);

    const made = await create(admin, { ...good, minBonus: 0 });
    expect(made.webhook.minBonus).toBe(0);
    expect((await admin.json("PATCH", `${BASE}/${made.webhook.id}`, { minBonus: 1000 })).status).toBe(200);
    expect((await admin.json("PATCH", `${BASE}/${made.webhook.id}`, { minBonus: 1001 })).status).toBe(400);
    for (const query of ["limit=0", "limit=201", "limit=1.5", "limit=abc", "before=0", "before=x"]) {
      const response = await admin.json<{ errors: { location: string }[] }>("GET", `${BASE}/${made.webhook.id}/deliveries?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body.errors[0]?.location).toBe(`query.${query.split("=")[0]}`);
    }
  });

  test("targets on the hub's own network are refused unless WEBHOOK_ALLOW_PRIVATE is on", async () => {
    const { admin } = await alertHub({ env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
    for (const url of ["http://127.0.0.1:8080/hook", "http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook", "http://localhost:9000/hook", "http://192.168.1.20/", "http://[fd00::1]/"]) {
      const response = await admin.json<{ detail: string; errors: { location: string }[] }>("POST", BASE, { url, format: "json" });
      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect(response.body.errors[0]?.location).toBe("body.url");
      expect(response.body.detail).toContain("WEBHOOK_ALLOW_PRIVATE");
    }
    for (const url of ["http://[::ffff:0:7f00:1]/hook", "http://[::ffff:0:169.254.169.254]/", "https://hooks.example.org:0/x"]) {
      const response = await admin.json<{ detail: string; errors: { location: string }[] }>("POST", BASE, { url, format: "discord" });
      expect({ url, status: response.status, location: response.body.errors[0]?.location }).toEqual({ url, status: 400, location: "body.url" });
    }
    expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks).toEqual([]);
    const made = await create(admin, { url: "https://hooks.example.org/x", format: "json" });
    for (const url of ["http://[::ffff:0:7f00:1]/hook", "https://hooks.example.org:0/x"]) {
      expect((await admin.json("PATCH", `${BASE}/${made.webhook.id}`, { url })).status).toBe(400);
    }
    const patched = await admin.json("PATCH", `${BASE}/${made.webhook.id}`, { url: "http://10.0.0.1/hook" });
    expect(patched.status).toBe(400);
    expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0]?.url).toBe("https://hooks.example.org/…rg/x");

    const allowed = await alertHub({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
    expect((await allowed.admin.json("POST", BASE, { url: "http://127.0.0.1:8080/hook", format: "json", onEvents: true })).status).toBe(201);
  });

  test("admins only: anonymous callers are 401, other users 403", async () => {
    const { hub, admin } = await alertHub();
    await admin.json("POST", "/api/v1/admin/users", { username: "carl", role: "user", password: PASSWORD });
    const user = new Browser(hub, "203.0.113.20");
    await user.login("carl", PASSWORD);
    const made = await create(admin, { url: "https://hooks.example.org/x", format: "json" });
    for (const [method, path] of [
      ["GET", BASE],
      ["POST", BASE],
      ["PATCH", `${BASE}/${made.webhook.id}`],
      ["DELETE", `${BASE}/${made.webhook.id}`],
      ["POST", `${BASE}/${made.webhook.id}/secret`],
      ["POST", `${BASE}/${made.webhook.id}/test`],
      ["GET", `${BASE}/${made.webhook.id}/deliveries`],
    ] as const) {
      const body = method === "GET" || method === "DELETE" ? undefined : { url: "https://x.example.org/", format: "json" };
      expect({ method, path, status: (await call(hub, method, path, { body })).status }).toEqual({ method, path, status: 401 });
      expect({ method, path, status: (await user.request(method, path, { body })).status }).toEqual({ method, path, status: 403 });
    }
    expect((await admin.json("GET", BASE)).body).toEqual({ webhooks: [made.webhook] });
  });

  test("a test message on a disabled webhook is a 409", async () => {
    const { admin } = await alertHub();
    const made = await create(admin, { url: "https://hooks.example.org/x", format: "json", enabled: false });
    const response = await admin.json<{ detail: string }>("POST", `${BASE}/${made.webhook.id}/test`);
    expect(response.status).toBe(409);
    expect(response.body.detail).toContain("enable it");
  });
});

describe("webhooks: conditions fire when they become true, once", () => {
  test("bonus.reached: once on crossing, not while it stays true, again after it was false", async () => {
    const { hub, admin } = await alertHub();
    const { webhook } = await create(admin, { url: "https://hooks.example.org/x", format: "json", regions: ["eu-west-1"], roles: ["killer"], minBonus: 50 });
    let t = Date.now() - 120_000;
    const bonus = (region: string, values: { survivor?: number; killer?: number }, provider: "steam" | "epic" = "steam") => send(hub, region, (t += 1000), values, provider);
    const fired = () => outbox(hub, webhook.id).filter((d) => d.type === "bonus.reached");

    expect((await bonus("eu-west-1", { killer: 75 })).status).toBe(201);
    expect(fired().map((d) => d.data)).toEqual([
      {
        platform: "Windows",
        region: "eu-west-1",
        displayName: "EU West (Ireland)",
        role: "killer",
        bonus: 75,
        survivor: 0,
        killer: 75,
        measuredAt: new Date(t).toISOString(),
        url: `${hub.ctx.config.origin}/Windows/eu-west-1`,
      },
    ]);
    await bonus("eu-west-1", { killer: 80 });
    await bonus("eu-west-1", { killer: 50 });
    expect(fired().length).toBe(1);
    await bonus("eu-west-1", { killer: 40 });
    expect(fired().length).toBe(1);
    await bonus("eu-west-1", { killer: 60 });
    expect(fired().map((d) => d.data.bonus)).toEqual([75, 60]);

    await bonus("eu-west-2", { killer: 500 });
    await bonus("eu-west-1", { survivor: 300, killer: 0 });
    expect(fired().length).toBe(2);
    // Older than the live value: stored for history, but the board does not show it, so nothing turns.
    expect((await send(hub, "eu-west-1", t - 10_000, { killer: 90 })).status).toBe(201);
    expect(fired().length).toBe(2);
    // Each platform is its own condition.
    await bonus("eu-west-1", { killer: 70 }, "epic");
    expect(fired().map((d) => [d.data.platform, d.data.bonus])).toEqual([
      ["Windows", 75],
      ["Windows", 60],
      ["EGS", 70],
    ]);
  });

  test("a minimum of 0 means any bonus; survivor and killer are judged apart", async () => {
    const { hub, admin } = await alertHub();
    const { webhook } = await create(admin, { url: "https://hooks.example.org/x", format: "json", minBonus: 0 });
    let t = Date.now() - 60_000;
    await send(hub, "us-east-1", (t += 1000), { survivor: 0, killer: 0 });
    expect(outbox(hub, webhook.id)).toEqual([]);
    await send(hub, "us-east-1", (t += 1000), { survivor: 25, killer: 0 });
    await send(hub, "us-east-1", (t += 1000), { survivor: 0, killer: 25 });
    expect(outbox(hub, webhook.id).map((d) => [d.data.role, d.data.bonus])).toEqual([
      ["survivor", 25],
      ["killer", 25],
    ]);
  });

  test("a condition that already holds when a webhook is made, enabled or changed counts as fired", async () => {
    const { hub, admin } = await alertHub();
    let t = Date.now() - 60_000;
    await send(hub, "eu-central-1", (t += 1000), { killer: 120 });
    const { webhook } = await create(admin, { url: "https://hooks.example.org/x", format: "json", roles: ["killer"], minBonus: 100 });
    await send(hub, "eu-central-1", (t += 1000), { killer: 130 });
    expect(outbox(hub, webhook.id)).toEqual([]);
    await send(hub, "eu-central-1", (t += 1000), { killer: 0 });
    await send(hub, "eu-central-1", (t += 1000), { killer: 110 });
    expect(outbox(hub, webhook.id).length).toBe(1);
    await admin.json("PATCH", `${BASE}/${webhook.id}`, { minBonus: 105 });
    await send(hub, "eu-central-1", (t += 1000), { killer: 115 });
    expect(outbox(hub, webhook.id).length).toBe(1);
    // Disabled, it watches nothing; enabled again while the bonus holds, it does not fire for it.
    await admin.json("PATCH", `${BASE}/${webhook.id}`, { enabled: false });
    await send(hub, "eu-central-1", (t += 1000), { killer: 0 });
    await send(hub, "eu-central-1", (t += 1000), { killer: 140 });
    await admin.json("PATCH", `${BASE}/${webhook.id}`, { enabled: true });
    await send(hub, "eu-central-1", (t += 1000), { killer: 150 });
    expect(outbox(hub, webhook.id).length).toBe(1);
    await send(hub, "eu-central-1", (t += 1000), { killer: 0 });
    await send(hub, "eu-central-1", (t += 1000), { killer: 160 });
    expect(outbox(hub, webhook.id).length).toBe(2);
  });

  test("the outbox row is written in the reading's transaction: if it cannot be written, the reading is not stored either", async () => {
    const { hub, admin } = await alertHub();
    const { webhook } = await create(admin, { url: "https://hooks.example.org/x", format: "json", minBonus: 50 });
    const { sqlite } = hub.ctx.db;
    const readings = () => sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
    sqlite.exec("CREATE TRIGGER no_outbox BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'outbox unavailable'); END");
    let t = Date.now() - 60_000;
    const refused = await send(hub, "eu-west-1", (t += 1000), { killer: 100 });
    expect(refused.status).toBe(503);
    expect(readings()).toBe(0);
    expect(sqlite.query("SELECT * FROM webhook_conditions").all()).toEqual([]);
    sqlite.exec("DROP TRIGGER no_outbox");
    expect((await send(hub, "eu-west-1", (t += 1000), { killer: 100 })).status).toBe(201);
    expect(readings()).toBe(1);
    expect(outbox(hub, webhook.id).map((d) => d.data.bonus)).toEqual([100]);
  });

  test("status.changed per platform, and event.started / event.ended once per event, for the platforms followed", async () => {
    const { hub, admin } = await alertHub();
    const all = await create(admin, { url: "https://hooks.example.org/all", format: "json", onStatus: true, onEvents: true });
    const egs = await create(admin, { url: "https://hooks.example.org/egs", format: "json", platforms: ["EGS"], onStatus: true, onEvents: true });
    const quiet = await create(admin, { url: "https://hooks.example.org/quiet", format: "json", minBonus: 10 });
    addAgent(hub, "eu-west-1");
    await settle();
    expect(outbox(hub, all.webhook.id).map((d) => [d.type, d.data.platform, d.data.previousStatus, d.data.status])).toEqual([["status.changed", "Windows", "error", "initializing"]]);
    expect(outbox(hub, egs.webhook.id)).toEqual([]);
    await send(hub, "eu-west-1", Date.now() - 1000, { killer: 0 });
    await settle();
    expect(outbox(hub, all.webhook.id).map((d) => d.data.status)).toEqual(["initializing", "ok"]);
    expect(outbox(hub, all.webhook.id)[1]?.data.url).toBe(`${hub.ctx.config.origin}/Windows`);

    const now = Date.now();
    const event = await admin.json<{ event: { id: number } }>("POST", "/api/v1/admin/events", {
      key: "double-bp",
      label: "Double Bloodpoints",
      multiplier: 2,
      startsAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + HOUR).toISOString(),
    });
    await settle();
    const started = outbox(hub, all.webhook.id).filter((d) => d.type === "event.started");
    expect(started.map((d) => d.data)).toEqual([
      {
        key: "double-bp",
        label: "Double Bloodpoints",
        multiplier: 2,
        startsAt: new Date(now - 60_000).toISOString(),
        endsAt: new Date(now + HOUR).toISOString(),
        platforms: ["Windows", "EGS", "GRDK"],
        url: `${hub.ctx.config.origin}/`,
      },
    ]);
    expect(outbox(hub, egs.webhook.id).map((d) => [d.type, d.data.platforms])).toEqual([["event.started", ["EGS"]]]);
    // Republishing for other reasons announces nothing again.
    await send(hub, "eu-west-1", Date.now() - 500, { killer: 10 });
    await settle();
    expect(outbox(hub, all.webhook.id).filter((d) => d.type.startsWith("event.")).length).toBe(1);

    await admin.request("DELETE", `/api/v1/admin/events/${event.body.event.id}`);
    await settle();
    expect(outbox(hub, all.webhook.id).filter((d) => d.type === "event.ended").map((d) => d.data.platforms)).toEqual([["Windows", "EGS", "GRDK"]]);
    expect(outbox(hub, egs.webhook.id).map((d) => d.type)).toEqual(["event.started", "event.ended"]);
    expect(outbox(hub, quiet.webhook.id).map((d) => d.type)).toEqual(["bonus.reached"]);
  });

  test("a status change made while the hub was down is announced at the next start, once", async () => {
    const db = join(scratch(), "hub.db");
    const first = await alertHub({ db });
    const { webhook } = await create(first.admin, { url: "https://hooks.example.org/x", format: "json", onStatus: true });
    first.hub.start();
    await first.hub.stop();
    first.hub.ctx.db.sqlite.close();
    expect(first.hub.ctx.db.sqlite.query).toBeDefined();

    const offline = openDatabase(db);
    offline.sqlite
      .query("INSERT INTO agents (token_hash, provider, platform, region, created_at, updated_at) VALUES (?, 'epic', 'EGS', 'eu-west-1', 0, 0)")
      .run("c".repeat(64));
    offline.sqlite.close();

    const second = await alertHub({ db });
    second.hub.start();
    await settle();
    await second.hub.stop();
    expect(outbox(second.hub, webhook.id).map((d) => [d.data.platform, d.data.previousStatus, d.data.status])).toEqual([["EGS", "error", "initializing"]]);
    second.hub.ctx.db.sqlite.close();

    const third = await alertHub({ db });
    third.hub.start();
    await settle();
    await third.hub.stop();
    expect(outbox(third.hub, webhook.id).length).toBe(1);
    third.hub.ctx.db.sqlite.close();
  });
});

describe("webhooks: delivery", () => {
  test("json deliveries verify with the standardwebhooks library; after a rotation, only with the new secret", async () => {
    const receiver = new Receiver();
    const { hub, admin } = await alertHub();
    hub.start();
    try {
      const { webhook, secret } = await create(admin, { url: receiver.url(), format: "json" });
      const queued = await admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`);
      expect(queued.status).toBe(202);
      const [first] = await receiver.waitFor(1);
      if (!first) throw new Error("nothing received");
      const headers = Object.fromEntries(first.headers);
      const logged = (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries;
      expect(logged.map((d) => d.id)).toEqual([queued.body.deliveryId]);
      expect(first.headers.get("webhook-id")).toBe(logged[0]?.messageId ?? "");
      expect(first.headers.get("webhook-id")).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(first.headers.get("content-type")).toStartWith("application/json");
      expect(new Webhook(secret).verify(first.body, headers)).toEqual({
        type: "test",
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { webhookId: webhook.id, message: expect.stringContaining("test message") },
      });
      expect(() => new Webhook(secret).verify(first.body.replace("test", "tset"), headers)).toThrow();

      const rotated = (await admin.json<{ secret: string }>("POST", `${BASE}/${webhook.id}/secret`)).body.secret;
      await admin.json("POST", `${BASE}/${webhook.id}/test`);
      const [, second] = await receiver.waitFor(2);
      if (!second) throw new Error("nothing received");
      const again = Object.fromEntries(second.headers);
      expect(() => new Webhook(secret).verify(second.body, again)).toThrow();
      expect(new Webhook(rotated).verify(second.body, again)).toMatchObject({ type: "test" });

      await hub.ctx.alerts.worker.idle();
      const log = (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries;
      expect(log.map((d) => [d.type, d.status, d.attempts, d.lastStatusCode, d.lastError, d.nextAttemptAt])).toEqual([
        ["test", "delivered", 1, 204, null, null],
        ["test", "delivered", 1, 204, null, null],
      ]);
      expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0]?.lastDeliveryAt).toBeNumber();
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("discord, slack and ntfy receivers get their own shapes for a bonus", async () => {
    const receiver = new Receiver();
    const { hub, admin } = await alertHub();
    hub.start();
    try {
      for (const format of ["discord", "slack", "ntfy"]) await create(admin, { url: receiver.url(`/${format}`), format, regions: ["sa-east-1"], roles: ["killer"], minBonus: 100 });
      await send(hub, "sa-east-1", Date.now() - 1000, { killer: 150 });
      const received = await receiver.waitFor(3);
      const at = (path: string) => received.find((r) => r.path === path);
      const discord = JSON.parse(at("/discord")?.body ?? "{}") as { embeds: { title: string; url: string }[] };
      expect(at("/discord")?.headers.get("content-type")).toStartWith("application/json");
      expect(discord.embeds[0]?.title).toBe("+150 % killer bonus: South America \\(São Paulo\\)");
      expect(discord.embeds[0]?.url).toBe(`${hub.ctx.config.origin}/Windows/sa-east-1`);
      const slack = JSON.parse(at("/slack")?.body ?? "{}") as { text: string; blocks: unknown[] };
      expect(slack.text).toContain("+150 % killer bonus: South America (São Paulo)");
      expect(slack.blocks.length).toBeGreaterThan(0);
      const ntfy = at("/ntfy");
      expect(ntfy?.headers.get("content-type")).toStartWith("text/plain");
      expect(ntfy?.body).toBe("Killers get +150 % bloodpoints in South America (São Paulo) on Steam.");
      expect(ntfy?.headers.get("priority")).toBe("4");
      expect(ntfy?.headers.get("tags")).toBe("moneybag,killer");
      expect(ntfy?.headers.get("click")).toBe(`${hub.ctx.config.origin}/Windows/sa-east-1`);
      expect(ntfy?.headers.get("title")).toMatch(/^=\?UTF-8\?B\?/);
      for (const request of received) expect(request.headers.get("webhook-signature")).toBeNull();
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("the formats' objects decide: the URL rule when saving; the method, delivery URL and message-id headers when sending", async () => {
    // ntfy as someone might rewrite it: only /topic/ URLs, PUT to the topic plus the delivery's id, the id in a header too.
    const topicNtfy = {
      ...ntfy,
      method: "PUT",
      target: {
        problem: (target) => (target.pathname.startsWith("/topic/") ? null : "must be a /topic/ URL"),
        deliveryUrl: (target, messageId) => new URL(`${target.pathname}/${messageId}`, target),
      },
      idempotency: (messageId) => ({ "x-message-id": messageId }),
    } as const satisfies UnsignedFormat<"ntfy">;
    const receiver = new Receiver();
    const { hub, admin } = await alertHub({ alerts: { formats: new FormatRegistry([json, discord, slack, topicNtfy]) } });
    hub.start();
    try {
      const refused = await admin.json<{ detail: string; errors: { location: string }[] }>("POST", BASE, { url: receiver.url("/elsewhere"), format: "ntfy", onEvents: true });
      expect({ status: refused.status, location: refused.body.errors[0]?.location }).toEqual({ status: 400, location: "body.url" });
      expect(refused.body.detail).toContain("must be a /topic/ URL");
      const { webhook } = await create(admin, { url: receiver.url("/elsewhere"), format: "json" });
      const switched = await admin.json<{ detail: string; errors: { location: string }[] }>("PATCH", `${BASE}/${webhook.id}`, { format: "ntfy" });
      expect({ status: switched.status, location: switched.body.errors[0]?.location }).toEqual({ status: 400, location: "body.format" });
      expect(switched.body.detail).toContain("must be a /topic/ URL");
      expect((await admin.json("PATCH", `${BASE}/${webhook.id}`, { url: receiver.url("/elsewhere/2") })).status).toBe(200);
      expect((await admin.json("PATCH", `${BASE}/${webhook.id}`, { format: "ntfy", url: receiver.url("/topic/alerts") })).status).toBe(200);

      const { deliveryId } = (await admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body;
      const [received] = await receiver.waitFor(1);
      const { deliveries } = (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body;
      const messageId = deliveries.find((d) => d.id === deliveryId)?.messageId ?? "";
      expect(messageId).toMatch(/^msg_/);
      expect({ method: received?.method, path: received?.path, id: received?.headers.get("x-message-id") }).toEqual({ method: "PUT", path: `/topic/alerts/${messageId}`, id: messageId });
      expect(received?.body).toContain("If you can read this, the webhook works.");
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("a receiver that fails then recovers gets every message, in order, the failed one retried with the same id and body", async () => {
    const receiver = new Receiver((index) => new Response("busy", { status: index < 2 ? 503 : 200 }));
    const { hub, admin } = await alertHub({ alerts: { policy: { backoffMs: [20, 40], jitter: 0 } } });
    const { webhook } = await create(admin, { url: receiver.url(), format: "json" });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body.deliveryId);
    hub.start();
    try {
      await receiver.waitFor(5);
      await hub.ctx.alerts.worker.idle();
      const [a = 0, b = 0, c = 0] = ids;
      const messageIds = new Map((await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries.map((d) => [d.messageId, d.id]));
      expect(messageIds.size).toBe(3);
      expect(receiver.received.map((r) => messageIds.get(r.headers.get("webhook-id") ?? ""))).toEqual([a, a, a, b, c]);
      const bodies = receiver.received.slice(0, 3).map((r) => r.body);
      expect(new Set(bodies).size).toBe(1);
      const page = await admin.json<{ deliveries: DeliveryBody[]; next: number | null }>("GET", `${BASE}/${webhook.id}/deliveries?limit=2`);
      expect(page.body.deliveries.map((d) => [d.id, d.status, d.attempts])).toEqual([
        [c, "delivered", 1],
        [b, "delivered", 1],
      ]);
      expect(page.body.next).toBe(b);
      const rest = await admin.json<{ deliveries: DeliveryBody[]; next: number | null }>("GET", `${BASE}/${webhook.id}/deliveries?limit=2&before=${page.body.next}`);
      expect(rest.body.deliveries.map((d) => [d.id, d.status, d.attempts, d.lastStatusCode, d.lastError])).toEqual([[a, "delivered", 3, 200, null]]);
      expect(rest.body.next).toBeNull();
      expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0]?.failingSince).toBeNull();
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("every attempt is counted in /metrics by how it ended: delivered, retry, given_up", async () => {
    const recovering = new Receiver((index) => new Response(null, { status: index < 1 ? 503 : 204 }));
    const failing = new Receiver(() => new Response("no", { status: 500 }));
    // A first failure waits 20 ms; a second would wait an hour, past the delivery's minute, so it is the last.
    const { hub, admin } = await alertHub({ alerts: { policy: { backoffMs: [20, HOUR], jitter: 0, giveUpAfterMs: 60_000 } } });
    const counted = async (): Promise<Record<string, number>> => {
      const text = await (await admin.request("GET", "/metrics")).text();
      return Object.fromEntries([...text.matchAll(/^hub_webhook_deliveries_total\{result="([a-z_]+)"\} (\d+)$/gm)].map((m) => [m[1] ?? "", Number(m[2])]));
    };
    expect(await counted()).toEqual({ delivered: 0, retry: 0, given_up: 0, expired: 0 });
    const a = await create(admin, { url: recovering.url(), format: "json" });
    const b = await create(admin, { url: failing.url(), format: "json" });
    await admin.json("POST", `${BASE}/${a.webhook.id}/test`);
    await admin.json("POST", `${BASE}/${b.webhook.id}/test`);
    hub.start();
    try {
      await eventually(() => outbox(hub, a.webhook.id)[0]?.status === "delivered" && outbox(hub, b.webhook.id)[0]?.status === "failed", 5000);
      await hub.ctx.alerts.worker.idle();
      expect(await counted()).toEqual({ delivered: 1, retry: 2, given_up: 1, expired: 0 });
      expect(recovering.received.length + failing.received.length).toBe(4);
    } finally {
      await hub.stop();
      await recovering.stop();
      await failing.stop();
    }
  });

  test("a delivery whose day ran out before it was tried is counted as expired, not as an attempt", async () => {
    const receiver = new Receiver();
    const { hub, admin } = await alertHub({ alerts: { policy: { giveUpAfterMs: 50 } } });
    const { webhook } = await create(admin, { url: receiver.url(), format: "json" });
    await admin.json("POST", `${BASE}/${webhook.id}/test`);
    await Bun.sleep(100);
    hub.start();
    try {
      await eventually(() => outbox(hub, webhook.id)[0]?.status === "failed");
      await hub.ctx.alerts.worker.idle();
      const text = await (await admin.request("GET", "/metrics")).text();
      expect(text).toContain('hub_webhook_deliveries_total{result="expired"} 1\n');
      expect(text).toContain('hub_webhook_deliveries_total{result="delivered"} 0\n');
      expect(receiver.received).toEqual([]);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("a slow receiver holds up only its own webhook, and never a reading", async () => {
    const slow = new Receiver(() => Bun.sleep(800).then(() => new Response(null, { status: 204 })));
    const fast = new Receiver();
    const { hub, admin } = await alertHub();
    const a = await create(admin, { url: slow.url(), format: "json", minBonus: 10 });
    const b = await create(admin, { url: fast.url(), format: "json", minBonus: 10 });
    hub.start();
    try {
      await send(hub, "eu-west-1", Date.now() - 2000, { killer: 50 });
      await slow.waitFor(1);
      await fast.waitFor(1);
      const started = performance.now();
      expect((await send(hub, "eu-west-2", Date.now() - 1000, { killer: 50 })).status).toBe(201);
      expect(performance.now() - started).toBeLessThan(400);
      await fast.waitFor(2, 400);
      expect(slow.received.length).toBe(1);
      await slow.waitFor(2, 3000);
      expect(outbox(hub, a.webhook.id).length).toBe(2);
      expect(outbox(hub, b.webhook.id).length).toBe(2);
    } finally {
      await hub.stop();
      await slow.stop();
      await fast.stop();
    }
  });

  test("retries back off exponentially, 10 s, 30 s, 1 min, …, each stretched or shrunk by up to 20 % at random", async () => {
    let clock = Date.now();
    let random = 1;
    const receiver = new Receiver(() => new Response(null, { status: 502 }));
    const { hub, admin } = await alertHub({ now: () => clock, alerts: { random: () => random } });
    const { webhook } = await create(admin, { url: receiver.url(), format: "json" });
    await admin.json("POST", `${BASE}/${webhook.id}/test`);
    const worker = hub.ctx.alerts.worker;
    const next = async () => (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries[0]?.nextAttemptAt ?? 0;
    hub.start();
    try {
      const waits: number[] = [];
      for (const [attempt, r] of [[1, 1], [2, 0], [3, 0.5], [4, 0.5]] as const) {
        random = r;
        worker.kick();
        await receiver.waitFor(attempt);
        await worker.idle();
        const due = await next();
        waits.push(due - clock);
        clock = due;
      }
      expect(waits).toEqual([12_000, 24_000, 60_000, 120_000]);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("failing for a day disables the webhook, with a reason and an audit row; enabling it again starts afresh", async () => {
    let clock = Date.now();
    const receiver = new Receiver(() => new Response("down for maintenance", { status: 500 }));
    const { hub, admin } = await alertHub({ now: () => clock, alerts: { policy: { backoffMs: [6 * HOUR], jitter: 0 } } });
    const { webhook } = await create(admin, { url: receiver.url(), format: "json", minBonus: 10 });
    const started = clock;
    const deliveryId = (await admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body.deliveryId;
    const worker = hub.ctx.alerts.worker;
    const view = async () => (await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0];
    const delivery = async () => (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries[0];
    hub.start();
    try {
      await receiver.waitFor(1);
      await worker.idle();
      expect(await delivery()).toMatchObject({ id: deliveryId, status: "pending", attempts: 1, lastStatusCode: 500, lastError: "HTTP 500: down for maintenance", nextAttemptAt: started + 6 * HOUR });
      expect(await view()).toMatchObject({ enabled: true, failingSince: started, disabledReason: null });
      for (let attempt = 2; attempt <= 4; attempt++) {
        clock += 6 * HOUR;
        worker.kick();
        await receiver.waitFor(attempt);
        await worker.idle();
      }
      // The next attempt would fall on the delivery's 24th hour: it is given up after the 4th, 18 h in.
      expect(await delivery()).toMatchObject({ status: "failed", attempts: 4, nextAttemptAt: null });
      expect(await view()).toMatchObject({ enabled: true, failingSince: started });
      clock += 6 * HOUR - 1;
      worker.kick();
      await worker.idle();
      expect(await view()).toMatchObject({ enabled: true });
      clock += 1;
      worker.kick();
      await worker.idle();
      expect(receiver.received.length).toBe(4);
      const disabled = await view();
      expect(disabled).toMatchObject({ enabled: false, failingSince: started });
      expect(disabled?.disabledReason).toContain(new Date(started).toISOString());
      expect(disabled?.disabledReason).toContain("HTTP 500");
      const audited = hub.ctx.db.sqlite
        .query<{ actor: string; actor_user_id: number | null; via: string; target: string; detail: string }, []>(
          "SELECT actor, actor_user_id, via, target, detail FROM audit_log WHERE action = 'webhook.disable'",
        )
        .all();
      expect(audited).toEqual([{ actor: "system", actor_user_id: null, via: "config", target: `webhook:${webhook.id}`, detail: JSON.stringify({ reason: disabled?.disabledReason }) }]);

      // Disabled, it is not judged and not sent to.
      await send(hub, "eu-west-1", clock - 1000, { killer: 50 });
      expect(outbox(hub, webhook.id).length).toBe(1);

      // A new target starts with a clean record, but only an admin enables the webhook again.
      const moved = await admin.json<{ webhook: WebhookBody }>("PATCH", `${BASE}/${webhook.id}`, { url: receiver.url("/new") });
      expect(moved.body.webhook).toMatchObject({ enabled: false, failingSince: null, disabledReason: disabled?.disabledReason });
      const enabled = await admin.json<{ webhook: WebhookBody }>("PATCH", `${BASE}/${webhook.id}`, { enabled: true });
      expect(enabled.body.webhook).toMatchObject({ enabled: true, failingSince: null, disabledReason: null });
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("a disabled webhook's deliveries wait; once past a day they are given up without an attempt", async () => {
    let clock = Date.now();
    const receiver = new Receiver();
    const { hub, admin } = await alertHub({ now: () => clock });
    const { webhook } = await create(admin, { url: receiver.url(), format: "json" });
    await admin.json("POST", `${BASE}/${webhook.id}/test`);
    await admin.json("PATCH", `${BASE}/${webhook.id}`, { enabled: false });
    hub.start();
    try {
      await hub.ctx.alerts.worker.idle();
      expect(receiver.received).toEqual([]);
      clock += 25 * HOUR;
      await admin.json("PATCH", `${BASE}/${webhook.id}`, { enabled: true });
      await eventually(() => outbox(hub, webhook.id)[0]?.status === "failed");
      await hub.ctx.alerts.worker.idle();
      const [given] = (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`)).body.deliveries;
      expect(given).toMatchObject({ status: "failed", attempts: 0, lastError: "not delivered within 24 h of being written" });
      expect(receiver.received).toEqual([]);
      expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0]?.enabled).toBe(true);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("with the guard on, a name resolving to a private address and a redirect into the hub's network are refused when sending", async () => {
    const names: Record<string, readonly string[]> = { "hooks.example.org": ["93.184.215.14"], "sneaky.example.org": ["10.0.0.5"] };
    const resolve: Resolve = async (hostname) => names[hostname] ?? [];
    const sent: string[] = [];
    const fetcher: Fetcher = async (url, init) => {
      sent.push(`${new Headers(init.headers).get("host")} ${url}`);
      return new Response(null, { status: 307, headers: { location: "http://169.254.169.254/latest/meta-data/" } });
    };
    const { hub, admin } = await alertHub({ env: { WEBHOOK_ALLOW_PRIVATE: "false" }, alerts: { resolve, fetch: fetcher, policy: { backoffMs: [HOUR] } } });
    const sneaky = await create(admin, { url: "http://sneaky.example.org/hook", format: "json" });
    const redirected = await create(admin, { url: "http://hooks.example.org/hook", format: "json" });
    await admin.json("POST", `${BASE}/${sneaky.webhook.id}/test`);
    await admin.json("POST", `${BASE}/${redirected.webhook.id}/test`);
    hub.start();
    try {
      await eventually(() => outbox(hub, sneaky.webhook.id).length > 0 && outbox(hub, redirected.webhook.id).length > 0);
      await hub.ctx.alerts.worker.idle();
      const lastError = async (id: number) => (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${id}/deliveries`)).body.deliveries[0]?.lastError;
      expect(await lastError(sneaky.webhook.id)).toBe("refused sneaky.example.org: it resolves to 10.0.0.5, not a public internet address; set WEBHOOK_ALLOW_PRIVATE=true to allow targets on the hub's own network");
      expect(await lastError(redirected.webhook.id)).toMatch(/^refused: points at 169\.254\.169\.254/);
      expect(sent).toEqual(["hooks.example.org http://93.184.215.14/hook"]);
    } finally {
      await hub.stop();
    }
  });

  test("a delivery that cannot even be attempted is held back, not retried in a tight loop", async () => {
    const { log, lines } = memoryLog("error");
    const receiver = new Receiver();
    const { hub, admin } = await alertHub({ log, alerts: { policy: { backoffMs: [60_000] } } });
    const { webhook } = await create(admin, { url: receiver.url(), format: "discord" });
    hub.ctx.db.sqlite.query("INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, next_attempt_at) VALUES (?, 'test', 'not json', ?, ?)").run(webhook.id, Date.now(), Date.now());
    hub.start();
    try {
      await Bun.sleep(300);
      expect(lines.filter((line) => String(line.msg).startsWith("a webhook delivery could not be attempted")).length).toBe(1);
      expect(receiver.received).toEqual([]);
      expect(hub.ctx.db.sqlite.query("SELECT status, attempts FROM webhook_deliveries").all()).toEqual([{ status: "pending", attempts: 0 }]);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("secrets and target URLs never reach the log", async () => {
    const { log, lines } = memoryLog("debug");
    const receiver = new Receiver(() => new Response("nope", { status: 500 }));
    const { hub, admin } = await alertHub({ log, alerts: { policy: { backoffMs: [10], giveUpAfterMs: 50 } } });
    hub.start();
    try {
      const { webhook, secret } = await create(admin, { url: receiver.url("/token-abcdef123456"), format: "json" });
      await admin.json("POST", `${BASE}/${webhook.id}/test`);
      await eventually(() => outbox(hub, webhook.id)[0]?.status === "failed");
      await hub.ctx.alerts.worker.idle();
      const text = JSON.stringify(lines);
      expect(text).toContain("webhook");
      expect(text).not.toContain("token-abcdef123456");
      expect(text).not.toContain(secret.slice(6));
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });
});

describe("a receiver's answer is kept and logged redacted (SPEC §16.4)", () => {
  test("every URL and token-like run is replaced by …, and the words are at most 200 characters, in the log and the delivery log", async () => {
    const { log, lines } = memoryLog("debug");
    const token = "xoxb-1234567890-abcdefghijklmnop";
    const echoed = "https://hooks.example.org/services/T000/B000/secret-path";
    const receiver = new Receiver(() => new Response(`invalid_token ${token} for ${echoed}; ${"please check your settings ".repeat(20)}`, { status: 400 }));
    const { hub, admin } = await alertHub({ log, alerts: { policy: { backoffMs: [60_000] } } });
    hub.start();
    try {
      const { webhook } = await create(admin, { url: receiver.url("/hook"), format: "json" });
      await admin.json("POST", `${BASE}/${webhook.id}/test`);
      await eventually(() => receiver.received.length > 0);
      await hub.ctx.alerts.worker.idle();
      const { body } = await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhook.id}/deliveries`);
      const stored = body.deliveries[0]?.lastError ?? "";
      expect(stored).toStartWith("HTTP 400: invalid_token … for … please check your settings");
      expect(stored.length).toBeLessThanOrEqual(200);
      const logged = lines.filter((line) => (line as { error?: unknown }).error === stored);
      expect(logged.length).toBeGreaterThan(0);
      const text = JSON.stringify(lines) + JSON.stringify(body);
      for (const secret of [token, echoed, "hooks.example.org", "abcdefghijklmnop"]) expect(text).not.toContain(secret);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });
});

describe("webhook-id (SPEC §16.1)", () => {
  const messageIdOf = async (admin: Browser, webhookId: number, deliveryId: number): Promise<string> => {
    const { body } = await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${webhookId}/deliveries?limit=200`);
    return body.deliveries.find((d) => d.id === deliveryId)?.messageId ?? "";
  };

  test("a database restored from a backup never sends a webhook-id again, though its delivery row ids repeat", async () => {
    const dir = scratch();
    const db = join(dir, "hub.db");
    const backup = join(dir, "backup.db");
    const first = await alertHub({ db });
    const { webhook } = await create(first.admin, { url: "https://hooks.example.org/x", format: "json" });
    first.hub.ctx.db.sqlite.exec(`VACUUM INTO '${backup}'`);
    const before = (await first.admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body.deliveryId;
    const sent = await messageIdOf(first.admin, webhook.id, before);
    first.hub.ctx.db.sqlite.close();

    for (const suffix of ["", "-wal", "-shm"]) await Bun.file(`${db}${suffix}`).delete().catch(() => undefined);
    await Bun.write(db, Bun.file(backup));
    const restored = await alertHub({ db });
    const after = (await restored.admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body.deliveryId;
    expect(after).toBe(before);
    const again = await messageIdOf(restored.admin, webhook.id, after);
    expect(again).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(again).not.toBe(sent);
    restored.hub.ctx.db.sqlite.close();
  });

  test("ids are unique and time-ordered, and deliveries written before the migration get one each", async () => {
    const { hub, admin } = await alertHub();
    const { webhook } = await create(admin, { url: "https://hooks.example.org/x", format: "json" });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const deliveryId = (await admin.json<{ deliveryId: number }>("POST", `${BASE}/${webhook.id}/test`)).body.deliveryId;
      ids.push(await messageIdOf(admin, webhook.id, deliveryId));
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);

    const old = openDatabase(":memory:");
    migrate(old, MIGRATIONS.filter((m) => m.version <= 4));
    old.sqlite.exec("INSERT INTO webhooks (url, format, roles, secret, created_at, updated_at) VALUES ('https://hooks.example.org/x', 'json', '[]', '', 0, 0)");
    for (let i = 0; i < 3; i++) old.sqlite.exec("INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at) VALUES (1, 'test', '{}', 0)");
    migrate(old);
    const backfilled = old.sqlite.query<{ message_id: string }, []>("SELECT message_id FROM webhook_deliveries").all().map((r) => r.message_id);
    expect(backfilled).toHaveLength(3);
    for (const id of backfilled) expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(new Set(backfilled).size).toBe(3);
    hub.ctx.db.sqlite.close();
  });
});

describe("target URLs sealed at rest and masked in replies (SPEC §16.1)", () => {
  const TOKEN = "T0k3n-s3cr3t-abcdefghij";

  test("the stored URL is sealed, every reply shows only scheme, host and the last 4 characters, and a PATCH without url keeps it", async () => {
    const receiver = new Receiver();
    const { hub, admin } = await alertHub();
    hub.start();
    try {
      const url = receiver.url(`/api/webhooks/1/${TOKEN}`);
      const made = await admin.request("POST", BASE, { body: { url, format: "discord", onStatus: true } });
      const madeText = await made.text();
      expect(made.status).toBe(201);
      const { webhook } = JSON.parse(madeText) as { webhook: WebhookBody };
      expect(webhook.url).toBe(`http://${new URL(url).host}/…ghij`);
      const patched = await admin.request("PATCH", `${BASE}/${webhook.id}`, { body: { minBonus: 50, format: "slack" } });
      const listed = await admin.request("GET", BASE);
      for (const text of [madeText, await patched.text(), await listed.text()]) expect(text).not.toContain(TOKEN.slice(0, -4));

      const stored = hub.ctx.db.sqlite.query<{ url: string }, []>("SELECT url FROM webhooks").get()?.url ?? "";
      expect(stored).toStartWith("v1:");
      expect(stored).not.toContain(TOKEN);
      const dump = hub.ctx.db.sqlite.serialize().toString("latin1");
      expect(dump).not.toContain(TOKEN);

      await admin.json("POST", `${BASE}/${webhook.id}/test`);
      const [received] = await receiver.waitFor(1);
      expect(received?.path).toBe(`/api/webhooks/1/${TOKEN}`);
      expect(JSON.parse(received?.body ?? "{}")).toHaveProperty("blocks");
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("a sealed URL copied onto another webhook does not open there: shown as unreadable, not sent", async () => {
    const receiver = new Receiver();
    const { hub, admin } = await alertHub();
    hub.start();
    try {
      const first = await create(admin, { url: receiver.url(`/first/${TOKEN}`), format: "ntfy" });
      const second = await create(admin, { url: receiver.url("/second"), format: "ntfy" });
      hub.ctx.db.sqlite.query("UPDATE webhooks SET url = (SELECT url FROM webhooks WHERE id = ?) WHERE id = ?").run(first.webhook.id, second.webhook.id);
      const listed = (await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks;
      expect(listed.find((w) => w.id === second.webhook.id)?.url).toMatch(/sealed under another key/);
      await admin.json("POST", `${BASE}/${second.webhook.id}/test`);
      await eventually(() => (outbox(hub, second.webhook.id)[0]?.status ?? "") !== "pending" || hub.ctx.db.sqlite.query("SELECT 1 FROM webhook_deliveries WHERE last_error IS NOT NULL").get() !== null);
      const log = (await admin.json<{ deliveries: DeliveryBody[] }>("GET", `${BASE}/${second.webhook.id}/deliveries`)).body.deliveries;
      expect(log[0]?.lastError).toMatch(/target URL cannot be read/);
      expect(receiver.received).toEqual([]);
      // Setting the URL again repairs it.
      expect((await admin.json("PATCH", `${BASE}/${second.webhook.id}`, { url: receiver.url("/second") })).status).toBe(200);
      expect((await admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks.find((w) => w.id === second.webhook.id)?.url).toMatch(/cond$/);
    } finally {
      await hub.stop();
      await receiver.stop();
    }
  });

  test("URLs stored in plain text by an older hub are sealed at start-up, and still delivered to", async () => {
    const receiver = new Receiver();
    const db = join(scratch(), "hub.db");
    const first = await alertHub({ db });
    const { webhook } = await create(first.admin, { url: "https://hooks.example.org/x", format: "json" });
    first.hub.ctx.db.sqlite.close();
    // What a hub from before sealing left behind.
    const old = openDatabase(db);
    const plain = receiver.url(`/json/${TOKEN}`);
    old.sqlite.query("UPDATE webhooks SET url = ? WHERE id = ?").run(plain, webhook.id);
    old.sqlite.close();

    const { log, lines } = memoryLog("info");
    const second = await alertHub({ db, log });
    try {
      const stored = second.hub.ctx.db.sqlite.query<{ url: string }, []>("SELECT url FROM webhooks").get()?.url ?? "";
      expect(stored).toStartWith("v1:");
      expect(stored).not.toContain(TOKEN);
      expect(lines.filter((l) => l.msg === "encrypted stored webhook URLs under the hub's key")).toEqual([expect.objectContaining({ webhooks: 1 })]);
      expect((await second.admin.json<{ webhooks: WebhookBody[] }>("GET", BASE)).body.webhooks[0]?.url).toBe(`http://${new URL(plain).host}/…ghij`);
      second.hub.start();
      await second.admin.json("POST", `${BASE}/${webhook.id}/test`);
      expect((await receiver.waitFor(1))[0]?.path).toBe(`/json/${TOKEN}`);
    } finally {
      await second.hub.stop();
      second.hub.ctx.db.sqlite.close();
      await receiver.stop();
    }
    // Sealed once: a third start finds nothing to seal.
    const { log: quiet, lines: none } = memoryLog("info");
    const third = await alertHub({ db, log: quiet });
    expect(none.filter((l) => l.msg === "encrypted stored webhook URLs under the hub's key")).toEqual([]);
    third.hub.ctx.db.sqlite.close();
  });
});

describe("webhooks: status alerts when storage refuses a write", () => {
  test("a status change judged while another connection holds the write lock (another process's short write) is sent once the lock is free, not lost", async () => {
    let now = Date.now();
    const path = join(scratch(), "hub.db");
    const { hub, admin } = await alertHub({ db: path, now: () => now });
    const all = await create(admin, { url: "https://hooks.example.org/all", format: "json", onStatus: true });
    const agent = addAgent(hub, "eu-west-1");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", now - 1000, { survivor: 0, killer: 0 }))).status).toBe(201);
    await settle();
    const before = outbox(hub, all.webhook.id).map((d) => d.data.status);
    expect(before.at(-1)).toBe("ok");

    const other = openDatabase(path);
    other.sqlite.exec("BEGIN IMMEDIATE");
    try {
      // The reading goes stale: the next read republishes the platform, and judging it must write the new status.
      now += (hub.ctx.config.staleAfter + 60) * 1000;
      expect((await call(hub, "GET", "/api/v1/platforms/Windows/incentives")).status).toBe(200);
      await settle();
      expect(outbox(hub, all.webhook.id).map((d) => d.data.status)).toEqual(before);
    } finally {
      other.sqlite.exec("ROLLBACK");
      other.sqlite.close();
    }
    await eventually(() => outbox(hub, all.webhook.id).length > before.length, 2000);
    await Bun.sleep(300);
    const after = outbox(hub, all.webhook.id).map((d) => d.data.status);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)).not.toBe("ok");
  });
});
