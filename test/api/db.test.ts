import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { acquireServerLock, DatabaseError, migrate, openDatabase } from "../../src/db/open.ts";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { schema } from "../../src/db/schema.ts";
import { tempDir } from "../helpers.ts";

const SPEC_TABLES = ["readings", "agents", "users", "sessions", "api_keys", "passkeys", "trusted_devices", "settings", "events", "audit_log"];

function withFile<T>(fn: (path: string) => T): T {
  const dir = tempDir();
  try {
    return fn(join(dir.path, "sub", "hub.db"));
  } finally {
    dir.cleanup();
  }
}

describe("opening the database", () => {
  test("WAL, busy timeout and foreign keys; the directory is created", () => {
    withFile((path) => {
      const db = openDatabase(path);
      expect(db.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
      expect(db.sqlite.query<{ timeout: number }, []>("PRAGMA busy_timeout").get()?.timeout).toBe(5000);
      expect(db.sqlite.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
      db.sqlite.close();
    });
  });

  test("an unusable path is a clear error", () => {
    expect(() => openDatabase("/proc/no/such/dir/hub.db")).toThrow(DatabaseError);
  });
});

describe("migrations", () => {
  test("every SQL file in migrations/ is embedded, numbered and in order", () => {
    const files = readdirSync(join(import.meta.dir, "../../migrations")).filter((f) => f.endsWith(".sql")).sort();
    expect(MIGRATIONS.map((m) => `${m.name}.sql`)).toEqual(files);
    // Numbers are handed out to branches ahead of their merge, so one may be missing for a while; each is applied by its own number.
    MIGRATIONS.forEach((m, i) => {
      expect(m.name).toStartWith(String(m.version).padStart(4, "0"));
      expect(m.version).toBeGreaterThan(MIGRATIONS[i - 1]?.version ?? 0);
    });
  });

  test("applied once, recorded, and a second run does nothing", () => {
    const db = openDatabase(":memory:");
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(migrate(db)).toEqual([]);
    const rows = db.sqlite.query<{ version: number; name: string }, []>("SELECT version, name FROM schema_migrations ORDER BY version").all();
    expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  test("creates every table of the data model, with the readings indexes", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    const tables = db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    for (const table of SPEC_TABLES) expect(tables).toContain(table);
    const indexes = db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'readings'").all().map((r) => r.name);
    expect(indexes).toContain("readings_slot_time");
    expect(indexes).toContain("readings_time");
    const slotIndex = db.sqlite.query<{ name: string }, []>("PRAGMA index_info(readings_slot_time)").all().map((r) => r.name);
    expect(slotIndex).toEqual(["platform", "region", "measured_at"]);
  });

  test("the drizzle schema matches the SQL, column for column", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    for (const table of Object.values(schema)) {
      const config = getTableConfig(table);
      const columns = db.sqlite.query<{ name: string; notnull: number }, []>(`PRAGMA table_info(${config.name})`).all();
      expect({ table: config.name, columns: columns.map((c) => c.name).sort() }).toEqual({
        table: config.name,
        columns: config.columns.map((c) => c.name).sort(),
      });
      for (const column of config.columns) {
        const sqlColumn = columns.find((c) => c.name === column.name);
        if (!column.primary) expect({ column: `${config.name}.${column.name}`, notNull: sqlColumn?.notnull === 1 }).toEqual({ column: `${config.name}.${column.name}`, notNull: column.notNull });
      }
    }
  });

  test("a failing migration is rolled back and reported", () => {
    const db = openDatabase(":memory:");
    const broken = [...MIGRATIONS, { version: (MIGRATIONS.at(-1)?.version ?? 0) + 1, name: "9999_broken", sql: "CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table;" }];
    expect(() => migrate(db, broken)).toThrow(/9999_broken failed/);
    const tables = db.sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE name = 'half_done'").all();
    expect(tables).toEqual([]);
    expect(db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM schema_migrations").get()?.n).toBe(MIGRATIONS.length);
  });

  test("a database from a newer hub is refused", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    db.sqlite.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future', 0)").run();
    expect(() => migrate(db)).toThrow(/newer hub/);
  });

  test("foreign keys cascade and detach as designed", () => {
    const db = openDatabase(":memory:");
    migrate(db);
    const { sqlite } = db;
    sqlite.query("INSERT INTO agents (id, token_hash, provider, platform, region, created_at, updated_at) VALUES (1, ?, 'steam', 'Windows', 'eu-west-1', 0, 0)").run("a".repeat(64));
    sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at, agent_id) VALUES ('Windows', 'eu-west-1', 0, 50, 1, 1, 1, 1)").run();
    sqlite.query("DELETE FROM agents WHERE id = 1").run();
    expect(sqlite.query<{ agent_id: number | null }, []>("SELECT agent_id FROM readings").get()?.agent_id).toBeNull();
    expect(() => sqlite.query("INSERT INTO api_keys (user_id, key_hash, prefix, created_at) VALUES (42, ?, 'hub_x', 0)").run("b".repeat(64))).toThrow();
  });
});

describe("one server per database file", () => {
  test("a second lock on the same file is refused with a clear message, and released locks can be retaken", () => {
    withFile((path) => {
      openDatabase(path).sqlite.close();
      const first = acquireServerLock(path);
      expect(() => acquireServerLock(path)).toThrow(/another hub is already serving/);
      first.release();
      const again = acquireServerLock(path);
      again.release();
    });
  });
});
