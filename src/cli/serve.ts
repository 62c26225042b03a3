import { dirname, join } from "node:path";
import { ControlSocketUnavailable, startControlSocket } from "../control/server.ts";
import { acquireServerLock, closeDatabase, migrate, openDatabase, type HubDb } from "../db/open.ts";
import { pageHeads } from "../share/head.ts";
import { unixSocketPath } from "../domain/net.ts";
import { publicDirectory, publicDirRoutes } from "../http/public-dir.ts";
import { htmlCsp } from "../http/security.ts";
import { webNotFoundPage, webRoutes } from "../http/web.ts";
import { createHub } from "../hub.ts";
import { captureConsole, createLogger, type Logger } from "../log.ts";
import { drain, listen } from "../server.ts";
import { DEMO_ADMIN, DEMO_DAYS, DEMO_LANDING, demoDirectory, demoKey, playDemoAgents, seedDemo, type DemoWorld } from "../sim/demo.ts";
import { isFieldDatabase } from "../field/source.ts";
import { HUB_VERSION } from "../version.ts";
import { CommandError, type Command } from "./command.ts";
import { lazyFirstPaints } from "../share/first-paint-loader.ts";

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
  words: 0,
  settings: "all",
  notes: [
    "REQUIRE_AUTH, ENABLE_API_KEYS and MFA_ENFORCED_ROLES are kept in the database: a value given by flag, variable or config file is stored there at every start and locks the console's switch. Remove the flag and the hub keeps the last value it was given (an admin can change it in the console from then on); it does not go back to the default.",
  ],
  async run({ config: configured, workers }) {
    const log = createLogger(configured.logLevel);
    captureConsole(log);
    // Checked before anything is opened, so a wrong folder stops start-up with one line and exit code 2.
    const publicRoot = configured.publicDir === null ? null : publicDirectory(configured.publicDir);
    if (isFieldDatabase(configured.db)) {
      const own = join(dirname(configured.db), "hub.db");
      throw new CommandError(
        `${configured.db} is the field hub's database (the dbPath of its config); this hub keeps its own: run "hub import-field --from ${configured.db} --db ${own}", then start with DB_PATH=${own}`,
      );
    }
    const socket = unixSocketPath(configured.host);
    // The demo's agents post to the hub over TCP.
    if (configured.demo && socket !== null) throw new CommandError("--demo needs a TCP address (--host 127.0.0.1), not a Unix socket");
    const demo = configured.demo ? demoDirectory() : null;
    // The demo's admin signs in with a password alone, and its key lives in memory: nothing of a throw-away hub needs keeping.
    const config = demo ? { ...configured, db: demo.db, secretKey: configured.secretKey ?? demoKey(), mfaEnforcedRoles: [] } : configured;
    const lock = acquireServerLock(config.db);
    const db = openDatabase(config.db);
    let world: DemoWorld | null = null;
    if (demo) {
      migrate(db);
      world = seedDemo(db, config.catalogue.regions, Date.now());
      log.info("demo mode: a throw-away database, removed at exit", { db: demo.db, readings: world.readings, days: DEMO_DAYS, admin: DEMO_ADMIN });
    }
    const https = config.origin.startsWith("https:");
    const csp = htmlCsp(config.latencyProbes ? config.catalogue.regions.map((r) => r.latencyHost) : []);
    const hub = createHub(config, { db, log, checkpointer: workers.checkpointer, backupWorker: workers.backup, notFoundPage: webNotFoundPage(https, csp) });
    const { ctx, app, applied } = hub;
    if (applied.length > 0) log.info("migrations applied", { applied });
    const signal = nextSignal();
    const web =
      publicRoot === null ? webRoutes(https, csp, config.catalogue.regions.map((r) => r.id), pageHeads(ctx), lazyFirstPaints(ctx)) : publicDirRoutes({ root: publicRoot, origin: config.origin, https, csp: config.publicDirCsp, hub: (request) => app.fetch(request) });
    let control;
    try {
      control = startControlSocket(ctx, { reload: hub.reloadExternal, importer: workers.fieldImporter });
    } catch (error) {
      closeDatabase(db);
      lock.release();
      throw error instanceof ControlSocketUnavailable ? new CommandError(error.message) : error;
    }
    let server;
    try {
      server = listen(ctx, app, { ...web, ...hub.nativeRoutes });
    } catch (error) {
      await control?.close();
      closeDatabase(db);
      lock.release();
      const where = socket === null ? `${config.host}:${config.port}` : `unix:${socket}`;
      throw new CommandError(`cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
    hub.start();
    const url = socket === null ? `http://${config.host}:${server.port}` : `unix:${socket}`;
    log.info("hub listening", { url, origin: config.origin, db: config.db, version: HUB_VERSION });
    const agents = new AbortController();
    if (world) {
      const wildcard = config.host === "0.0.0.0" || config.host === "::";
      const self = `http://${wildcard ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
      void playDemoAgents(world.agents, self, agents.signal);
      log.info("demo mode: simulated agents report on every platform and region", { board: config.origin });
    }
    // The one line for people (the JSON log above is for machines). The demo's password is shown here only, never in the log.
    process.stdout.write(`Hub ready: open ${config.origin}/\n`);
    if (world) process.stdout.write(`Demo admin: sign in at ${config.origin}/login?next=${DEMO_LANDING} as "${DEMO_ADMIN}" with the one-time password ${world.password} (this demo only; no second factor).\n`);
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
