import { migrate as applyMigrations, openDatabase } from "../db/open.ts";
import type { Command } from "./command.ts";

export const migrate: Command = {
  name: "migrate",
  usage: "hub migrate [--db FILE]",
  summary: "Apply database migrations and exit",
  flags: [],
  async run({ config, out }) {
    const db = openDatabase(config.db);
    try {
      const applied = applyMigrations(db);
      out(applied.length === 0 ? `${config.db} is up to date` : `applied ${applied.join(", ")} to ${config.db}`);
    } finally {
      db.sqlite.close();
    }
    return 0;
  },
};
