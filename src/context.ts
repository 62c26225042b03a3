/** What every part of a running hub shares: configuration, database, log and clock. */
import type { Config } from "./config/load.ts";
import type { HubDb } from "./db/open.ts";
import type { Logger } from "./log.ts";

export interface HubContext {
  readonly config: Config;
  readonly db: HubDb;
  readonly log: Logger;
  /** Epoch milliseconds; tests replace it to move time. */
  readonly now: () => number;
  readonly startedAt: number;
}
