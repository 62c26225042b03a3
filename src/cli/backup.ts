import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { openDatabase } from "../db/open.ts";
import { CommandError, type Command } from "./command.ts";

export const backup: Command = {
  name: "backup",
  usage: "hub backup FILE [--db FILE]",
  summary: "Write a consistent copy of the database to FILE, safe beside a running server",
  flags: [],
  async run({ config, args, out }) {
    const target = args.positionals[0];
    if (!target) throw new CommandError("backup needs a target file: hub backup FILE");
    const path = resolve(target);
    if (existsSync(path)) throw new CommandError(`${path} already exists; choose a new file name`);
    if (config.db !== ":memory:" && !existsSync(config.db)) throw new CommandError(`there is no database at ${config.db}`);
    const db = openDatabase(config.db);
    try {
      db.sqlite.query("VACUUM INTO ?").run(path);
    } catch (error) {
      throw new CommandError(`backup to ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      db.sqlite.close();
    }
    out(`backup of ${config.db} written to ${path} (${statSync(path).size} bytes)`);
    return 0;
  },
};
