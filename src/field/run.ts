/**
 * One run of the import (SPEC §22): open the field's file, check and copy into
 * this hub's database (or only count, on a dry run). Either the command does it
 * on the file, holding the server lock so that no hub writes beside it, or the
 * hub serving the database does it on its own connection, asked over the
 * control socket (§16.2). `cli/import-field.ts` only parses and prints.
 */
import type { Database } from "bun:sqlite";
import { accessSync, constants, existsSync } from "node:fs";
import { hubSecrets, loadOrCreateKey } from "../auth/keys.ts";
import type { TotpSecrets } from "../auth/totp.ts";
import type { Config } from "../config/load.ts";
import type { Catalogue, Region } from "../domain/catalogue.ts";
import { closeDatabase, migrate, openDatabase } from "../db/open.ts";
import { FieldImportRefusal, importField, type ImportOptions, type ImportOutcome } from "./import.ts";
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

function run(source: FieldSource, target: Database, options: ImportOptions): ImportOutcome {
  try {
    return importField(source, target, options);
  } catch (error) {
    if (error instanceof FieldImportRefusal) throw new FieldImportError(`import refused, nothing was changed: ${error.message}`);
    throw error;
  }
}

export type Progress = (done: number, total: number) => void;

export interface FieldImportResult extends ImportOutcome {
  readonly source: string;
}

/** The field's file, checked to be its database; every reason it is not is a refusal. */
export function openSource(from: string): FieldSource {
  try {
    return FieldSource.open(from);
  } catch (error) {
    if (error instanceof FieldSourceError) throw new FieldImportError(`import refused, nothing was changed: ${error.message}`);
    throw error;
  }
}

/**
 * The command's run, on the file, when no hub serves it. `lock` takes the
 * server lock, held while this process writes (a dry run only reads), so
 * that no hub starts writing beside it.
 */
export function runFieldImport(config: Config, from: string, dryRun: boolean, progress: Progress, lock: () => { release(): void }): FieldImportResult {
  const source = openSource(from);
  const base = { catalogue: config.catalogue, now: Date.now(), progress };
  try {
    if (dryRun) {
      // Read-only; an absent database is what a first start would make, empty.
      const target = existsSync(config.db) ? openForReading(config.db) : emptyTarget();
      try {
        return { ...run(source, target, { ...base, totpSecrets: null, dryRun: true }), source: source.path };
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
    const held = lock();
    try {
      const db = openDatabase(config.db);
      try {
        migrate(db);
        const { totpSecrets } = hubSecrets(loadOrCreateKey(config.db, config.secretKey).bytes, config.sessionSecret);
        return { ...run(source, db.sqlite, { ...base, totpSecrets, dryRun: false }), source: source.path };
      } finally {
        closeDatabase(db);
      }
    } finally {
      held.release();
    }
  } finally {
    source.close();
  }
}

export interface ServedTarget {
  /** The serving hub's own connection: the one writer. */
  readonly sqlite: Database;
  readonly catalogue: Catalogue;
  readonly totpSecrets: TotpSecrets;
  readonly now: number;
}

/**
 * The serving hub's run, on its own connection, of a file the command named
 * by its absolute path. The hub may run as another user than the command
 * (systemd's DynamicUser), so a file it cannot read is refused as such, not
 * as a file that is missing or is not the field's.
 */
export function runFieldImportInHub(target: ServedTarget, from: string, dryRun: boolean, progress: Progress): FieldImportResult {
  try {
    accessSync(from, constants.R_OK);
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "";
    throw new FieldImportError(
      `import refused, nothing was changed: the hub serving this database cannot read ${from}${code ? ` (${code})` : ""}; it runs as user id ${process.getuid?.() ?? "unknown"}, perhaps with its own view of the file system (systemd DynamicUser, PrivateTmp); make the file readable to it, or stop the hub and run import-field again`,
    );
  }
  const source = openSource(from);
  try {
    return { ...run(source, target.sqlite, { catalogue: target.catalogue, now: target.now, totpSecrets: dryRun ? null : target.totpSecrets, dryRun, progress }), source: source.path };
  } finally {
    source.close();
  }
}

/** Everything the import on a worker thread (src/field/import-worker.ts) needs from the hub; the key stays in memory between the hub's threads. */
export interface FieldImportJob {
  readonly db: string;
  readonly from: string;
  readonly dryRun: boolean;
  /** The operator's regions, after the built-in ones every catalogue starts with. */
  readonly extraRegions: readonly Region[];
  readonly key: Uint8Array;
  readonly sessionSecret: string | null;
  readonly now: number;
}

export type FieldImportReport =
  | { readonly type: "progress"; readonly done: number; readonly total: number }
  | { readonly type: "done"; readonly result: FieldImportResult }
  | { readonly type: "refused"; readonly message: string }
  | { readonly type: "failed"; readonly message: string };

/**
 * Runs the serving hub's import on a worker thread (`import-worker.ts`, at
 * `script`) and settles with its result; a refusal rejects with a
 * FieldImportError, anything else with an Error.
 */
export async function runFieldImportOnWorker(script: URL, job: FieldImportJob, progress: Progress): Promise<FieldImportResult> {
  const worker = new Worker(script);
  try {
    return await new Promise<FieldImportResult>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<FieldImportReport>) => {
        const report = event.data;
        if (report.type === "progress") progress(report.done, report.total);
        else if (report.type === "done") resolve(report.result);
        else if (report.type === "refused") reject(new FieldImportError(report.message));
        else reject(new Error(report.message));
      };
      worker.onerror = (event) => reject(new Error(event.message));
      worker.postMessage(job);
    });
  } finally {
    worker.terminate();
  }
}
