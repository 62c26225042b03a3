/** Builds a hub's shared context and app from a Config: the same path for the server and the tests. */
import { createApp, type HubApp } from "./app.ts";
import type { Config } from "./config/load.ts";
import type { HubContext } from "./context.ts";
import { migrate, openDatabase, type HubDb } from "./db/open.ts";
import { createLogger, type Logger } from "./log.ts";

export interface Hub {
  readonly ctx: HubContext;
  readonly app: HubApp;
  /** Migrations applied while opening. */
  readonly applied: readonly string[];
}

export interface HubOptions {
  readonly db?: HubDb;
  readonly log?: Logger;
  readonly now?: () => number;
}

export function createHub(config: Config, options: HubOptions = {}): Hub {
  const log = options.log ?? createLogger(config.logLevel);
  const db = options.db ?? openDatabase(config.db);
  const applied = migrate(db);
  const now = options.now ?? Date.now;
  const ctx: HubContext = { config, db, log, now, startedAt: now() };
  return { ctx, app: createApp(ctx), applied };
}
