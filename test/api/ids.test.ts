/**
 * SPEC §11.5b: ids of agents, users, API keys, passkeys, events and webhooks are never
 * reused, and migration 2 brings a database made under migration 1 there
 * without losing a row.
 */
import { describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { migrate, openDatabase, type HubDb } from "../../src/db/open.ts";
import { adminHub } from "../admin-helpers.ts";
import { scratchDirs } from "../helpers.ts";

const scratch = scratchDirs();

const HASH = (c: string) => c.repeat(64);
const hashOf = (n: number) => n.toString(16).padStart(64, "0");

/** One insertable row per table whose ids must never come back; `n` keeps unique columns apart. */
const NEVER_REUSED: Record<string, (sqlite: Database, n: number) => void> = {
  users: (sqlite, n) => {
    sqlite.query("INSERT INTO users (username, username_key, role, created_at, updated_at) VALUES (?, ?, 'user', 0, 0)").run(`u${n}`, `u${n}`);
  },
  api_keys: (sqlite, n) => {
    sqlite.query("INSERT INTO api_keys (user_id, key_hash, prefix, created_at) VALUES (1, ?, 'hub_', 0)").run(hashOf(n));
  },
  passkeys: (sqlite, n) => {
    sqlite.query("INSERT INTO passkeys (user_id, credential_id, public_key, created_at) VALUES (1, ?, x'00', 0)").run(`cred${n}`);
  },
  agents: (sqlite, n) => {
    sqlite
      .query("INSERT INTO agents (token_hash, provider, platform, region, created_at, updated_at) VALUES (?, 'steam', 'Windows', 'eu-west-1', 0, 0)")
      .run(hashOf(n));
  },
  events: (sqlite, n) => {
    sqlite.query("INSERT INTO events (key, label, multiplier, starts_at, ends_at, created_at, updated_at) VALUES (?, 'x', 2, 0, 1, 0, 0)").run(`e${n}`);
  },
  webhooks: (sqlite, n) => {
    sqlite
      .query("INSERT INTO webhooks (url, format, enabled, roles, on_status, on_events, secret, created_at, updated_at) VALUES (?, 'slack', 1, '[]', 0, 0, '', 0, 0)")
      .run(`https://hooks.example.org/${n}`);
  },
};

function newestId(sqlite: Database, table: string): number {
  return sqlite.query<{ id: number }, []>(`SELECT MAX(id) AS id FROM ${table}`).get()?.id ?? 0;
}

/** Every row of a table as JSON lines, in a stable order; blobs as hex. */
function dump(sqlite: Database, table: string, columns: readonly string[]): string[] {
  const list = columns.map((c) => (c === "public_key" ? `hex(${c}) AS ${c}` : c)).join(", ");
  return sqlite
    .query<Record<string, unknown>, []>(`SELECT ${list} FROM ${table} ORDER BY 1`)
    .all()
    .map((row) => JSON.stringify(row));
}

function columnsOf(sqlite: Database, table: string): string[] {
  return sqlite.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => c.name);
}

/** A table's structure as SQLite reports it: columns with types, defaults and keys, foreign keys, indexes. */
function structure(sqlite: Database, table: string) {
  const normalise = (sql: string | null) =>
    (sql ?? "")
      .replace(/--[^\n]*/g, "")
      .replace(/\s+/g, " ")
      .replace(/ AUTOINCREMENT/g, "")
      .trim();
  const create = sqlite.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)?.sql ?? null;
  const indexes = sqlite
    .query<{ name: string; sql: string | null }, [string]>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name")
    .all(table)
    .map((i) => ({ name: i.name, sql: normalise(i.sql) }));
  return {
    create: normalise(create),
    columns: sqlite.query(`PRAGMA table_xinfo(${table})`).all(),
    foreignKeys: sqlite.query(`PRAGMA foreign_key_list(${table})`).all(),
    indexes,
  };
}

function clean(db: HubDb): void {
  expect(db.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  expect(db.sqlite.query("PRAGMA foreign_key_check").all()).toEqual([]);
}

describe("ids are never reused", () => {
  for (const [table, insert] of Object.entries(NEVER_REUSED)) {
    test(`${table}: deleting the newest and creating another gives a new id`, () => {
      const db = openDatabase(":memory:");
      migrate(db);
      NEVER_REUSED.users?.(db.sqlite, 0);
      insert(db.sqlite, 1);
      insert(db.sqlite, 2);
      const newest = newestId(db.sqlite, table);
      db.sqlite.query(`DELETE FROM ${table} WHERE id = ?`).run(newest);
      insert(db.sqlite, 3);
      expect(newestId(db.sqlite, table)).toBe(newest + 1);
      clean(db);
    });
  }

  test("through the admin API: a deleted agent's id is not given to the next one", async () => {
    const { admin } = await adminHub();
    const create = async () => (await admin.json<{ agent: { id: number } }>("POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "steam" })).body.agent.id;
    const first = await create();
    const second = await create();
    expect((await admin.request("DELETE", `/api/v1/admin/agents/${second}`)).status).toBe(204);
    const third = await create();
    expect(third).toBeGreaterThan(second);
    expect(third).not.toBe(first);
  });
});

describe("migration 2 on a database made under migration 1", () => {
  function populatedUnderMigration1(): HubDb {
    const db = openDatabase(":memory:");
    expect(migrate(db, MIGRATIONS.slice(0, 1))).toEqual(["0001_init"]);
    db.sqlite.exec(`
      INSERT INTO users (id, username, username_key, role, password_hash, totp_enabled, created_at, updated_at, last_login_at)
        VALUES (1, 'Root', 'root', 'admin', 'argon', 1, 10, 11, 12), (2, 'bob', 'bob', 'user', NULL, 0, 20, 21, NULL), (4, 'cy', 'cy', 'user', NULL, 0, 30, 31, NULL);
      INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at)
        VALUES ('${HASH("1")}', 1, 'mfa', 'csrf1', 'ch', 'webauthn', 99, 1, 2, 3), ('${HASH("2")}', 2, 'password', 'csrf2', NULL, NULL, NULL, 4, 5, 6);
      INSERT INTO api_keys (id, user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at)
        VALUES (1, 1, '${HASH("a")}', 'hub_aaaaaaaa', 'ci', 1, 1, 2, 3), (2, 2, '${HASH("b")}', 'hub_bbbbbbbb', NULL, 0, 4, NULL, NULL);
      INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at)
        VALUES (3, 1, 'cred-1', x'0102ff', 7, '["usb"]', 'key', 1, 2);
      INSERT INTO trusted_devices (id, user_id, token_hash, created_at, expires_at, last_used_at) VALUES (5, 2, '${HASH("c")}', 1, 2, 3);
      INSERT INTO agents (id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at)
        VALUES (1, '${HASH("d")}', 'steam', 'Windows', 'eu-west-1', 'attic', 1, 'provisioned', 'p1', '%refreshTime%', '400', 1, 2),
               (3, '${HASH("e")}', 'epic', 'EGS', 'us-east-1', NULL, 0, 'imported', NULL, NULL, NULL, 3, 4);
      INSERT INTO readings (id, platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event)
        VALUES (1, 'Windows', 'eu-west-1', 0, 75, 2.5, '9.3.0', 'default', 240, 1000, 1001, 1, '{"key":"bp"}'),
               (2, 'EGS', 'us-east-1', 25, 0, 0.5, NULL, NULL, NULL, 2000, 2001, 3, NULL),
               (3, 'Windows', 'eu-west-1', 50, 0, 0.8, NULL, NULL, NULL, 3000, 3001, NULL, NULL);
      INSERT INTO slot_state (platform, region, refresh_time_seconds, updated_at) VALUES ('Windows', 'eu-west-1', 240, 5);
      INSERT INTO settings (key, value, updated_at) VALUES ('requireAuth', 'true', 6);
      INSERT INTO events (id, key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at) VALUES (2, 'bp-2x', 'Double', 2, 10, 20, '["EGS"]', 1, 2);
      INSERT INTO audit_log (at, actor_user_id, actor, action, target, detail) VALUES
        (1, NULL, 'cli', 'user.create', 'user:7', NULL),
        (2, 1, 'Root', 'agent.delete', 'agent:9', '{"dataMode":"orphan"}'),
        (3, 1, 'Root', 'event.delete', 'event:6', NULL),
        (4, 1, 'Root', 'apikey.delete', 'apikey:12', NULL),
        (5, NULL, 'bootstrap', 'user.create', 'user:1', NULL),
        (6, 1, 'Root', 'setup', 'user:1', NULL);
    `);
    return db;
  }

  const TABLES = ["users", "sessions", "api_keys", "passkeys", "trusted_devices", "agents", "readings", "slot_state", "settings", "events", "audit_log"];

  test("keeps every row and every child row, and the database stays consistent", () => {
    const db = populatedUnderMigration1();
    const columns = Object.fromEntries(TABLES.map((t) => [t, columnsOf(db.sqlite, t)]));
    const before = Object.fromEntries(TABLES.map((t) => [t, dump(db.sqlite, t, columns[t] ?? [])]));
    expect(migrate(db)).toEqual(MIGRATIONS.slice(1).map((m) => m.name));
    for (const table of TABLES) expect({ table, rows: dump(db.sqlite, table, columns[table] ?? []) }).toEqual({ table, rows: before[table] ?? [] });
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings WHERE agent_id IS NOT NULL").get()?.n).toBe(2);
    clean(db);
    const tables = db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%_0001'").all();
    expect(tables).toEqual([]);
  });

  test("the foreign keys still act on the rebuilt tables", () => {
    const db = populatedUnderMigration1();
    migrate(db);
    db.sqlite.exec("DELETE FROM users WHERE id = 1");
    expect(db.sqlite.query<{ n: number }, []>("SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COUNT(*) FROM api_keys) + (SELECT COUNT(*) FROM passkeys) AS n").get()?.n).toBe(2);
    db.sqlite.exec("DELETE FROM agents WHERE id = 1");
    expect(db.sqlite.query<{ agent_id: number | null }, []>("SELECT agent_id FROM readings WHERE id = 1").get()?.agent_id).toBeNull();
    expect(() => db.sqlite.exec(`INSERT INTO api_keys (user_id, key_hash, prefix, created_at) VALUES (42, '${HASH("f")}', 'hub_', 0)`)).toThrow();
    clean(db);
  });

  test("the next ids are above every id still known, including those only the audit log remembers", () => {
    const db = populatedUnderMigration1();
    migrate(db);
    const seq = Object.fromEntries(db.sqlite.query<{ name: string; seq: number }, []>("SELECT name, seq FROM sqlite_sequence").all().map((r) => [r.name, r.seq]));
    expect(seq).toEqual({ users: 7, api_keys: 12, passkeys: 3, agents: 9, events: 6 });
    const migration2Tables = ["users", "api_keys", "passkeys", "agents", "events"] as const;
    for (const table of migration2Tables) NEVER_REUSED[table]?.(db.sqlite, 100);
    const next = Object.fromEntries(migration2Tables.map((t) => [t, newestId(db.sqlite, t)]));
    expect(next).toEqual({ users: 8, api_keys: 13, passkeys: 4, agents: 10, events: 7 });
  });

  test("rebuilt tables keep the columns, defaults, checks, foreign keys and indexes of migration 1", () => {
    const original = openDatabase(":memory:");
    migrate(original, MIGRATIONS.slice(0, 1));
    const rebuilt = openDatabase(":memory:");
    migrate(rebuilt, MIGRATIONS.slice(0, 2));
    for (const table of ["users", "sessions", "api_keys", "passkeys", "trusted_devices", "agents", "readings", "events"]) {
      expect({ table, ...structure(rebuilt.sqlite, table) }).toEqual({ table, ...structure(original.sqlite, table) });
    }
    const autoincrement = rebuilt.sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(autoincrement).toEqual(["agents", "api_keys", "events", "passkeys", "users"]);
  });

  test("the connection that migrated can still switch journal modes and checkpoint (as the history backfill does)", () => {
    const db = openDatabase(join(scratch(), "hub.db"));
    migrate(db);
    db.sqlite.exec("PRAGMA journal_mode = DELETE");
    db.sqlite.exec("PRAGMA journal_mode = WAL");
    expect(() => db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)")).not.toThrow();
    db.sqlite.close();
  });

  test("audit entries written before migration 3 say how they came in only where the actor tells", () => {
    const db = populatedUnderMigration1();
    migrate(db);
    const via = db.sqlite.query<{ at: number; via: string | null }, []>("SELECT at, via FROM audit_log ORDER BY at").all().map((r) => r.via);
    expect(via).toEqual(["cli", null, null, null, "config", "session"]);
  });
});
