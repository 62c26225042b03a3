import { startControlSocket } from "../control/server.ts";
import { acquireServerLock, closeDatabase, migrate, openDatabase, type HubDb } from "../db/open.ts";
import { webRoutes } from "../http/web.ts";
import { pageHeads } from "../share/head.ts";
import { unixSocketPath } from "../domain/net.ts";
import { createHub } from "../hub.ts";
import { captureConsole, createLogger, type Logger } from "../log.ts";
import { drain, listen } from "../server.ts";
import { DEMO_DAYS, demoDirectory, playDemoAgents, seedDemoHistory } from "../sim/demo.ts";
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

/**
 * The last checkpoint fails on a full or read-only disk; nothing is lost (the
 * log stays beside the database and is applied at the next start), so it is
 * one log line, not a stack trace.
 */
function closeQuietly(db: HubDb, log: Logger): void {
  try {
    closeDatabase(db);
  } catch (error) {
    log.warn("the write-ahead log could not be folded into the database at exit; it stays beside it and is applied at the next start", {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
}

export const serve: Command = {
  name: "serve",
  usage: "hub [serve] [flags]",
  summary: "Run the server (the default command)",
  flags: [],
  async run({ config: configured, workers }) {
    const log = createLogger(configured.logLevel);
    captureConsole(log);
    const socket = unixSocketPath(configured.host);
    // The demo's agents post to the hub over TCP.
    if (configured.demo && socket !== null) throw new CommandError("--demo needs a TCP address (--host 127.0.0.1), not a Unix socket");
    const demo = configured.demo ? demoDirectory() : null;
    const config = demo ? { ...configured, db: demo.db } : configured;
    const lock = acquireServerLock(config.db);
    const db = openDatabase(config.db);
    if (demo) {
      migrate(db);
      const seeded = seedDemoHistory(db, config.catalogue.regions, Date.now());
      log.info("demo mode: a throw-away database, removed at exit", { db: demo.db, readings: seeded.rows, days: DEMO_DAYS });
    }
    const hub = createHub(config, { db, log, checkpointer: workers.checkpointer });
    const { ctx, app, applied } = hub;
    if (applied.length > 0) log.info("migrations applied", { applied });
    const signal = nextSignal();
    const web = webRoutes(config.origin.startsWith("https:"), pageHeads(ctx));
    let server;
    try {
      server = listen(ctx, app, { ...web, ...hub.nativeRoutes });
    } catch (error) {
      closeDatabase(db);
      lock.release();
      const where = socket === null ? `${config.host}:${config.port}` : `unix:${socket}`;
      throw new CommandError(`cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    hub.start();
    const control = startControlSocket(ctx);
    const url = socket === null ? `http://${config.host}:${server.port}` : `unix:${socket}`;
    log.info("hub listening", { url, origin: config.origin, db: config.db, version: HUB_VERSION });
    const agents = new AbortController();
    if (demo) {
      const wildcard = config.host === "0.0.0.0" || config.host === "::";
      const self = `http://${wildcard ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
      void playDemoAgents(db, config.catalogue.regions, self, agents.signal, hub.reloadExternal);
      log.info("demo mode: simulated agents report on every platform and region", { board: config.origin });
    }
    const received = await signal;
    log.info("shutting down", { signal: received });
    agents.abort();
    await control?.close();
    await hub.stop();
    await drain(server);
    // Closing folds the log into the file: never into files that are no longer the hub's. The process's exit lets them go as they are.
    if (ctx.storage.state === "file-missing") log.error("the database's files were removed or replaced: stopped without a checkpoint; check the files, then start the hub again");
    else closeQuietly(db, log);
    lock.release();
    demo?.remove();
    log.info("stopped");
    return 0;
  },
};
