/** SPEC §16.1: what the audit log records, how much of it a plain user can cause, and how long it is kept. */
import { describe, expect, test } from "bun:test";
import * as OTPAuth from "otpauth";
import { audit, AUDIT_RATE_LIMIT, AUDIT_RATE_WINDOW_MS, AUDIT_SUPPRESSED, CLI_ACTOR } from "../../src/db/audit.ts";
import { DAY_MS } from "../../src/domain/timezone.ts";
import { PASSWORD } from "../admin-helpers.ts";
import { Browser } from "../browser.ts";
import { testConfig, testHub } from "../helpers.ts";

const START = Date.parse("2026-11-21T18:00:00Z");

interface Entry {
  id: number;
  at: number;
  actorId: number | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
}

async function setup(env: Record<string, string> = {}) {
  let now = START;
  const hub = testHub({ env: { MFA_ENFORCED_ROLES: "", ENABLE_API_KEYS: "true", ...env }, now: () => now });
  const admin = new Browser(hub);
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  const adminId = (await admin.session()).user?.id ?? 0;
  const bobId = (await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "bob", role: "user", password: PASSWORD })).body.user.id;
  const bob = new Browser(hub, "203.0.113.30");
  expect((await bob.login("bob", PASSWORD)).status).toBe(200);
  /** Every entry the actor caused, newest first. */
  const entriesOf = async (actorId: number): Promise<Entry[]> => {
    const entries: Entry[] = [];
    let before: number | null = null;
    do {
      const { status, body }: { status: number; body: { entries: Entry[]; next: number | null } } = await admin.json<{ entries: Entry[]; next: number | null }>(
        "GET",
        `/api/v1/admin/audit?limit=200&actor=${actorId}${before === null ? "" : `&before=${before}`}`,
      );
      expect(status).toBe(200);
      entries.push(...body.entries);
      before = body.next;
    } while (before !== null);
    return entries;
  };
  return { hub, admin, adminId, bob, bobId, entriesOf, advance: (ms: number) => (now += ms) };
}

async function newKey(browser: Browser): Promise<number> {
  const created = await browser.json<{ apiKey: { id: number } }>("POST", "/api/v1/auth/api-keys", { label: "script" });
  expect(created.status).toBe(201);
  return created.body.apiKey.id;
}

describe("what the audit log records", () => {
  test("relabelling a key over and over writes no rows: a label is cosmetic", async () => {
    const { bob, bobId, entriesOf } = await setup();
    const id = await newKey(bob);
    for (let i = 0; i < 100; i++) expect((await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { label: `label ${i}` })).status).toBe(200);
    expect((await entriesOf(bobId)).map((e) => e.action)).toEqual(["apikey.create"]);
  });

  test("switching a key off and on is recorded as such, a PATCH that changes nothing is not", async () => {
    const { bob, bobId, entriesOf } = await setup();
    const id = await newKey(bob);
    await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: false });
    await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: false, label: "still off" });
    await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: true });
    const entries = await entriesOf(bobId);
    expect(entries.map((e) => [e.action, e.target])).toEqual([
      ["apikey.enable", `apikey:${id}`],
      ["apikey.disable", `apikey:${id}`],
      ["apikey.create", `apikey:${id}`],
    ]);
  });
});

describe("sign-ins refused and second factors", () => {
  const auditOf = async (admin: Browser, prefix: string): Promise<Entry[]> =>
    (await admin.json<{ entries: Entry[] }>("GET", `/api/v1/admin/audit?limit=200&action=${prefix}`)).body.entries;

  test("a refused sign-in is a row with the username tried, the client and the reason, never the password", async () => {
    const { hub, admin } = await setup();
    const guesser = new Browser(hub, "198.51.100.7");
    expect((await guesser.login("bob", "not the password")).status).toBe(401);
    expect((await guesser.login("nobody", "hunter2-secret")).status).toBe(401);
    const entries = await auditOf(admin, "signin.");
    expect(entries.map((e) => [e.action, e.actorId, e.detail?.username, e.detail?.ip, e.detail?.step])).toEqual([
      ["signin.refused", null, "nobody", "198.51.100.7", "login"],
      ["signin.refused", null, "bob", "198.51.100.7", "login"],
    ]);
    for (const entry of entries) expect(entry.detail?.reason).toEqual(expect.any(String));
    expect(JSON.stringify(entries)).not.toContain("not the password");
    expect(JSON.stringify(entries)).not.toContain("hunter2-secret");
  });

  test(`guesses from many addresses share one allowance: at most ${AUDIT_RATE_LIMIT} rows a minute, the rest counted`, async () => {
    const { hub, admin, advance } = await setup();
    const guesses = 150;
    for (let i = 0; i < guesses; i++) {
      advance(100);
      // A new address and username each time, so no throttle steps in: only the audit log's own cap bounds this.
      expect((await new Browser(hub, `203.0.113.${(i % 250) + 1}`).login(`guess${i}`, "wrong password")).status).toBe(401);
    }
    const refused = await auditOf(admin, "signin.refused");
    const summaries = await auditOf(admin, AUDIT_SUPPRESSED);
    expect(refused.length + summaries.length).toBe(AUDIT_RATE_LIMIT);
    expect(summaries).toEqual([expect.objectContaining({ actorId: null, target: "anonymous", detail: expect.objectContaining({ suppressed: guesses - refused.length, actions: { "signin.refused": guesses - refused.length } }) })]);
  });

  test("a second factor added and removed is recorded against the user", async () => {
    const { bob, bobId, entriesOf } = await setup();
    const enrol = await bob.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    expect(enrol.status).toBe(200);
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(enrol.body.secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: START });
    expect((await bob.json("POST", "/api/v1/auth/mfa/totp/activation", { code })).status).toBe(204);
    expect((await bob.request("DELETE", "/api/v1/auth/mfa/totp")).status).toBe(204);
    expect((await entriesOf(bobId)).map((e) => [e.action, e.target])).toEqual([
      ["mfa.totp.remove", `user:${bobId}`],
      ["mfa.totp.add", `user:${bobId}`],
    ]);
  });
});

describe("a plain user's share of the audit log", () => {
  test(`a flood of switches leaves at most ${AUDIT_RATE_LIMIT} rows a minute, the rest counted in one summary row`, async () => {
    const { bob, bobId, entriesOf, advance } = await setup();
    const id = await newKey(bob);
    const toggles = 200;
    for (let i = 0; i < toggles; i++) {
      advance(100);
      expect((await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: i % 2 === 1 })).status).toBe(200);
    }
    // 20 s passed: one window.
    const entries = await entriesOf(bobId);
    expect(entries).toHaveLength(AUDIT_RATE_LIMIT);
    const summaries = entries.filter((e) => e.action === AUDIT_SUPPRESSED);
    expect(summaries).toHaveLength(1);
    const suppressed = toggles + 1 - (AUDIT_RATE_LIMIT - 1);
    expect(summaries[0]).toMatchObject({ actorId: bobId, target: `user:${bobId}`, detail: { suppressed, actions: { "apikey.disable": suppressed / 2, "apikey.enable": suppressed / 2 } } });
    expect(summaries[0]?.detail?.lastAt).toBe(START + toggles * 100);
  });

  test("no 60 s ever hold more rows than the limit, and rows are written again once the window has passed", async () => {
    const { bob, bobId, entriesOf, advance } = await setup();
    const id = await newKey(bob);
    for (let i = 0; i < 400; i++) {
      advance(450);
      await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: i % 2 === 1 });
    }
    const entries = await entriesOf(bobId);
    const times = entries.map((e) => e.at).sort((a, b) => a - b);
    for (const [i, at] of times.entries()) {
      const inWindow = times.slice(i).filter((t) => t < at + AUDIT_RATE_WINDOW_MS).length;
      expect(inWindow).toBeLessThanOrEqual(AUDIT_RATE_LIMIT);
    }
    // 180 s of switching: a summary for each of several windows, and plain rows between them.
    expect(entries.filter((e) => e.action === AUDIT_SUPPRESSED).length).toBeGreaterThanOrEqual(2);
    const counted = entries.reduce((sum, e) => sum + (e.action === AUDIT_SUPPRESSED ? Number(e.detail?.suppressed) : 1), 0);
    expect(counted).toBe(401);
    advance(AUDIT_RATE_WINDOW_MS);
    await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: false });
    await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: true });
    expect((await entriesOf(bobId)).slice(0, 2).map((e) => e.action)).toEqual(["apikey.enable", "apikey.disable"]);
  });

  test("one user's flood does not take another user's rows", async () => {
    const { hub, admin, bob, entriesOf } = await setup();
    const id = await newKey(bob);
    for (let i = 0; i < 100; i++) await bob.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: i % 2 === 1 });
    const carolId = (await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "carol", role: "user", password: PASSWORD })).body.user.id;
    const carol = new Browser(hub, "203.0.113.31");
    await carol.login("carol", PASSWORD);
    await newKey(carol);
    expect((await entriesOf(carolId)).map((e) => e.action)).toEqual(["apikey.create"]);
  });

  test("admins are not capped: every change of theirs is a row", async () => {
    const { admin, adminId, entriesOf } = await setup();
    const id = await newKey(admin);
    for (let i = 0; i < 100; i++) await admin.json("PATCH", `/api/v1/auth/api-keys/${id}`, { enabled: i % 2 === 1 });
    const entries = await entriesOf(adminId);
    expect(entries.filter((e) => e.action.startsWith("apikey."))).toHaveLength(101);
    expect(entries.some((e) => e.action === AUDIT_SUPPRESSED)).toBe(false);
  });
});

describe("AUDIT_RETENTION_DAYS", () => {
  test("defaults to 365 and is at least 1", () => {
    expect(testConfig().auditRetentionDays).toBe(365);
    expect(testConfig([], { AUDIT_RETENTION_DAYS: "7" }).auditRetentionDays).toBe(7);
    expect(() => testConfig([], { AUDIT_RETENTION_DAYS: "0" })).toThrow(/AUDIT_RETENTION_DAYS/);
  });

  test("rows older than the setting are pruned, in batches, the newer ones kept", async () => {
    const { hub, admin } = await setup({ AUDIT_RETENTION_DAYS: "30" });
    const orm = hub.ctx.db.orm;
    const old = 12_000;
    hub.ctx.db.sqlite.transaction(() => {
      for (let i = 0; i < old; i++) audit(orm, CLI_ACTOR, "agent.create", `agent:${i}`, null, START - 31 * DAY_MS - i);
    })();
    audit(orm, CLI_ACTOR, "agent.create", "agent:kept", null, START - 29 * DAY_MS);
    const count = () => hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM audit_log").get()?.n ?? 0;
    const before = count();
    expect(await hub.ctx.auditRetention.prune()).toBe(old);
    expect(count()).toBe(before - old);
    const { body } = await admin.json<{ entries: Entry[] }>("GET", "/api/v1/admin/audit?limit=200&action=agent.create");
    expect(body.entries.map((e) => e.target)).toEqual(["agent:kept"]);
  });

  test("a hub prunes at start", async () => {
    const { hub } = await setup({ AUDIT_RETENTION_DAYS: "1" });
    audit(hub.ctx.db.orm, CLI_ACTOR, "user.create", "user:99", null, START - 2 * DAY_MS);
    hub.start();
    try {
      for (let i = 0; i < 100 && hub.ctx.db.sqlite.query("SELECT 1 FROM audit_log WHERE target = 'user:99'").get() !== null; i++) await Bun.sleep(10);
      expect(hub.ctx.db.sqlite.query("SELECT 1 FROM audit_log WHERE target = 'user:99'").get()).toBeNull();
    } finally {
      await hub.stop();
    }
  });
});
