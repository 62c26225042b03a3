import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { keyFilePath } from "../auth/keys.ts";
import { backupDatabase, removeAbandoned } from "../db/backup.ts";
import { CommandError, type Command } from "./command.ts";

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorCode(error: unknown): string {
  return error instanceof Error && "code" in error ? String(error.code) : "";
}

export const backup: Command = {
  name: "backup",
  usage: "hub backup FILE [--db FILE]",
  summary: "Write a consistent copy of the database to FILE, safe beside a running server",
  flags: [],
  async run({ config, args, out }) {
    const target = args.positionals[0];
    if (!target) throw new CommandError("backup needs a target file: hub backup FILE");
    const path = resolve(target);
    if (config.db === ":memory:") throw new CommandError("an in-memory database has nothing to back up; give --db FILE");
    if (!existsSync(config.db)) throw new CommandError(`there is no database at ${config.db}`);
    if (existsSync(path)) throw new CommandError(`${path} already exists; choose a new file name`);
    try {
      for (const name of removeAbandoned(dirname(path))) out(`removed ${name}, left by a backup that did not finish`);
      await backupDatabase(config.db, path);
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw new CommandError(`${path} already exists; choose a new file name`);
      throw new CommandError(`backup to ${path} failed: ${reason(error)}`);
    }
    out(`backup of ${config.db} written to ${path} (${statSync(path).size} bytes)`);
    if (config.secretKey === null) {
      out(`TOTP secrets in it can only be read with the hub's key, ${keyFilePath(config.db)}: keep a copy of that file too, apart from the backups`);
    }
    return 0;
  },
};
