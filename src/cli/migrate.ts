import { sendToHub, writerFor, type HubWriter } from "./control-client.ts";
import { CONTROL_ROUTES, type SchemaState } from "../control/protocol.ts";
import { migrate as applyMigrations, openDatabase } from "../db/open.ts";
import { MIGRATIONS } from "../db/migrations.ts";
import { CommandError, type Command } from "./command.ts";

/**
 * The migrations the served database lacks. A serving hub applied its own at
 * start and is the file's one writer, so beside it `hub migrate` only asks.
 */
async function pending(hub: HubWriter): Promise<string[]> {
  const done = new Set((await sendToHub<SchemaState>(hub, CONTROL_ROUTES.schema)).versions);
  return MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.name);
}

export const migrate: Command = {
  name: "migrate",
  usage: "hub migrate [--db FILE]",
  summary: "Apply database migrations and exit",
  flags: [],
  words: 0,
  settings: ["db"],
  async run({ config, out }) {
    const writer = writerFor(config.db);
    if (writer.kind === "hub") {
      const missing = await pending(writer);
      if (missing.length > 0) {
        throw new CommandError(`a hub is serving ${config.db}, which lacks ${missing.join(", ")}; stop it, then run hub migrate (or start this version of the hub, which migrates at start)`);
      }
      out(`${config.db} is up to date`);
      return 0;
    }
    try {
      const db = openDatabase(config.db);
      try {
        const applied = applyMigrations(db);
        out(applied.length === 0 ? `${config.db} is up to date` : `applied ${applied.join(", ")} to ${config.db}`);
      } finally {
        db.sqlite.close();
      }
    } finally {
      writer.release();
    }
    return 0;
  },
};
