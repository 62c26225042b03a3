/**
 * Issue 27: no SQL CHECK repeats a vocabulary the application validates, so a
 * new webhook format, role, audit `via` or event source never needs a table
 * rebuild. Migration 9 removes the ones there were, keeping every row, id
 * counter, default, index and foreign key; the API still refuses what it
 * does not know.
 */
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { DatabaseError, migrate, openDatabase, type HubDb } from "../../src/db/open.ts";
import { adminHub } from "../admin-helpers.ts";
import { expectProblem, scratchDirs } from "../helpers.ts";

const scratch = scratchDirs();

const UP_TO_8 = MIGRATIONS.filter((m) => m.version <= 8);
/** Migration 9 and none after it, so later migrations' own changes do not count as its changes. */
const UP_TO_9 = MIGRATIONS.filter((m) => m.version <= 9);
const REBUILT = ["agents", "users", "sessions", "audit_log", "webhooks", "webhook_deliveries", "webhook_conditions"];
const AUTOINCREMENT = ["agents", "users", "webhooks", "webhook_deliveries"];

/** The CHECKs that stay: the stored form of booleans and SHA-256 hashes, what an event is, and the one row of a singleton table. */
const KEPT = [
  "agents: enabled IN (0, 1)",
  "agents: length(token_hash) = 64",
  "api_keys: enabled IN (0, 1)",
  "api_keys: length(key_hash) = 64",
  "events: ends_at > starts_at",
  "events: multiplier > 0",
  "events: seen IN (0, 1)",
  "push_keys: id = 1",
  "readings: probe IN (0, 1)",
  "sessions: from_setup IN (0, 1)",
  "trusted_devices: length(token_hash) = 64",
  "users: enabled IN (0, 1)",
  "users: totp_enabled IN (0, 1)",
  "webhooks: enabled IN (0, 1)",
  "webhooks: on_events IN (0, 1)",
  "webhooks: on_status IN (0, 1)",
];

/** Every CHECK of every table as "table: expression", read from sqlite_schema with balanced parentheses and quotes. */
function checks(sqlite: Database): string[] {
  const found: string[] = [];
  for (const { name, sql } of sqlite.query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql IS NOT NULL").all()) {
    for (const match of sql.matchAll(/\bCHECK\s*\(/gi)) {
      const start = match.index + match[0].length;
      let depth = 1;
      let quoted = false;
      let end = start;
      for (; end < sql.length && depth > 0; end++) {
        const c = sql[end];
        if (c === "'") quoted = !quoted;
        else if (!quoted && c === "(") depth++;
        else if (!quoted && c === ")") depth--;
      }
      found.push(`${name}: ${sql.slice(start, end - 1).replace(/\s+/g, " ").trim()}`);
    }
  }
  return found.sort();
}

function tables(sqlite: Database): string[] {
  return sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('sqlite_sequence', 'schema_migrations') ORDER BY name")
    .all()
    .map((r) => r.name);
}

/** Every row of a table, each value quoted as SQL writes it (so its storage class counts too), in a stable order. */
function rows(sqlite: Database, table: string): string[] {
  const columns = sqlite.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => `quote(${c.name})`);
  return sqlite
    .query<{ row: string }, []>(`SELECT ${columns.join(" || ',' || ")} AS row FROM ${table}`)
    .all()
    .map((r) => r.row)
    .sort();
}

function everyRow(sqlite: Database): Record<string, string[]> {
  return Object.fromEntries(tables(sqlite).map((t) => [t, rows(sqlite, t)]));
}

function sequence(sqlite: Database): Record<string, number> {
  return Object.fromEntries(sqlite.query<{ name: string; seq: number }, []>("SELECT name, seq FROM sqlite_sequence ORDER BY name").all().map((r) => [r.name, r.seq]));
}

/** A table as SQLite describes it, CHECKs aside: columns with types, NOT NULL, defaults and keys; foreign keys; indexes; rowid and AUTOINCREMENT. */
function structure(sqlite: Database, table: string) {
  const sql = sqlite.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table)?.sql ?? "";
  const indexes = sqlite
    .query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list(${table})`)
    .all()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((index) => ({
      ...index,
      columns: sqlite.query(`PRAGMA index_xinfo(${index.name})`).all(),
      sql: sqlite.query<{ sql: string | null }, [string]>("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").get(index.name)?.sql ?? null,
    }));
  return {
    table,
    columns: sqlite.query(`PRAGMA table_xinfo(${table})`).all(),
    foreignKeys: sqlite.query(`PRAGMA foreign_key_list(${table})`).all(),
    indexes,
    withoutRowid: /WITHOUT ROWID\s*$/i.test(sql),
    autoincrement: /AUTOINCREMENT/i.test(sql),
  };
}

function consistent(db: HubDb): void {
  expect(db.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  expect(db.sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
  expect(db.sqlite.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
}

const hash = (n: number) => n.toString(16).padStart(64, "0");

/**
 * A database at migration 8 with rows in every table, the rebuilt ones and
 * their children, and with the newest agent, user, webhook and delivery
 * deleted, so each of those counters is ahead of the largest id left.
 */
function populatedAt8(): HubDb {
  const db = openDatabase(join(scratch(), "hub.db"));
  expect(migrate(db, UP_TO_8)).toEqual(UP_TO_8.map((m) => m.name));
  db.sqlite.exec(`
    INSERT INTO users (id, username, username_key, name, email, role, enabled, password_hash, totp_secret, totp_enabled, totp_last_step, created_at, updated_at, last_login_at) VALUES
      (1, 'Root', 'root', 'Ro Ot', 'root@example.org', 'admin', 1, 'argon', 'sealed', 1, 58000000, 10, 11, 12),
      (2, 'bob', 'bob', NULL, NULL, 'user', 0, NULL, NULL, 0, NULL, 20, 21, NULL),
      (3, 'gone', 'gone', NULL, NULL, 'user', 1, NULL, NULL, 0, NULL, 30, 31, NULL);
    INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at, authenticated_at, from_setup) VALUES
      ('${hash(1)}', 1, 'mfa', 'csrf1', 'ch', 'webauthn', 99, 1, 2, 3, 2, 1),
      ('${hash(2)}', 2, 'password', 'csrf2', NULL, NULL, NULL, 4, 5, 6, 0, 0);
    INSERT INTO api_keys (id, user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at) VALUES
      (1, 1, '${hash(3)}', 'hub_aaaaaaaa', 'ci', 1, 1, 2, 3), (2, 2, '${hash(4)}', 'hub_bbbbbbbb', NULL, 0, 4, NULL, NULL);
    INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at) VALUES (1, 1, 'cred-1', x'0102ff', 7, '["usb"]', 'key', 1, 2);
    INSERT INTO trusted_devices (id, user_id, token_hash, created_at, expires_at, last_used_at) VALUES (1, 2, '${hash(5)}', 1, 2, 3);
    INSERT INTO agents (id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at) VALUES
      (1, '${hash(6)}', 'steam', 'Windows', 'eu-west-1', 'attic', 1, 'provisioned', 'p1', '%refreshTime%', '400', 1, 2),
      (2, '${hash(7)}', 'epic', 'EGS', 'us-east-1', NULL, 0, 'imported', NULL, NULL, NULL, 3, 4),
      (3, '${hash(8)}', 'grdk', 'GRDK', 'ap-south-1', NULL, 1, 'manual', NULL, NULL, NULL, 5, 6),
      (4, '${hash(9)}', 'steam', 'Windows', 'eu-west-2', NULL, 1, 'manual', NULL, NULL, NULL, 7, 8);
    INSERT INTO readings (id, platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event, probe) VALUES
      (1, 'Windows', 'eu-west-1', 0, 75, 2.5, '9.3.0', 'default', 240, 1000, 1001, 1, '{"key":"bp"}', 1),
      (2, 'EGS', 'us-east-1', 25, 0, 0.5, NULL, NULL, NULL, 2000, 2001, 2, NULL, 0),
      (3, 'Windows', 'eu-west-1', 50, 0, 0.8, NULL, NULL, NULL, 3000, 3001, NULL, NULL, 0);
    INSERT INTO slot_state (platform, region, refresh_time_seconds, updated_at) VALUES ('Windows', 'eu-west-1', 240, 5);
    INSERT INTO settings (key, value, updated_at) VALUES ('requireAuth', 'true', 6);
    INSERT INTO events (id, key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at, source, agent_id, seen) VALUES
      (1, 'bp-2x', 'Double', 2, 10, 20, '["EGS"]', 1, 2, 'admin', NULL, 0),
      (2, 'BPEVENT_Bloodhunt_NAME', 'Bloodhunt', 2.5, 30, 40, NULL, 3, 4, 'agent', 1, 1);
    INSERT INTO hidden_events (key, starts_at, hidden_at) VALUES ('BPEVENT_Old_NAME', 5, 6);
    INSERT INTO audit_log (id, at, actor_user_id, actor, action, target, detail, via) VALUES
      (1, 1, NULL, 'cli', 'user.create', 'user:1', NULL, 'cli'),
      (2, 2, 1, 'Root', 'agent.delete', 'agent:4', '{"dataMode":"orphan"}', 'session'),
      (3, 3, 1, 'Root', 'webhook.delete', 'webhook:3', NULL, 'api-key'),
      (4, 4, NULL, 'agent:1', 'events.reported', 'agent:1', '{"events":1}', 'config'),
      (5, 5, 1, 'Root', 'setup', 'user:1', NULL, NULL);
    INSERT INTO webhooks (id, url, format, enabled, platforms, regions, roles, min_bonus, on_status, on_events, secret, created_at, updated_at, last_delivery_at, failing_since, disabled_reason) VALUES
      (1, 'https://hooks.example.org/a', 'json', 1, '["Windows"]', '["eu-west-1"]', '["killer"]', 50, 1, 0, 'sealed-a', 1, 2, 3, NULL, NULL),
      (2, 'https://ntfy.sh/topic', 'ntfy', 0, NULL, NULL, '["survivor","killer"]', NULL, 0, 1, 'sealed-b', 4, 5, NULL, 6, 'failing for a day'),
      (3, 'https://discord.com/api/webhooks/1/x', 'discord', 1, NULL, NULL, '[]', 1000, 0, 0, 'sealed-c', 7, 8, NULL, NULL, NULL);
    INSERT INTO webhook_deliveries (id, webhook_id, type, payload, status, attempts, last_status_code, last_error, created_at, delivered_at, next_attempt_at, message_id) VALUES
      (1, 1, 'bonus.reached', '{"type":"bonus.reached"}', 'delivered', 1, 204, NULL, 10, 11, NULL, 'msg_1'),
      (2, 1, 'status.changed', '{"type":"status.changed"}', 'pending', 2, 503, 'busy', 12, NULL, 13, 'msg_2'),
      (3, 2, 'event.started', '{"type":"event.started"}', 'failed', 9, NULL, 'timeout', 14, NULL, NULL, 'msg_3'),
      (4, 2, 'test', '{"type":"test"}', 'pending', 0, NULL, NULL, 15, NULL, 15, 'msg_4'),
      (5, 3, 'event.ended', '{"type":"event.ended"}', 'pending', 0, NULL, NULL, 16, NULL, 16, 'msg_5'),
      (6, 1, 'test', '{"type":"test"}', 'delivered', 1, 200, NULL, 17, 18, NULL, 'msg_6');
    INSERT INTO webhook_conditions (webhook_id, platform, region, role) VALUES (1, 'Windows', 'eu-west-1', 'killer'), (2, 'EGS', 'us-east-1', 'survivor'), (3, 'GRDK', 'ap-south-1', 'killer');
    INSERT INTO alert_platform_state (platform, status, active_event, updated_at) VALUES ('Windows', 'live', NULL, 9);
    INSERT INTO field_import (kind, field_id, hub_id, imported_at) VALUES ('agent', 17, 2, 100), ('user', 3, 2, 100);
    DELETE FROM users WHERE id = 3;
    DELETE FROM agents WHERE id = 4;
    DELETE FROM webhooks WHERE id = 3;
    DELETE FROM webhook_deliveries WHERE id = 6;
  `);
  expect(sequence(db.sqlite)).toMatchObject({ users: 3, agents: 4, webhooks: 3, webhook_deliveries: 6 });
  // Not PRAGMA integrity_check here: it opens the connection's temp database, after which a journal mode switch leaves the next checkpoint locked (see 0002).
  expect(db.sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
  return db;
}

describe("no CHECK on a vocabulary", () => {
  test("after migrating, only the CHECKs on the stored form of booleans, hashes, events and singleton rows remain: no value list, no range", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    const left = checks(db.sqlite);
    expect(left.filter((check) => check.includes("'") || / BETWEEN /i.test(check) || (/ IN \(/i.test(check) && !check.endsWith(" IN (0, 1)")))).toEqual([]);
    expect(left).toEqual(KEPT);
  });

  test("up to migration 8 the same reading finds the vocabularies migration 9 removes", () => {
    const db = openDatabase(":memory:");
    migrate(db, UP_TO_8);
    const removed = checks(db.sqlite).filter((check) => !KEPT.includes(check));
    expect(removed).toEqual([
      "agents: platform IN ('Windows', 'EGS', 'GRDK')",
      "agents: provider IN ('steam', 'epic', 'grdk')",
      "agents: source IN ('manual', 'provisioned', 'imported')",
      "audit_log: via IN ('session', 'api-key', 'cli', 'config')",
      "sessions: auth_level IN ('password', 'mfa')",
      "users: role IN ('admin', 'user')",
      "webhook_conditions: role IN ('survivor', 'killer')",
      "webhook_deliveries: status IN ('pending', 'delivered', 'failed')",
      "webhook_deliveries: type IN ('bonus.reached', 'status.changed', 'event.started', 'event.ended', 'test')",
      "webhooks: format IN ('json', 'discord', 'slack', 'ntfy')",
      "webhooks: min_bonus BETWEEN 0 AND 1000",
    ]);
    expect(new Set(removed.map((check) => check.split(":")[0]))).toEqual(new Set(REBUILT));
  });
});

describe("migration 9 on a filled database at migration 8", () => {
  test("every row of every table stays as it was, value and type, and the database is consistent", () => {
    const db = populatedAt8();
    const before = everyRow(db.sqlite);
    expect(Object.values(before).every((table) => table.length > 0)).toBe(true);
    expect(migrate(db, UP_TO_9)).toEqual(["0009_no_value_checks"]);
    expect(everyRow(db.sqlite)).toEqual(before);
    consistent(db);
    expect(db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE name LIKE '%_0009'").all()).toEqual([]);
  });

  test("columns, defaults, keys, foreign keys and indexes are unchanged; only the CHECKs went", () => {
    const old = openDatabase(":memory:");
    migrate(old, UP_TO_8);
    const db = openDatabase(":memory:");
    migrate(db, UP_TO_9);
    expect(tables(db.sqlite)).toEqual(tables(old.sqlite));
    for (const table of tables(db.sqlite)) expect(structure(db.sqlite, table)).toEqual(structure(old.sqlite, table));
  });

  test("the id counters stay ahead of the deleted rows: the next id continues each counter", () => {
    const db = populatedAt8();
    const before = sequence(db.sqlite);
    migrate(db, UP_TO_9);
    expect(sequence(db.sqlite)).toEqual(before);
    db.sqlite.exec(`
      INSERT INTO users (username, username_key, role, created_at, updated_at) VALUES ('new', 'new', 'user', 0, 0);
      INSERT INTO agents (token_hash, provider, platform, region, created_at, updated_at) VALUES ('${hash(10)}', 'steam', 'Windows', 'eu-west-1', 0, 0);
      INSERT INTO webhooks (url, format, roles, secret, created_at, updated_at) VALUES ('https://hooks.example.org/new', 'slack', '[]', '', 0, 0);
      INSERT INTO webhook_deliveries (webhook_id, type, payload, created_at, message_id) VALUES (1, 'test', '{}', 0, 'msg_new');
    `);
    const newest = Object.fromEntries(AUTOINCREMENT.map((t) => [t, db.sqlite.query<{ id: number }, []>(`SELECT MAX(id) AS id FROM ${t}`).get()?.id]));
    expect(newest).toEqual({ users: 4, agents: 5, webhooks: 4, webhook_deliveries: 7 });
    expect(newest).toEqual(Object.fromEntries(AUTOINCREMENT.map((t) => [t, (before[t] ?? 0) + 1])));
    // The defaults still apply to the rebuilt tables.
    expect(db.sqlite.query("SELECT enabled, source FROM agents WHERE id = 5").get()).toEqual({ enabled: 1, source: "manual" });
    expect(db.sqlite.query("SELECT status, attempts FROM webhook_deliveries WHERE id = 7").get()).toEqual({ status: "pending", attempts: 0 });
    consistent(db);
  });

  test("the foreign keys still act, from the rebuilt parents into children that were not rebuilt", () => {
    const db = populatedAt8();
    migrate(db, UP_TO_9);
    db.sqlite.exec("DELETE FROM webhooks WHERE id = 1");
    expect(db.sqlite.query("SELECT webhook_id FROM webhook_deliveries ORDER BY id").all()).toEqual([{ webhook_id: 2 }, { webhook_id: 2 }]);
    expect(db.sqlite.query("SELECT webhook_id FROM webhook_conditions").all()).toEqual([{ webhook_id: 2 }]);
    db.sqlite.exec("DELETE FROM agents WHERE id = 1");
    expect(db.sqlite.query("SELECT id, agent_id FROM readings ORDER BY id").all()).toEqual([
      { id: 1, agent_id: null },
      { id: 2, agent_id: 2 },
      { id: 3, agent_id: null },
    ]);
    expect(db.sqlite.query("SELECT id, agent_id FROM events ORDER BY id").all()).toEqual([
      { id: 1, agent_id: null },
      { id: 2, agent_id: null },
    ]);
    db.sqlite.exec("DELETE FROM users WHERE id = 1");
    const left = db.sqlite.query<{ n: number }, []>("SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM api_keys) + (SELECT COUNT(*) FROM passkeys) AS n").get()?.n;
    expect(left).toBe(2);
    expect(() => db.sqlite.exec(`INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, created_at, last_seen_at, expires_at) VALUES ('${hash(11)}', 42, 'mfa', 'c', 0, 0, 0)`)).toThrow();
    expect(() => db.sqlite.exec("INSERT INTO webhook_conditions (webhook_id, platform, region, role) VALUES (42, 'Windows', 'eu-west-1', 'killer')")).toThrow();
    consistent(db);
  });

  test("the migrated file reopens as it was, and its connection can still switch journal modes and checkpoint", () => {
    const db = populatedAt8();
    migrate(db, UP_TO_9);
    db.sqlite.exec("PRAGMA journal_mode = DELETE");
    db.sqlite.exec("PRAGMA journal_mode = WAL");
    expect(() => db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)")).not.toThrow();
    const after = everyRow(db.sqlite);
    db.sqlite.close();
    const again = openDatabase(db.path);
    expect(migrate(again, UP_TO_9)).toEqual([]);
    expect(everyRow(again.sqlite)).toEqual(after);
    consistent(again);
    again.sqlite.close();
  });
});

describe("migrations run with foreign keys off and are checked before they commit", () => {
  test("a migration that leaves a reference pointing at nothing is rolled back, and foreign keys are on again", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    const dangling = { version: 9999, name: "9999_dangling", sql: "INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, created_at, last_seen_at, expires_at) VALUES ('x', 42, 'mfa', 'c', 0, 0, 0);" };
    expect(() => migrate(db, [...MIGRATIONS, dangling])).toThrow(DatabaseError);
    expect(() => migrate(db, [...MIGRATIONS, dangling])).toThrow(/9999_dangling failed and was rolled back: 1 reference\(s\) point at nothing \(sessions row \? → users\)/);
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions").get()?.n).toBe(0);
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM schema_migrations").get()?.n).toBe(MIGRATIONS.length);
    consistent(db);
  });
});

describe("a value outside today's vocabularies", () => {
  test("is refused at migration 8 and stored since migration 9, at the SQL level", () => {
    const inserts = [
      "INSERT INTO users (id, username, username_key, role, created_at, updated_at) VALUES (1, 'v', 'v', 'viewer', 0, 0)",
      `INSERT INTO agents (id, token_hash, provider, platform, region, source, created_at, updated_at) VALUES (1, '${hash(1)}', 'xbox', 'PS5', 'eu-west-1', 'federated', 0, 0)`,
      `INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, created_at, last_seen_at, expires_at) VALUES ('${hash(2)}', 1, 'passkey', 'c', 0, 0, 0)`,
      "INSERT INTO audit_log (at, actor, action, via) VALUES (0, 'peer', 'events.reported', 'federation')",
      "INSERT INTO webhooks (id, url, format, roles, min_bonus, secret, created_at, updated_at) VALUES (1, 'https://matrix.example.org/x', 'matrix', '[]', 5000, '', 0, 0)",
      "INSERT INTO webhook_deliveries (webhook_id, type, payload, status, created_at, message_id) VALUES (1, 'bonus.dropped', '{}', 'paused', 0, 'msg_x')",
      "INSERT INTO webhook_conditions (webhook_id, platform, region, role) VALUES (1, 'PS5', 'eu-west-1', 'healer')",
    ];
    const old = openDatabase(":memory:");
    migrate(old, UP_TO_8);
    old.sqlite.exec("PRAGMA foreign_keys = OFF");
    for (const insert of inserts) expect(() => old.sqlite.exec(insert)).toThrow(/CHECK constraint failed/);
    const db = openDatabase(":memory:");
    migrate(db);
    for (const insert of inserts) db.sqlite.exec(insert);
    expect(db.sqlite.query("SELECT format, min_bonus FROM webhooks").get()).toEqual({ format: "matrix", min_bonus: 5000 });
    consistent(db);
  });

  test("is still refused through the API with a 400 problem naming the field, and nothing is stored", async () => {
    const { hub, admin } = await adminHub();
    const response = await admin.json<{ detail: string; errors?: { location: string }[] }>("POST", "/api/v1/admin/webhooks", { url: "https://pigeons.example.org/x", format: "carrier-pigeon" });
    expect(response.status).toBe(400);
    expectProblem(response.response);
    expect(response.body.errors?.[0]?.location).toStartWith("body.format");
    const role = await admin.json<{ errors?: { location: string }[] }>("POST", "/api/v1/admin/users", { username: "vera", role: "viewer" });
    expect(role.status).toBe(400);
    expectProblem(role.response);
    expect(role.body.errors?.[0]?.location).toStartWith("body.role");
    const stored = hub.ctx.db.sqlite.query<{ n: number }, []>("SELECT (SELECT COUNT(*) FROM webhooks) + (SELECT COUNT(*) FROM users WHERE username_key = 'vera') AS n").get()?.n;
    expect(stored).toBe(0);
  });
});
