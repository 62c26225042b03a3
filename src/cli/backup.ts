import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { keyFilePath } from "../auth/keys.ts";
import { BACKUP_TARGET_ALLOWED } from "../config/backup-target.ts";
import { runBackup } from "../backup/run.ts";
import { targetFrom } from "../backup/settings.ts";
import { BackupTargetError, type BackupTarget } from "../backup/target.ts";
import { backupDatabase, removeAbandoned } from "../db/backup.ts";
import { CommandError, type Command, type CommandInput } from "./command.ts";

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error ? String(error.code) : "";
}

function keyReminder({ config, out }: CommandInput): void {
  if (config.secretKey === null) {
    out(`TOTP secrets in it can only be read with the hub's key, ${keyFilePath(config.db)}: keep a copy of that file too, apart from the backups`);
  }
}

/**
 * A one-off backup is as private as the scheduled ones: without the
 * passphrase (a shell that lacks the service's environment), a backup into
 * a target that holds encrypted ones is refused unless asked for.
 */
async function refuseBesideEncrypted(target: BackupTarget): Promise<void> {
  let stored;
  try {
    stored = await target.list();
  } catch (error) {
    throw new CommandError(`${reason(error)}; nothing was written`);
  }
  if (!stored.some((backup) => backup.encrypted)) return;
  throw new CommandError(
    `${target.description} holds encrypted backups, and BACKUP_ENCRYPTION_KEY (or BACKUP_ENCRYPTION_KEY_FILE) is not set here, so this one would not be: set it as the hub has it, or add --unencrypted to write it unencrypted anyway; nothing was written`,
  );
}

/** `hub backup --to TARGET`: one backup like the scheduled ones, to a folder or an S3 bucket. */
async function backupToTarget(input: CommandInput, given: string | undefined): Promise<number> {
  const { config, out } = input;
  const chosen = targetFrom(config, given);
  if (!chosen) throw new CommandError(given === undefined ? "backup --to needs a target, or set BACKUP_TARGET" : `"${given}" is not a backup target: expected ${BACKUP_TARGET_ALLOWED}`);
  const unencrypted = input.args.command.get("unencrypted") === "true";
  if (config.backupEncryptionKey === null && !unencrypted) await refuseBesideEncrypted(chosen.target);
  try {
    const result = await runBackup({ dbPath: config.db, target: chosen.target, keep: config.backupKeep, passphrase: unencrypted ? null : config.backupEncryptionKey });
    out(`backup ${result.name} written to ${result.target} and checked (${result.bytes} bytes, SHA-256 ${result.sha256}, ${result.encrypted ? "encrypted" : "not encrypted"}, ${result.durationMs} ms)`);
    for (const name of result.deleted) out(`deleted ${name}: more than ${config.backupKeep} backups were kept`);
    if (result.retentionError) out(`older backups could not be deleted: ${result.retentionError}`);
  } catch (error) {
    if (error instanceof BackupTargetError) throw new CommandError(`${error.message}; older backups were kept`);
    throw new CommandError(`backup to ${chosen.target.description} failed: ${reason(error)}; older backups were kept`);
  }
  keyReminder(input);
  return 0;
}

export const backup: Command = {
  name: "backup",
  usage: "hub backup FILE [--db FILE] | hub backup --to TARGET [--unencrypted]",
  summary: "Write a consistent copy of the database to FILE, or a checked, compressed (and encrypted) backup to a folder or s3://bucket/prefix",
  flags: [
    { name: "to", takesValue: true, arg: "TARGET", help: "Make a checked, compressed backup like the scheduled ones in a folder or s3://bucket/prefix (default: BACKUP_TARGET), encrypted when BACKUP_ENCRYPTION_KEY is set" },
    {
      name: "unencrypted",
      takesValue: false,
      help: "With --to: write the backup unencrypted, even with BACKUP_ENCRYPTION_KEY set; needed to write one into a target that holds encrypted backups without the passphrase",
    },
  ],
  words: 1,
  settings: ["db", "backupTarget", "backupKeep", "backupEncryptionKey", "backupS3Endpoint", "backupS3Region", "backupS3AccessKeyId", "backupS3SecretAccessKey"],
  async run(input) {
    const { config, args, out } = input;
    if (config.db === ":memory:") throw new CommandError("an in-memory database has nothing to back up; give --db FILE");
    if (!existsSync(config.db)) throw new CommandError(`there is no database at ${config.db}`);
    const target = args.positionals[0];
    if (args.command.has("to") || (target === undefined && config.backupTarget !== null)) return await backupToTarget(input, args.command.get("to"));
    if (!target) throw new CommandError("backup needs a target: hub backup FILE, or hub backup --to TARGET");
    if (args.command.has("unencrypted")) throw new CommandError("--unencrypted goes with --to TARGET: a copy to FILE is a plain database, never encrypted");
    const path = resolve(target);
    if (existsSync(path)) throw new CommandError(`${path} already exists; choose a new file name`);
    try {
      for (const name of removeAbandoned(dirname(path))) out(`removed ${name}, left by a backup that did not finish`);
      await backupDatabase(config.db, path);
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw new CommandError(`${path} already exists; choose a new file name`);
      throw new CommandError(`backup to ${path} failed: ${reason(error)}`);
    }
    out(`backup of ${config.db} written to ${path} (${statSync(path).size} bytes)`);
    keyReminder(input);
    return 0;
  },
};
