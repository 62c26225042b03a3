import { acquireServerLock, closeDatabase, migrate, openDatabase } from "../db/open.ts";
import { latencyHost } from "../domain/catalogue.ts";
import { htmlCsp } from "../http/security.ts";
import { webNotFoundPage, webRoutes } from "../http/web.ts";
import { createHub } from "../hub.ts";
import { createLogger } from "../log.ts";
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

export const serve: Command = {
  name: "serve",
  usage: "hub [serve] [flags]",
  summary: "Run the server (the default command)",
  flags: [],
  async run({ config: configured, workers }) {
    const log = createLogger(configured.logLevel);
    const demo = configured.demo ? demoDirectory() : null;
    const config = demo ? { ...configured, db: demo.db } : configured;
    const lock = acquireServerLock(config.db);
    const db = openDatabase(config.db);
    if (demo) {
      migrate(db);
      const seeded = seedDemoHistory(db, config.catalogue.regions, Date.now());
      log.info("demo mode: a throw-away database, removed at exit", { db: demo.db, readings: seeded.rows, days: DEMO_DAYS });
    }
    const https = config.origin.startsWith("https:");
    const csp = htmlCsp(config.latencyProbes ? config.catalogue.regions.map((r) => latencyHost(r.id)) : []);
    const hub = createHub(config, { db, log, checkpointer: workers.checkpointer, notFoundPage: webNotFoundPage(https, csp) });
    const { ctx, app, applied } = hub;
    if (applied.length > 0) log.info("migrations applied", { applied });
    const signal = nextSignal();
    const web = webRoutes(https, csp);
    let server;
    try {
      server = listen(ctx, app, { ...web, ...hub.nativeRoutes });
    } catch (error) {
      closeDatabase(db);
      lock.release();
      throw new CommandError(`cannot listen on ${config.host}:${config.port}: ${error instanceof Error ? error.message : String(error)}`);
    }
    hub.start();
    log.info("hub listening", { url: `http://${config.host}:${server.port}`, origin: config.origin, db: config.db, version: HUB_VERSION });
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
    await hub.stop();
    await drain(server);
    closeDatabase(db);
    lock.release();
    demo?.remove();
    log.info("stopped");
    return 0;
  },
};
