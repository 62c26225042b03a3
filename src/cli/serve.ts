import { acquireServerLock, closeDatabase, openDatabase } from "../db/open.ts";
import { createHub } from "../hub.ts";
import { createLogger } from "../log.ts";
import { drain, listen } from "../server.ts";
import { HUB_VERSION } from "../version.ts";
import { CommandError, type Command } from "./command.ts";

function nextSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const once = (signal: NodeJS.Signals): void => {
      process.off("SIGTERM", once);
      process.off("SIGINT", once);
      resolve(signal);
    };
    process.on("SIGTERM", once);
    process.on("SIGINT", once);
  });
}

export const serve: Command = {
  name: "serve",
  usage: "hub [serve] [flags]",
  summary: "Run the server (the default command)",
  flags: [],
  async run({ config, workers }) {
    const log = createLogger(config.logLevel);
    const lock = acquireServerLock(config.db);
    const db = openDatabase(config.db);
    const hub = createHub(config, { db, log, checkpointer: workers.checkpointer });
    const { ctx, app, applied } = hub;
    if (applied.length > 0) log.info("migrations applied", { applied });
    if (config.sessionSecretGenerated) {
      log.warn("SESSION_SECRET is not set: a random secret is used for this boot only, so sessions and remembered devices end at restart");
    }
    const signal = nextSignal();
    let server;
    try {
      server = listen(ctx, app, hub.nativeRoutes);
    } catch (error) {
      closeDatabase(db);
      lock.release();
      throw new CommandError(`cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
    }
    hub.start();
    log.info("hub listening", { url: `http://${config.host}:${server.port}`, origin: config.origin, db: config.db, version: HUB_VERSION });
    const received = await signal;
    log.info("shutting down", { signal: received });
    await hub.stop();
    await drain(server);
    closeDatabase(db);
    lock.release();
    log.info("stopped");
    return 0;
  },
};
