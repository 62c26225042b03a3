/** Opening the database: pragmas, migrations and the one-server-per-file lock. */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { MIGRATIONS, type Migration } from "./migrations.ts";
import { schema } from "./schema.ts";

export type Orm = BunSQLiteDatabase<typeof schema>;

export interface HubDb {
  readonly path: string;
  readonly sqlite: Database;
  readonly orm: Orm;
}

/** A failure the CLI reports as one line and exit code 1. */
export class DatabaseError extends Error {
  override readonly name = "DatabaseError";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function openDatabase(path: string): HubDb {
  let sqlite: Database;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    sqlite = new Database(path, { create: true, strict: true });
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.exec("PRAGMA journal_mode = WAL");
    sqlite.exec("PRAGMA synchronous = NORMAL");
    sqlite.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    throw new DatabaseError(`cannot open database ${path}: ${describe(error)}`);
  }
  return { path, sqlite, orm: drizzle(sqlite, { schema }) };
}

/** Applies every migration the database has not seen, each in its own transaction. Returns the names applied. */
export function migrate(db: HubDb, migrations: readonly Migration[] = MIGRATIONS): string[] {
  const { sqlite } = db;
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const newest = migrations.at(-1)?.version ?? 0;
  const applied: string[] = [];
  for (const migration of migrations) {
    const run = sqlite.transaction(() => {
      const done = sqlite.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM schema_migrations WHERE version = ?").get(migration.version);
      if (done && done.n > 0) return false;
      sqlite.exec(migration.sql);
      sqlite
        .query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
        .run(migration.version, migration.name, Date.now());
      return true;
    });
    try {
      if (run.immediate()) applied.push(migration.name);
    } catch (error) {
      throw new DatabaseError(`migration ${migration.name} failed and was rolled back: ${describe(error)}`);
    }
  }
  const latest = sqlite.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()?.v ?? 0;
  if (latest > newest) {
    throw new DatabaseError(`database ${db.path} was migrated by a newer hub (schema ${latest}, this hub knows ${newest}); use the newer binary`);
  }
  return applied;
}

/** Held for as long as a server runs: a second server on the same file is refused. */
export interface ServerLock {
  release(): void;
}

/**
 * Takes an exclusive SQLite lock on a sidecar file next to the database. The
 * operating system drops the lock when the process ends, however it ends, so
 * a crashed server never leaves a stale lock behind.
 */
export function acquireServerLock(dbPath: string): ServerLock {
  if (dbPath === ":memory:") return { release() {} };
  const lockPath = `${dbPath}.lock`;
  let handle: Database;
  try {
    mkdirSync(dirname(lockPath), { recursive: true });
    handle = new Database(lockPath, { create: true });
    handle.exec("PRAGMA busy_timeout = 0");
  } catch (error) {
    throw new DatabaseError(`cannot create lock file ${lockPath}: ${describe(error)}`);
  }
  try {
    handle.exec("BEGIN EXCLUSIVE");
  } catch {
    handle.close();
    throw new DatabaseError(`another hub is already serving ${dbPath} (it holds ${lockPath}); stop it first or use another --db`);
  }
  return {
    release() {
      handle.exec("ROLLBACK");
      handle.close();
    },
  };
}

/** Folds the write-ahead log back into the database file before closing it. */
export function closeDatabase(db: HubDb): void {
  try {
    db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.sqlite.close();
  }
}
