import { existsSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { keyFilePath } from "../auth/keys.ts";
import { createPrivateFile, openDatabase } from "../db/open.ts";
import { CommandError, type Command } from "./command.ts";

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
    if (config.db !== ":memory:" && !existsSync(config.db)) throw new CommandError(`there is no database at ${config.db}`);
    const db = openDatabase(config.db);
    try {
      // The copy holds what the database holds (password hashes among it), so it is made owner-only before a byte
      // is written; VACUUM INTO accepts an empty file, and an exclusive create never overwrites an existing one.
      try {
        createPrivateFile(path);
      } catch (error) {
        if (error instanceof Error && "code" in error && error.code === "EEXIST") throw new CommandError(`${path} already exists; choose a new file name`);
        throw new CommandError(`cannot create ${path}: ${reason(error)}`);
      }
      try {
        db.sqlite.query("VACUUM INTO ?").run(path);
      } catch (error) {
        rmSync(path, { force: true });
        throw new CommandError(`backup to ${path} failed: ${reason(error)}`);
      }
    } finally {
      db.sqlite.close();
    }
    out(`backup of ${config.db} written to ${path} (${statSync(path).size} bytes)`);
    if (config.db !== ":memory:" && config.secretKey === null) {
      out(`TOTP secrets in it can only be read with the hub's key, ${keyFilePath(config.db)}: keep a copy of that file too, apart from the backups`);
    }
    return 0;
  },
};
