/**
 * `hub restore` (SPEC §25): a backup from a file or an S3 object becomes the
 * database again, only after it has been decrypted, matched against its
 * SHA-256 and passed `PRAGMA integrity_check`, and only while no hub serves
 * that database. The database it replaces is kept as `<db>.before-restore`.
 */
import { Database } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { acquireServerLock, ServerLockHeld } from "../db/open.ts";
import { MIGRATIONS } from "../db/migrations.ts";
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

function syncDir(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Checks the restored file and reads what the report says about it. */
function inspect(path: string): { schemaVersion: number; rows: Record<string, number> } {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const check = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    if (check.length !== 1 || check[0]?.integrity_check !== "ok") {
      throw new RestoreError(`the database in the backup fails PRAGMA integrity_check (${check.slice(0, 3).map((c) => c.integrity_check).join("; ")}); nothing was changed`);
    }
    const schemaVersion = db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()?.v ?? 0;
    const tables = new Set(db.query<{ name: string }, []>("SELECT name FROM sqlite_schema WHERE type = 'table'").all().map((t) => t.name));
    const rows: Record<string, number> = {};
    for (const table of COUNTED_TABLES) {
      if (tables.has(table)) rows[table] = db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM "${table}"`).get()?.n ?? 0;
    }
    return { schemaVersion, rows };
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
      createdAt = (await decodeBackupFile(file, temporary, options.passphrase)).createdAt;
    } catch (error) {
      throw error instanceof BackupFormatError ? new RestoreError(`${error.message}; nothing was changed`) : error;
    } finally {
      rmSync(downloaded, { force: true });
    }
    const databaseBytes = statSync(temporary).size;
    const { schemaVersion, rows } = inspect(temporary);
    if (schemaVersion > known) throw new RestoreError(`the database in this backup has schema version ${schemaVersion}, newer than this hub knows (${known}); nothing was changed`);
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
