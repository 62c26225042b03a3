/** What every part of a running hub shares: configuration, database, log, clock and the live services. */
import type { Alerts } from "./alerts/alerts.ts";
import type { Accounts } from "./auth/accounts.ts";
import type { BackupService } from "./backup/service.ts";
import type { Config } from "./config/load.ts";
import type { AgentEventReports } from "./events/reports.ts";
import type { HubDb } from "./db/open.ts";
import type { ReadingQueries } from "./db/readings.ts";
import type { Storage } from "./db/storage.ts";
import type { AgentDirectory } from "./live/agents.ts";
import type { ClockCheck } from "./live/clock.ts";
import type { GripFanout } from "./fanout/grip.ts";
import type { GripNodeStats } from "./fanout/node-stats.ts";
import type { EventBook } from "./live/events.ts";
import type { Forecasts } from "./live/forecasts.ts";
import type { Ingest } from "./live/ingest.ts";
import type { AuditRetention } from "./live/audit-retention.ts";
import type { Retention } from "./live/retention.ts";
import type { LiveStore } from "./live/store.ts";
import type { StreamHub } from "./live/streams.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import type { Push } from "./push/push.ts";
import type { RuntimeSettings } from "./settings.ts";

export interface HubContext {
  readonly config: Config;
  readonly db: HubDb;
  /** Whether writes can succeed, and the one way to make them (SPEC §16.2). */
  readonly storage: Storage;
  readonly log: Logger;
  /** Epoch milliseconds; tests replace it to move time. */
  readonly now: () => number;
  readonly startedAt: number;
  readonly settings: RuntimeSettings;
  readonly agents: AgentDirectory;
  readonly events: EventBook;
  readonly eventReports: AgentEventReports;
  readonly live: LiveStore;
  readonly streams: StreamHub;
  /** Streams held by GRIP proxies (SPEC §20); null unless GRIP_URL is set. */
  readonly fanout: GripFanout | null;
  /** How many viewers each GRIP node holds, as the nodes report (SPEC §20); null unless GRIP_STATS_URL is set. */
  readonly gripNodes: GripNodeStats | null;
  readonly ingest: Ingest;
  readonly accounts: Accounts;
  readonly metrics: Metrics;
  readonly readings: ReadingQueries;
  readonly forecasts: Forecasts;
  readonly retention: Retention;
  readonly auditRetention: AuditRetention;
  readonly alerts: Alerts;
  readonly push: Push;
  readonly clock: ClockCheck;
  /** Scheduled and on-demand backups off the machine (SPEC §25). */
  readonly backups: BackupService;
}
