/**
 * One backup run (SPEC §25): the online snapshot of `hub backup`, compressed
 * and maybe encrypted, uploaded, read back and compared, and only then the
 * backups beyond the number to keep deleted. A run that fails anywhere before
 * the comparison deletes nothing, so an older backup is never lost to a
 * failed one.
 */
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { backupDatabase, removeAbandoned } from "../db/backup.ts";
import { backupName, encodeBackup, PBKDF2_ITERATIONS, sha256Hex } from "./format.ts";
import { BackupTargetError, type BackupTarget } from "./target.ts";
import { dirname } from "node:path";

export interface BackupRunOptions {
  readonly dbPath: string;
  readonly target: BackupTarget;
  readonly keep: number;
  readonly passphrase: string | null;
  readonly now?: () => number;
  /** PBKDF2 rounds; tests lower it. */
  readonly iterations?: number;
}

export interface BackupRunResult {
  readonly name: string;
  readonly target: string;
  readonly createdAt: number;
  readonly schemaVersion: number;
  /** Size of the backup file at the target. */
  readonly bytes: number;
  readonly databaseBytes: number;
  readonly sha256: string;
  readonly encrypted: boolean;
  readonly durationMs: number;
  /** Older backups deleted because more than `keep` were there. */
  readonly deleted: readonly string[];
  /** Why deleting older ones failed, when it did (the new backup stands). */
  readonly retentionError: string | null;
}

function schemaVersionOf(path: string): number {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    return db.query<{ v: number | null }, []>("SELECT MAX(version) AS v FROM schema_migrations").get()?.v ?? 0;
  } finally {
    db.close();
  }
}

/** The snapshot goes beside the database: the one place certain to take a database's size. */
function snapshotPath(dbPath: string, at: number): string {
  return `${dbPath}.backup-snapshot-${process.pid}-${at}`;
}

export async function runBackup(options: BackupRunOptions): Promise<BackupRunResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const snapshot = snapshotPath(options.dbPath, started);
  let file: Uint8Array;
  let databaseBytes: number;
  let schemaVersion: number;
  try {
    removeAbandoned(dirname(snapshot));
    await backupDatabase(options.dbPath, snapshot);
    schemaVersion = schemaVersionOf(snapshot);
    const database = await Bun.file(snapshot).bytes();
    databaseBytes = database.byteLength;
    file = await encodeBackup(database, { schemaVersion, createdAt: started }, options.passphrase, options.iterations ?? PBKDF2_ITERATIONS);
  } finally {
    rmSync(snapshot, { force: true });
  }
  const name = backupName(started, schemaVersion, options.passphrase !== null);
  const sha256 = sha256Hex(file);
  await options.target.put(name, file);
  const back = await options.target.readBack(name);
  if (back.size !== file.byteLength || back.sha256 !== sha256) {
    throw new BackupTargetError(
      `${name} at ${options.target.description} is not what was sent (${back.size} bytes with SHA-256 ${back.sha256.slice(0, 12)}…, sent ${file.byteLength} bytes with ${sha256.slice(0, 12)}…); older backups were kept`,
    );
  }
  const { deleted, retentionError } = await prune(options.target, options.keep, name);
  return {
    name,
    target: options.target.description,
    createdAt: started,
    schemaVersion,
    bytes: file.byteLength,
    databaseBytes,
    sha256,
    encrypted: options.passphrase !== null,
    durationMs: now() - started,
    deleted,
    retentionError,
  };
}

/** Deletes the oldest backups beyond `keep`, never the one just checked. */
async function prune(target: BackupTarget, keep: number, newest: string): Promise<{ deleted: string[]; retentionError: string | null }> {
  const deleted: string[] = [];
  try {
    // The new backup counts as one of those kept whether or not the listing shows it yet.
    const older = (await target.list()).filter((b) => b.name !== newest);
    const excess = older.slice(0, Math.max(0, older.length - (keep - 1)));
    for (const old of excess) {
      await target.remove(old.name);
      deleted.push(old.name);
    }
    return { deleted, retentionError: null };
  } catch (error) {
    return { deleted, retentionError: error instanceof Error ? error.message : String(error) };
  }
}
