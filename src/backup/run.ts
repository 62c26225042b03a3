/**
 * One backup run (SPEC §25): the online snapshot of `hub backup`, compressed
 * and maybe encrypted, uploaded, read back and compared, and only then the
 * backups beyond the number to keep deleted. A run that fails anywhere before
 * the comparison deletes nothing, so an older backup is never lost to a
 * failed one.
 */
import { Database } from "bun:sqlite";
import { readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { backupDatabase, removeAbandoned } from "../db/backup.ts";
import { backupName, encodeBackupFile, PBKDF2_ITERATIONS } from "./format.ts";
import { BackupTargetError, type BackupTarget } from "./target.ts";

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

/** The snapshot and the backup file go beside the database: the one place certain to take a database's size. */
function workPath(dbPath: string, at: number, what: string): string {
  return `${dbPath}.backup-${what}-${process.pid}-${at}`;
}

/** Removes what runs killed before they finished left beside the database (their process is gone). */
function removeAbandonedWork(dbPath: string): void {
  const dir = dirname(dbPath);
  const prefix = `${basename(dbPath)}.backup-`;
  for (const name of readdirSync(dir)) {
    const match = /^(?:snapshot|file)-(\d+)-\d+$/.exec(name.startsWith(prefix) ? name.slice(prefix.length) : "");
    const pid = Number(match?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

export async function runBackup(options: BackupRunOptions): Promise<BackupRunResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const snapshot = workPath(options.dbPath, started, "snapshot");
  const file = workPath(options.dbPath, started, "file");
  try {
    removeAbandoned(dirname(snapshot));
    removeAbandonedWork(options.dbPath);
    await backupDatabase(options.dbPath, snapshot);
    const schemaVersion = schemaVersionOf(snapshot);
    const databaseBytes = statSync(snapshot).size;
    const made = await encodeBackupFile(snapshot, file, { schemaVersion, createdAt: started }, options.passphrase, options.iterations ?? PBKDF2_ITERATIONS);
    rmSync(snapshot, { force: true });
    const name = backupName(started, schemaVersion, options.passphrase !== null);
    await options.target.put(name, file);
    const back = await options.target.readBack(name);
    if (back.size !== made.size || back.sha256 !== made.sha256) {
      throw new BackupTargetError(
        `${name} at ${options.target.description} is not what was sent (${back.size} bytes with SHA-256 ${back.sha256.slice(0, 12)}…, sent ${made.size} bytes with ${made.sha256.slice(0, 12)}…); older backups were kept`,
      );
    }
    const { deleted, retentionError } = await prune(options.target, options.keep, name);
    return {
      name,
      target: options.target.description,
      createdAt: started,
      schemaVersion,
      bytes: made.size,
      databaseBytes,
      sha256: made.sha256,
      encrypted: options.passphrase !== null,
      durationMs: now() - started,
      deleted,
      retentionError,
    };
  } finally {
    rmSync(snapshot, { force: true });
    rmSync(file, { force: true });
  }
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
