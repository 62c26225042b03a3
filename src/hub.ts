/** Builds a hub's shared context and app from a Config: the same path for the server and the tests. */
import { Alerts, type AlertsOptions } from "./alerts/alerts.ts";
import { createApp, type HubApp } from "./app.ts";
import { IncentivesReplies, INCENTIVES_ROUTE, incentivesFastRoute } from "./http/incentives.ts";
import type { NativeRoutes } from "./server.ts";
import { Accounts } from "./auth/accounts.ts";
import { loadOrCreateKey, startSecrets } from "./auth/keys.ts";
import { BackupService, type BackupServiceDeps } from "./backup/service.ts";
import type { Config } from "./config/load.ts";
import { ConfigError } from "./config/load.ts";
import type { OptionTable } from "./config/options.ts";
import type { HubContext } from "./context.ts";
import { BackgroundCheckpoints } from "./db/checkpoint.ts";
import { provisionAgents, ProvisionError } from "./db/agents.ts";
import { migrate, openDatabase, type HubDb } from "./db/open.ts";
import { ReadingQueries } from "./db/readings.ts";
import { Storage, StorageRefusal } from "./db/storage.ts";
import { AgentDirectory } from "./live/agents.ts";
import { ClockCheck } from "./live/clock.ts";
import { AgentEventReports } from "./events/reports.ts";
import { gripAuth, GripFanout } from "./fanout/grip.ts";
import { GripNodeStats } from "./fanout/node-stats.ts";
import { EventBook } from "./live/events.ts";
import { Forecasts } from "./live/forecasts.ts";
import { Ingest } from "./live/ingest.ts";
import { AuditRetention } from "./live/audit-retention.ts";
import { Retention } from "./live/retention.ts";
import { LiveStore } from "./live/store.ts";
import { StreamHub } from "./live/streams.ts";
import { ExternalChanges } from "./live/watch.ts";
import { createLogger, type Logger } from "./log.ts";
import { Metrics } from "./metrics.ts";
import { Push, type PushOptions } from "./push/push.ts";
import { bothEffects } from "./alerts/effects.ts";
import { RuntimeSettings } from "./settings.ts";

export interface Hub {
  readonly ctx: HubContext;
  readonly app: HubApp;
  /** Routes the server hands to Bun's native router ahead of the app (the hot path). */
  readonly nativeRoutes: NativeRoutes;
  /** Migrations applied while opening. */
  readonly applied: readonly string[];
  /** Starts the timers: stale transitions, stream pings, changes made by other processes, retention (which prunes at once, in the background), webhook deliveries. */
  start(): void;
  /** Stops the timers, webhook deliveries and the background checkpoints, and ends every stream. */
  stop(): Promise<void>;
  /** Re-reads everything another process may have changed. */
  reloadExternal(): void;
}

export interface HubOptions {
  /** The app's HTML page, answered with 404 to a browser asking for an unknown page (the serve command's web bundle). */
  readonly notFoundPage?: (request: Request) => Promise<Response>;
  readonly db?: HubDb;
  /** Where the checkpoint worker script is (the default suits running from source). */
  readonly checkpointer?: URL;
  /** Where the backup worker script is (the default suits running from source). */
  readonly backupWorker?: URL;
  /** Backup retry delays and PBKDF2 rounds; tests shorten them. */
  readonly backups?: Pick<BackupServiceDeps, "retryDelaysMs" | "iterations">;
  readonly log?: Logger;
  readonly now?: () => number;
  /** Delivery policy and network for webhooks; tests shorten the one and replace the other. */
  readonly alerts?: AlertsOptions;
  /** Delivery policy and network for Web Push; tests shorten the one and replace the other. */
  readonly push?: PushOptions;
  /** The settings table whose public settings /meta shows; tests pass a copy with one more marked public. */
  readonly settingsTable?: OptionTable;
}

export function createHub(config: Config, options: HubOptions = {}): Hub {
  const log = options.log ?? createLogger(config.logLevel);
  const db = options.db ?? openDatabase(config.db);
  const applied = migrate(db);
  const secrets = startSecrets(db, config, log);
  const now = options.now ?? Date.now;
  const startedAt = now();
  const storage = new Storage(db, { minFreeBytes: config.minFreeMb * 1024 * 1024, log, now });
  // Every background writer reports storage failures here, so they share the one line per reason a minute.
  const refusal = (error: unknown) => storage.refusalFor(error);

  if (config.provision.length > 0) {
    try {
      const { created, updated } = provisionAgents(db.orm, config.provision, startedAt);
      log.info("agents provisioned", { created, updated });
    } catch (error) {
      if (error instanceof ProvisionError) throw new ConfigError(error.message);
      throw error;
    }
  }

  const settings = new RuntimeSettings(db, config, now);
  const accounts = new Accounts(db, config, settings, now, secrets);
  const admin = accounts.bootstrapAdmin();
  if (admin) log.info("first admin created from the configuration", { username: admin.username });
  const agents = new AgentDirectory(db, config.catalogue, { pollMin: config.pollMin, pollMax: config.pollMax });
  const events = new EventBook(db);
  // The retention window bounds every read from here on, so the live values below are rebuilt within it too.
  const readings = new ReadingQueries(db);
  const retention = new Retention(readings, config.retentionDays, now, () => {
    live.rebuildAll();
    ingest.forget();
    forecasts.invalidate();
  }, log, refusal, config.pruneIntervalMs);
  const auditRetention = new AuditRetention(db, config.auditRetentionDays, now, log, refusal, config.pruneIntervalMs);
  const live = new LiveStore(db, config.catalogue, agents, events, config.staleAfter * 1000, now, (error) => {
    if (!refusal(error)) log.error("the revision floor could not be saved", { error });
  });
  const streams = new StreamHub(live, config.maxStreams, config.streamStallMs, now);
  // The key is read again rather than handed out by startSecrets: webhook secrets take their own derivation of it.
  const hubKey = loadOrCreateKey(db.path, config.secretKey).bytes;
  const alerts = new Alerts({ db, config, live, hubKey, now, log, storageRefusal: refusal }, options.alerts);
  // The forecasts are made below; a push message asks for one only when it is sent, long after.
  const push = new Push({ db, config, live, hubKey, now, log, storageRefusal: refusal, eventRate: alerts.eventRate, forecast: (platform, region) => forecasts.get(platform, region) }, options.push);
  const ingest = new Ingest(db, storage, agents, live, now, log, bothEffects(alerts, push), config.maxRequestsPerClient);
  const forecasts = new Forecasts(readings, config.catalogue, config.forecastWindowDays, now);
  const eventReports = new AgentEventReports(db, events, live, now, log);
  ingest.onAccepted((platform, region, reading, agentId) => {
    forecasts.invalidate(platform, region);
    if (reading.activeEvent) eventReports.noteSeen(platform, reading.activeEvent, agentId);
  });
  const metrics = new Metrics();
  const grip = gripAuth(config);
  const fanout = grip ? new GripFanout(config.gripUrl, grip, live, log, (seconds) => metrics.observeGripLag(seconds)) : null;
  const gripNodes = fanout && config.gripStatsUrl.length > 0 ? new GripNodeStats(config.gripUrl, config.gripStatsUrl, now, log) : null;
  const backups = new BackupService({
    config,
    log,
    now,
    worker: options.backupWorker ?? new URL("./backup/worker.ts", import.meta.url),
    onFailedTwice: (data) => alerts.backupFailed(data),
    ...options.backups,
  });
  const ctx: HubContext = { config, db, storage, log, now, startedAt, settings, agents, events, eventReports, live, streams, fanout, gripNodes, ingest, accounts, metrics, readings, forecasts, retention, auditRetention, alerts, push, clock: new ClockCheck(db, now, log), backups };

  const reloadExternal = (): void => {
    settings.reload();
    agents.reload();
    events.reload();
    live.invalidate();
    forecasts.invalidate();
  };
  const watcher = new ExternalChanges(db, reloadExternal);
  const checkpoints = new BackgroundCheckpoints(db, log, options.checkpointer, storage.files);
  storage.onFilesMissing(() => checkpoints.halt());
  let housekeeping: ReturnType<typeof setInterval> | null = null;

  const replies = new IncentivesReplies(ctx);
  const app = createApp(ctx, replies, options.notFoundPage ?? null, options.settingsTable);
  return {
    ctx,
    app,
    nativeRoutes: { [INCENTIVES_ROUTE]: incentivesFastRoute(ctx, replies, (request) => app.fetch(request)) },
    applied,
    reloadExternal,
    start() {
      storage.check();
      storage.start();
      ctx.clock.start();
      checkpoints.start();
      live.start();
      streams.start();
      gripNodes?.start();
      watcher.start();
      retention.start();
      auditRetention.start();
      alerts.start();
      push.start();
      backups.start();
      housekeeping ??= setInterval(() => {
        try {
          storage.writeNow(() => accounts.sessions.pruneExpired());
        } catch (error) {
          // A storage refusal is logged by Storage, and the next round tries again.
          if (!(error instanceof StorageRefusal)) log.error("expired sessions could not be removed", { error });
        }
      }, config.pruneIntervalMs);
      housekeeping.unref?.();
    },
    async stop() {
      if (housekeeping) clearInterval(housekeeping);
      housekeeping = null;
      retention.stop();
      auditRetention.stop();
      backups.stop();
      await alerts.stop();
      await push.stop();
      watcher.stop();
      live.stop();
      streams.closeAll();
      fanout?.stop();
      gripNodes?.stop();
      storage.stop();
      ctx.clock.stop();
      if (storage.state === "file-missing") checkpoints.halt();
      else await checkpoints.stop();
    },
  };
}
