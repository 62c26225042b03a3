/**
 * One run of the import (SPEC §22): open the field's file, check and copy into
 * this hub's database (or only count, on a dry run), with the server lock held
 * so that no hub writes beside it. `cli/import-field.ts` only parses and prints.
 */
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { hubSecrets, loadOrCreateKey } from "../auth/keys.ts";
import type { Config } from "../config/load.ts";
import { acquireServerLock, closeDatabase, DatabaseError, migrate, openDatabase, type ServerLock } from "../db/open.ts";
import { FieldImportRefusal, importField, type ImportCounts, type ImportOptions } from "./import.ts";
import { FieldSource, FieldSourceError, openForReading } from "./source.ts";

/** The import did not run, or was refused; nothing was changed. */
export class FieldImportError extends Error {
  override readonly name = "FieldImportError";
}

/** An empty database of the current schema in memory: what a target that does not exist yet would hold. */
function emptyTarget(): Database {
  const db = openDatabase(":memory:");
  migrate(db);
  return db.sqlite;
}

function run(source: FieldSource, target: Database, options: ImportOptions): ImportCounts {
  try {
    return importField(source, target, options);
  } catch (error) {
    if (error instanceof FieldImportRefusal) throw new FieldImportError(`import refused, nothing was changed: ${error.message}`);
    throw error;
  }
}

function serverLock(db: string): ServerLock {
  try {
    return acquireServerLock(db);
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    throw new FieldImportError(`a hub is serving ${db}; stop it first, then run import-field again (nothing was changed)`);
  }
}

export function runFieldImport(config: Config, from: string, dryRun: boolean, progress: (done: number, total: number) => void): { counts: ImportCounts; source: string } {
  let source: FieldSource;
  try {
    source = FieldSource.open(from);
  } catch (error) {
    if (error instanceof FieldSourceError) throw new FieldImportError(`import refused, nothing was changed: ${error.message}`);
    throw error;
  }
  const base = { catalogue: config.catalogue, now: Date.now(), progress };
  try {
    if (dryRun) {
      // Read-only beside a serving hub; an absent database is what a first start would make, empty.
      const target = existsSync(config.db) ? openForReading(config.db) : emptyTarget();
      try {
        return { counts: run(source, target, { ...base, totpSecrets: null, dryRun: true }), source: source.path };
      } finally {
        target.close();
      }
    }
    if (!existsSync(config.db)) {
      // Everything that can refuse is checked before the new database (and its key) is made.
      const empty = emptyTarget();
      try {
        run(source, empty, { ...base, progress: () => {}, totpSecrets: null, dryRun: true });
      } finally {
        empty.close();
      }
    }
    const lock = serverLock(config.db);
    try {
      const db = openDatabase(config.db);
      try {
        migrate(db);
        const { totpSecrets } = hubSecrets(loadOrCreateKey(config.db, config.secretKey).bytes, config.sessionSecret);
        return { counts: run(source, db.sqlite, { ...base, totpSecrets, dryRun: false }), source: source.path };
      } finally {
        closeDatabase(db);
      }
    } finally {
      lock.release();
    }
  } finally {
    source.close();
  }
}
