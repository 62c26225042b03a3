/** Opening the database: pragmas, migrations, the one-server-per-file lock, and the modes of the files beside it. */
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, constants, fchmodSync, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
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

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error ? String(error.code) : "";
}

/** The server lock is held: a hub is serving the database. */
export class ServerLockHeld extends DatabaseError {}

/** Owner-only: the database holds password hashes, session hashes and second-factor secrets, and a backup holds the same. */
const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Makes a directory and any parents it lacks, each owner-only. A directory
 * that already exists keeps its mode: the operator (or systemd's
 * StateDirectory=) chose it, and every file the hub puts inside is private
 * anyway.
 */
function makePrivateDirectory(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (first === undefined) return;
  // mkdir takes the umask off the mode; these directories are new and the hub's own, so their mode is set outright.
  const top = resolve(first);
  for (let made = resolve(dir); ; made = dirname(made)) {
    chmodSync(made, PRIVATE_DIRECTORY_MODE);
    if (made === top || made === dirname(made)) break;
  }
}

/**
 * Makes a file owner-only if it exists. A file that belongs to another user
 * (a command run beside the server by someone with group access) keeps the
 * mode its owner gave it, as does one on a read-only file system: neither can
 * be changed from here, and neither stops the file from being used.
 */
export function restrictToOwner(path: string): void {
  try {
    chmodSync(path, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "EPERM" && code !== "EROFS") throw error;
  }
}

/**
 * Creates a new owner-only file, with `content` written and synced when
 * given. It fails with EEXIST if the file exists, so nothing is overwritten.
 */
export function createPrivateFile(path: string, content?: string): void {
  const fd = openSync(path, "wx", PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
    if (content !== undefined) {
      writeSync(fd, content);
      fsyncSync(fd);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes sure a SQLite file exists and is owner-only before SQLite opens it.
 * SQLite would create it 0644 less the umask, but gives the -wal, -shm and
 * -journal files it makes later the database file's own mode, so a private
 * database file keeps all of them private whatever the umask. Such files left
 * by an older hub are restricted too.
 */
function prepareSqliteFile(path: string): void {
  makePrivateDirectory(dirname(path));
  createIfAbsent(path);
  for (const suffix of ["", "-wal", "-shm", "-journal"]) restrictToOwner(`${path}${suffix}`);
}

/**
 * Creates an empty owner-only file, and never opens one that exists. SQLite's
 * locks are POSIX locks, which belong to the process: closing any descriptor
 * of the file drops every lock the process holds on it. An open and close of
 * the serving hub's database (a second connection of the hub's own, such as
 * an import's) once dropped the hub's shared lock, so an operator's `sqlite3`
 * read became the "last connection", folded the log into the database and
 * removed it under the running hub.
 */
function createIfAbsent(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_CREAT | constants.O_EXCL, PRIVATE_FILE_MODE);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return;
    throw error;
  }
  closeSync(fd);
}

export function openDatabase(path: string): HubDb {
  let sqlite: Database;
  try {
    if (path !== ":memory:") prepareSqliteFile(path);
    sqlite = new Database(path, { create: true, strict: true });
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.exec("PRAGMA journal_mode = WAL");
    // FULL: a commit (and so a 201) is on stable storage even if the file system fails or the machine loses power right after; NORMAL lost acknowledged readings when a disk turned read-only.
    sqlite.exec("PRAGMA synchronous = FULL");
    sqlite.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    throw new DatabaseError(`cannot open database ${path}: ${describe(error)}`);
  }
  return { path, sqlite, orm: drizzle(sqlite, { schema }) };
}

/** A row of PRAGMA foreign_key_check: a row of `table` whose reference into `parent` points at nothing. */
interface ForeignKeyViolation {
  table: string;
  rowid: number | null;
  parent: string;
}

/**
 * Applies every migration the database has not seen, each in its own
 * transaction. Returns the names applied.
 *
 * Foreign keys are off while a migration runs (SQLite ignores the switch
 * inside a transaction, so it is made around them), as SQLite's table rebuild
 * requires: dropping a parent table to create it again must neither cascade
 * into its children nor detach them. Each migration's result is checked
 * before it commits: a dangling reference rolls it back.
 */
export function migrate(db: HubDb, migrations: readonly Migration[] = MIGRATIONS): string[] {
  const { sqlite } = db;
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const newest = migrations.at(-1)?.version ?? 0;
  const applied: string[] = [];
  const foreignKeys = sqlite.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys ?? 0;
  sqlite.exec("PRAGMA foreign_keys = OFF");
  try {
    for (const migration of migrations) {
      const run = sqlite.transaction(() => {
        const done = sqlite.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM schema_migrations WHERE version = ?").get(migration.version);
        if (done && done.n > 0) return false;
        sqlite.exec(migration.sql);
        const dangling = sqlite.query<ForeignKeyViolation, []>("PRAGMA foreign_key_check").all();
        if (dangling.length > 0) {
          const where = dangling.slice(0, 3).map((v) => `${v.table} row ${v.rowid ?? "?"} → ${v.parent}`);
          throw new Error(`${dangling.length} reference(s) point at nothing (${where.join(", ")})`);
        }
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
  } finally {
    sqlite.exec(`PRAGMA foreign_keys = ${foreignKeys === 1 ? "ON" : "OFF"}`);
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
    prepareSqliteFile(lockPath);
    handle = new Database(lockPath, { create: true });
    handle.exec("PRAGMA busy_timeout = 0");
  } catch (error) {
    throw new DatabaseError(`cannot create lock file ${lockPath}: ${describe(error)}`);
  }
  try {
    handle.exec("BEGIN EXCLUSIVE");
  } catch {
    handle.close();
    throw new ServerLockHeld(`another hub is already serving ${dbPath} (it holds ${lockPath}); stop it first or use another --db`);
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
