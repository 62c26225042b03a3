/** `hub import-field --from PATH [--dry-run]`: the field hub's database into this one (SPEC §22); the work is in field/. */
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { sendToHub, writerFor } from "./control-client.ts";
import { CONTROL_ROUTES, type ImportedField, type ImportFieldRequest } from "../control/protocol.ts";
import { IMPORT_TABLES } from "../field/import.ts";
import { FieldImportError, openSource, runFieldImport, type FieldImportResult, type Progress } from "../field/run.ts";
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

/**
 * With a hub serving the database, that hub imports (one writer, §16.2) and
 * its progress is printed once it answers; otherwise this process does.
 */
async function importThroughWriter(db: string, onFile: () => FieldImportResult, from: string, dryRun: boolean, progress: Progress): Promise<FieldImportResult> {
  // No hub serves a database that does not exist yet (a hub makes it as it starts); asking would leave a lock file behind a refusal.
  if (!existsSync(db)) return onFile();
  const writer = writerFor(db);
  if (writer.kind === "file") {
    // Let go at once and taken again just before writing, after every check: a hub starting in between is caught then.
    writer.release();
    return onFile();
  }
  // Checked here too, so that a file that is missing or not the field's is refused as the command alone would word it.
  openSource(from).close();
  const request: ImportFieldRequest = { from: resolve(from), dryRun };
  const answer = await sendToHub<ImportedField>(writer, CONTROL_ROUTES.importField, request);
  for (const [done, total] of answer.progress) progress(done, total);
  return { counts: answer.counts, refusedReadings: answer.refusedReadings, passwordsToReset: answer.passwordsToReset, shortened: answer.shortened, source: from };
}

/** The server lock for this process's own write; a hub that started serving since the command looked is a refusal. */
function lockFor(db: string): () => { release(): void } {
  return () => {
    const writer = writerFor(db);
    if (writer.kind === "file") return writer;
    throw new FieldImportError(`a hub started serving ${db} while the import was being checked; run import-field again, and it will go through that hub (nothing was changed)`);
  };
}

export const importFieldCommand: Command = {
  name: "import-field",
  usage: "hub import-field --from PATH [--dry-run] [--db FILE]",
  summary: "Copy the field hub's database (bloodpoint-incentives) into this one: readings, agents, users, passkeys, API keys, settings",
  flags: [
    { name: "from", takesValue: true, arg: "PATH", help: "The field hub's database file (its dbPath, ./data/bloodpoint.db by default)" },
    { name: "dry-run", takesValue: false, help: "Print what would be copied, per table, and write nothing" },
  ],
  words: 0,
  settings: ["db", "secretKey", "sessionSecret"],
  async run({ config, args, out }) {
    const from = args.command.get("from");
    if (!from) throw new CommandError("import-field needs the field hub's database: hub import-field --from ./data/bloodpoint.db");
    if (config.db === ":memory:") throw new CommandError("import-field needs a database file (--db or DB_PATH), not :memory:");
    if (existsSync(config.db) && sameFile(from, config.db)) throw new CommandError(`--from ${from} is this hub's own database; give the field hub's file`);
    const dryRun = args.command.get("dry-run") === "true";
    const progress = (done: number, total: number): void => {
      if (total >= PROGRESS_FROM) out(`readings: ${done} of ${total} (${Math.floor((done * 100) / total)}%)`);
    };
    let result: FieldImportResult;
    try {
      result = await importThroughWriter(config.db, () => runFieldImport(config, from, dryRun, progress, lockFor(config.db)), from, dryRun, progress);
    } catch (error) {
      if (error instanceof FieldImportError) throw new CommandError(error.message);
      throw error;
    }
    for (const table of IMPORT_TABLES) {
      const { copy, present } = result.counts[table];
      out(`${TABLE_NAMES[table]}: ${copy} ${dryRun ? "to copy" : "copied"}, ${present} already here`);
    }
    for (const [reason, count] of Object.entries(result.refusedReadings)) out(`readings refused (not copied): ${count}, ${reason}`);
    const toReset = (reason: string): string[] => result.passwordsToReset.filter((user) => user.reason === reason).map((user) => user.username);
    if (toReset("weak").length > 0) {
      out(`passwords not imported, weaker than the field's own hashes (these users must reset their password): ${toReset("weak").join(", ")}`);
    }
    if (toReset("costly").length > 0) {
      out(`passwords not imported, costlier to check than a sign-in can afford (these users must reset their password): ${toReset("costly").join(", ")}`);
    }
    for (const [what, count] of Object.entries(result.shortened)) out(`${what}: ${count}`);
    out(
      dryRun
        ? `dry run: nothing was written to ${config.db}`
        : `imported ${result.source} into ${config.db}; sessions and remembered devices were not carried, so everyone signs in again`,
    );
    return 0;
  },
};
