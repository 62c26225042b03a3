/**
 * `hub restore` (SPEC §25): a backup from a file or an S3 object becomes the
 * database again, only after it has been decrypted, matched against its
 * SHA-256 and passed `PRAGMA integrity_check`, and only while no hub serves
 * that database. The database it replaces is kept as `<db>.before-restore`.
 */
import { Database } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statfsSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { MIGRATIONS } from "../db/migrations.ts";
import { acquireServerLock, migrate, openDatabase, ServerLockHeld } from "../db/open.ts";
import { BackupFormatError, decodeBackupFile, readBackupFileHeader } from "./format.ts";
import { parseTargetSpec } from "../config/backup-target.ts";
import { openTarget, type S3Credentials } from "./target.ts";

/** A restore that was refused or failed; nothing was changed. */
export class RestoreError extends Error {
  override readonly name = "RestoreError";
}

export interface RestoreOptions {
  /** A file path, or `s3://bucket/prefix/hub-….db.zst[.enc]`. */
  readonly source: string;
  readonly dbPath: string;
  readonly passphrase: string | null;
  readonly s3: S3Credentials;
}

export interface RestoreResult {
  readonly source: string;
  readonly createdAt: number;
  readonly schemaVersion: number;
  readonly databaseBytes: number;
  /** Rows per table the operator will recognise. */
  readonly rows: Readonly<Record<string, number>>;
  /** Where the replaced database went, or null when there was none. */
  readonly keptAs: string | null;
}

/** The tables counted in the restore's report. */
const COUNTED_TABLES = ["readings", "users", "agents", "webhooks", "events"] as const;

/** The backup file to read: the source itself, or an S3 object downloaded to `path`. */
async function fetchBackup(source: string, s3: S3Credentials, path: string): Promise<string> {
  if (/^s3:\/\//i.test(source)) {
    const spec = parseTargetSpec(source);
    if (!spec || spec.kind !== "s3" || spec.prefix === "") throw new RestoreError(`"${source}" is not an S3 object address: use s3://bucket/prefix/hub-….db.zst`);
    const slash = spec.prefix.lastIndexOf("/");
    const name = spec.prefix.slice(slash + 1);
    const target = openTarget({ kind: "s3", bucket: spec.bucket, prefix: slash === -1 ? "" : spec.prefix.slice(0, slash) }, s3);
    await target.download(name, path);
    return path;
  }
  if (!existsSync(source)) throw new RestoreError(`there is no file at ${source}`);
  return source;
}

function freeBytes(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

function syncDir(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** One row of `sqlite_schema`, its SQL with whitespace collapsed. */
interface SchemaObject {
  readonly type: string;
  readonly name: string;
  readonly table: string;
  readonly sql: string;
}

/** The schema's rows, but for the statistics tables `ANALYZE` makes, which are SQLite's own and change no answer. */
function schemaObjects(db: Database): Map<string, SchemaObject> {
  const rows = db.query<{ type: string; name: string; tbl_name: string; sql: string | null }, []>("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\'").all();
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, { type: row.type, name: row.name, table: row.tbl_name, sql: (row.sql ?? "").replace(/\s+/g, " ").trim() }]));
}

/** A table's columns as SQLite reads them: name, declared type, NOT NULL, default, key, hidden (generated). */
function columnsOf(db: Database, table: string): Map<string, string> {
  const rows = db.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number; hidden: number }, [string]>("SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?)").all(table);
  return new Map(rows.map((c) => [c.name, `${c.type}|${c.notnull}|${c.dflt_value ?? ""}|${c.pk}|${c.hidden}`]));
}

/** What makes one table differ from the hub's own, in words: its columns first, else its definition. */
function tableDifference(found: Database, expected: Database, table: string): string {
  const have = columnsOf(found, table);
  const want = columnsOf(expected, table);
  const extra = [...have.keys()].filter((name) => !want.has(name));
  const missing = [...want.keys()].filter((name) => !have.has(name));
  const changed = [...want.keys()].filter((name) => have.has(name) && have.get(name) !== want.get(name));
  if (extra.length > 0) return `table "${table}" has a column "${extra[0]}" the hub does not make`;
  if (missing.length > 0) return `table "${table}" lacks the column "${missing[0]}"`;
  if (changed.length > 0) return `table "${table}" declares its column "${changed[0]}" differently`;
  return `table "${table}" is defined differently (its constraints or options)`;
}

const KINDS: Readonly<Record<string, string>> = { table: "a table", index: "an index", trigger: "a trigger", view: "a view" };

/**
 * How the schema of `found` differs from the one the hub's migrations make
 * up to `version` (built in memory, by running them): every table, column,
 * index, trigger and view, compared by its definition. Empty when they are
 * the same.
 */
function schemaDifferences(found: Database, version: number): string[] {
  const built = openDatabase(":memory:");
  try {
    migrate(built, MIGRATIONS.filter((m) => m.version <= version));
    const expected = schemaObjects(built.sqlite);
    const have = schemaObjects(found);
    const differences: string[] = [];
    for (const [key, object] of have) {
      const wanted = expected.get(key);
      const kind = KINDS[object.type] ?? object.type;
      if (!wanted) differences.push(`${kind} "${object.name}"${object.type === "table" ? "" : ` on "${object.table}"`} that the hub's migrations do not make`);
      else if (wanted.sql !== object.sql || wanted.table !== object.table) differences.push(object.type === "table" ? tableDifference(found, built.sqlite, object.name) : `${kind} "${object.name}" is defined differently`);
    }
    for (const [key, object] of expected) if (!have.has(key)) differences.push(`no ${object.type} "${object.name}"`);
    return differences;
  } finally {
    built.sqlite.close();
  }
}

function listed(differences: readonly string[]): string {
  const shown = differences.slice(0, 3).join("; ");
  return differences.length > 3 ? `${shown}; and ${differences.length - 3} more` : shown;
}

/**
 * Checks the restored file and reads what the report says about it. Nothing
 * in the file is trusted: it must pass `PRAGMA integrity_check`, carry the
 * hub's record of migrations with every version from the first to the one
 * the backup's header declares, and have exactly the schema those
 * migrations make, so that no trigger, view or extra table rides along.
 */
function inspect(path: string, declared: number): { schemaVersion: number; rows: Record<string, number> } {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const check = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (check.length !== 1 || check[0]?.integrity_check !== "ok") {
      throw new RestoreError(`the database in the backup fails PRAGMA integrity_check (${check.slice(0, 3).map((c) => c.integrity_check).join("; ")}); nothing was changed`);
    }
    const hasRecord = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'").get()?.n === 1;
    if (!hasRecord) throw new RestoreError("the database in this backup is not the hub's (it has no schema_migrations table, the hub's record of its migrations); nothing was changed");
    const versions = db.query<{ version: number }, []>("SELECT version FROM schema_migrations ORDER BY version").all().map((row) => row.version);
    const schemaVersion = versions.at(-1) ?? 0;
    if (schemaVersion !== declared || versions.some((v, i) => v !== i + 1)) {
      throw new RestoreError(`the database in this backup records migrations ${versions.length === 0 ? "none" : versions.join(", ")}, not every one from 1 to ${declared} as its header declares; nothing was changed`);
    }
    const differences = schemaDifferences(db, schemaVersion);
    if (differences.length > 0) throw new RestoreError(`the database in this backup is not the hub's schema ${schemaVersion}: ${listed(differences)}; nothing was changed`);
    const rows: Record<string, number> = {};
    for (const table of COUNTED_TABLES) rows[table] = db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM "${table}"`).get()?.n ?? 0;
    return { schemaVersion, rows };
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    throw new RestoreError(`the file in this backup cannot be read as the hub's database (${error instanceof Error ? error.message : String(error)}); nothing was changed`);
  } finally {
    db.close();
  }
}

/** Folds the old database's write-ahead log into it, so that moving the one file aside moves all of it. */
function settle(dbPath: string): void {
  const db = new Database(dbPath, { strict: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  rmSync(`${dbPath}-wal`, { force: true });
  rmSync(`${dbPath}-shm`, { force: true });
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const { dbPath } = options;
  const keptAs = `${dbPath}.before-restore`;
  let createdAt = 0;
  let declared = 0;
  let lock: { release(): void };
  try {
    lock = acquireServerLock(dbPath);
  } catch (error) {
    if (error instanceof ServerLockHeld) throw new RestoreError(`a hub is serving ${dbPath}: stop it first (systemctl stop hub), then restore`);
    throw error;
  }
  const temporary = join(dirname(dbPath), `.${basename(dbPath)}.restore-${process.pid}.tmp`);
  const downloaded = `${temporary}.backup`;
  try {
    if (existsSync(dbPath) && existsSync(keptAs)) throw new RestoreError(`${keptAs} is there from an earlier restore: move it away (or delete it) first, so that it is not lost`);
    rmSync(downloaded, { force: true });
    rmSync(temporary, { force: true });
    const file = await fetchBackup(options.source, options.s3, downloaded);
    const known = MIGRATIONS.at(-1)?.version ?? 0;
    try {
      const header = readBackupFileHeader(file);
      if (header.schemaVersion > known) {
        throw new RestoreError(`this backup has schema version ${header.schemaVersion}, newer than this hub knows (${known}): restore it with the hub version that made it, or a newer one`);
      }
      const free = freeBytes(dirname(dbPath));
      if (header.databaseBytes > free) {
        throw new RestoreError(`this backup holds a database of ${header.databaseBytes} bytes, and ${dirname(dbPath)} has ${free} bytes free: make room first; nothing was changed`);
      }
      declared = header.schemaVersion;
      createdAt = (await decodeBackupFile(file, temporary, options.passphrase)).createdAt;
    } catch (error) {
      if (error instanceof BackupFormatError) throw new RestoreError(`${error.message}; nothing was changed`);
      if (error instanceof Error && "code" in error && typeof error.code === "string" && error.code.startsWith("E")) {
        throw new RestoreError(`the database could not be written beside ${dbPath} (${error.message}); nothing was changed`);
      }
      throw error;
    } finally {
      rmSync(downloaded, { force: true });
    }
    const databaseBytes = statSync(temporary).size;
    const { schemaVersion, rows } = inspect(temporary, declared);
    let moved: string | null = null;
    if (existsSync(dbPath)) {
      settle(dbPath);
      renameSync(dbPath, keptAs);
      moved = keptAs;
    }
    renameSync(temporary, dbPath);
    syncDir(dirname(dbPath));
    return { source: options.source, createdAt, schemaVersion, databaseBytes, rows, keptAs: moved };
  } finally {
    rmSync(downloaded, { force: true });
    rmSync(temporary, { force: true });
    lock.release();
  }
}
