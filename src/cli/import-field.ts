/** `hub import-field --from PATH [--dry-run]`: the field hub's database into this one (SPEC §22); the work is in field/. */
import { Database } from "bun:sqlite";
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { hubSecrets, loadOrCreateKey } from "../auth/keys.ts";
import type { Config } from "../config/load.ts";
import { acquireServerLock, closeDatabase, DatabaseError, migrate, openDatabase, type ServerLock } from "../db/open.ts";
import { FieldImportRefusal, IMPORT_TABLES, importField, type ImportCounts, type ImportOptions } from "../field/import.ts";
import { FieldSource, FieldSourceError, openForReading } from "../field/source.ts";
import { CommandError, type Command } from "./command.ts";

/** Below this many readings a progress line would only be noise. */
const PROGRESS_FROM = 100_000;

const TABLE_NAMES: Readonly<Record<(typeof IMPORT_TABLES)[number], string>> = {
  readings: "readings",
  agents: "agents",
  users: "users",
  passkeys: "passkeys",
  apiKeys: "API keys",
  settings: "settings",
};

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
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
    if (error instanceof FieldImportRefusal) throw new CommandError(`import refused, nothing was changed: ${error.message}`);
    throw error;
  }
}

function serveLock(config: Config): ServerLock {
  try {
    return acquireServerLock(config.db);
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    throw new CommandError(`a hub is serving ${config.db}; stop it first, then run import-field again (nothing was changed)`);
  }
}

export const importFieldCommand: Command = {
  name: "import-field",
  usage: "hub import-field --from PATH [--dry-run] [--db FILE]",
  summary: "Copy the field hub's database (bloodpoint-incentives) into this one: readings, agents, users, passkeys, API keys, settings",
  flags: [
    { name: "from", takesValue: true },
    { name: "dry-run", takesValue: false },
  ],
  async run({ config, args, out }) {
    const from = args.command.get("from");
    if (!from) throw new CommandError("import-field needs the field hub's database: hub import-field --from ./data/bloodpoint.db");
    if (config.db === ":memory:") throw new CommandError("import-field needs a database file (--db or DB_PATH), not :memory:");
    if (existsSync(config.db) && sameFile(from, config.db)) throw new CommandError(`--from ${from} is this hub's own database; give the field hub's file`);
    const dryRun = args.command.get("dry-run") === "true";
    let source: FieldSource;
    try {
      source = FieldSource.open(from);
    } catch (error) {
      if (error instanceof FieldSourceError) throw new CommandError(`import refused, nothing was changed: ${error.message}`);
      throw error;
    }
    const progress = (done: number, total: number): void => {
      if (total >= PROGRESS_FROM) out(`readings: ${done} of ${total} (${Math.floor((done * 100) / total)}%)`);
    };
    const base = { catalogue: config.catalogue, now: Date.now(), progress };
    try {
      let counts: ImportCounts;
      if (dryRun) {
        // Read-only beside a serving hub; an absent database is what a first start would make, empty.
        const target = existsSync(config.db) ? openForReading(config.db) : emptyTarget();
        try {
          counts = run(source, target, { ...base, totpSecrets: null, dryRun: true });
        } finally {
          target.close();
        }
      } else {
        if (!existsSync(config.db)) {
          // Everything that can refuse is checked before the new database (and its key) is made.
          const empty = emptyTarget();
          try {
            run(source, empty, { ...base, progress: () => {}, totpSecrets: null, dryRun: true });
          } finally {
            empty.close();
          }
        }
        const lock = serveLock(config);
        try {
          const db = openDatabase(config.db);
          try {
            migrate(db);
            const { totpSecrets } = hubSecrets(loadOrCreateKey(config.db, config.secretKey).bytes, config.sessionSecret);
            counts = run(source, db.sqlite, { ...base, totpSecrets, dryRun: false });
          } finally {
            closeDatabase(db);
          }
        } finally {
          lock.release();
        }
      }
      for (const table of IMPORT_TABLES) {
        const { copy, present } = counts[table];
        out(`${TABLE_NAMES[table]}: ${copy} ${dryRun ? "to copy" : "copied"}, ${present} already here`);
      }
      out(
        dryRun
          ? `dry run: nothing was written to ${config.db}`
          : `imported ${source.path} into ${config.db}; sessions and remembered devices were not carried, so everyone signs in again`,
      );
      return 0;
    } finally {
      source.close();
    }
  },
};
