/**
 * Scheduled backups in the serving hub (SPEC §25): runs on BACKUP_SCHEDULE
 * and on demand ("Back up now"), one at a time, each in a worker thread.
 * A failed run is tried again with backoff; the second failure in a row
 * fires `backup.failed` to the status webhooks, once until a run succeeds.
 */
import type { Logger } from "../log.ts";
import type { BackupRunResult } from "./run.ts";
import { describeBackupSchedule, nextBackupAt } from "../config/backup-schedule.ts";
import { s3Credentials, type BackupConfig } from "./settings.ts";
import { describeTargetSpec } from "../config/backup-target.ts";
import { openTarget, type BackupTarget, type StoredBackup } from "./target.ts";
import type { BackupWorkerReply, BackupWorkerRequest } from "./worker.ts";

export interface BackupStatus {
  /** When the last backup that succeeded was taken, epoch ms. */
  readonly last: number | null;
  /** Size of that backup, bytes. */
  readonly lastBytes: number | null;
  /** Why the last run failed, when it did after the last success. */
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  /** When the next scheduled run (or retry) starts, epoch ms. */
  readonly next: number | null;
  readonly running: boolean;
  readonly target: string | null;
  readonly schedule: string;
}

/** Refusals the admin API turns into 409 problems. */
export class BackupUnavailable extends Error {
  override readonly name = "BackupUnavailable";
}

export interface BackupServiceDeps {
  readonly config: BackupConfig & { readonly db: string; readonly tz: string | null };
  readonly log: Logger;
  readonly now: () => number;
  /** Where the worker script is (inside the compiled binary, found from its entry point). */
  readonly worker: URL;
  /** Fires `backup.failed` to the webhooks that listen for status. */
  readonly onFailedTwice: (data: BackupFailedData) => void;
  /** Delays before the retries of a failed run; tests shorten them. */
  readonly retryDelaysMs?: readonly number[];
  /** PBKDF2 rounds; tests lower them. */
  readonly iterations?: number;
}

const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];

export class BackupService {
  readonly target: BackupTarget | null;
  private last: { at: number; bytes: number } | null = null;
  private lastError: { at: number; message: string } | null = null;
  private failures = 0;
  private alerted = false;
  private next: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<BackupRunResult> | null = null;
  /** The worker of the run under way, and how to end its promise when the hub stops first. */
  private worker: { readonly thread: Worker; readonly abandon: (error: Error) => void } | null = null;
  private started = false;

  constructor(private readonly deps: BackupServiceDeps) {
    const { config } = deps;
    this.target = config.backupTarget ? openTarget(config.backupTarget, s3Credentials(config)) : null;
  }

  status(): BackupStatus {
    const { config } = this.deps;
    return {
      last: this.last?.at ?? null,
      lastBytes: this.last?.bytes ?? null,
      lastError: this.lastError?.message ?? null,
      lastErrorAt: this.lastError?.at ?? null,
      next: this.next,
      running: this.running !== null,
      target: config.backupTarget ? describeTargetSpec(config.backupTarget) : null,
      schedule: describeBackupSchedule(config.backupSchedule),
    };
  }

  /** Learns the newest backup at the target, then plans the first run. */
  start(): void {
    if (this.started || !this.target) return;
    this.started = true;
    void this.target
      .list()
      .then((list) => {
        const newest = list.at(-1);
        if (newest && this.last === null) this.last = { at: newest.createdAt, bytes: newest.size };
      })
      .catch((error: unknown) => this.deps.log.warn("the backup target could not be listed", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        if (this.started && this.running === null && this.timer === null) this.plan(null);
      });
  }

  /** Stops the schedule and ends a run under way: what it left beside the database is removed by the next process's first run. */
  stop(): void {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.next = null;
    if (this.worker) {
      this.worker.thread.terminate();
      this.worker.abandon(new Error("the hub stopped during the backup"));
      this.worker = null;
    }
  }

  async list(): Promise<StoredBackup[]> {
    if (!this.target) throw new BackupUnavailable("no backup target is set (BACKUP_TARGET)");
    return await this.target.list();
  }

  /** Starts a run now (throws BackupUnavailable when there is no target or one runs); resolves when it ends, rejects when it fails. */
  runNow(): Promise<BackupRunResult> {
    if (!this.target) throw new BackupUnavailable("no backup target is set (BACKUP_TARGET)");
    if (this.running) throw new BackupUnavailable("a backup is running already");
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const run = this.inWorker().finally(() => {
      this.running = null;
    });
    this.running = run;
    run.then(
      (result) => this.succeeded(result),
      (error: unknown) => {
        // A run the hub's stop ended is no failure of the target's.
        if (this.started) this.failed(error instanceof Error ? error.message : String(error));
      },
    );
    return run;
  }

  private inWorker(): Promise<BackupRunResult> {
    const { config } = this.deps;
    const spec = config.backupTarget;
    if (!spec) return Promise.reject(new BackupUnavailable("no backup target is set (BACKUP_TARGET)"));
    return new Promise((resolve, reject) => {
      const worker = new Worker(this.deps.worker);
      this.worker = { thread: worker, abandon: reject };
      const done = (): void => {
        worker.terminate();
        if (this.worker?.thread === worker) this.worker = null;
      };
      worker.onmessage = (event: MessageEvent<BackupWorkerReply>) => {
        done();
        if (event.data.ok) resolve(event.data.result);
        else reject(new Error(event.data.message));
      };
      worker.onerror = (event) => {
        done();
        reject(new Error(`the backup worker failed: ${event.message}`));
      };
      const request: BackupWorkerRequest = {
        dbPath: config.db,
        spec,
        credentials: s3Credentials(config),
        keep: config.backupKeep,
        passphrase: config.backupEncryptionKey,
        ...(this.deps.iterations === undefined ? {} : { iterations: this.deps.iterations }),
      };
      worker.postMessage(request);
    });
  }

  private succeeded(result: BackupRunResult): void {
    this.last = { at: result.createdAt, bytes: result.bytes };
    this.lastError = null;
    this.failures = 0;
    this.alerted = false;
    this.deps.log.info("backup written and checked", { name: result.name, target: result.target, bytes: result.bytes, durationMs: result.durationMs, deleted: result.deleted.length });
    if (result.retentionError) this.deps.log.warn("older backups could not be deleted", { error: result.retentionError });
    this.plan(null);
  }

  private failed(message: string): void {
    const now = this.deps.now();
    this.failures += 1;
    this.lastError = { at: now, message };
    this.deps.log.error("backup failed; older backups were kept", { error: message, failures: this.failures });
    if (this.failures >= 2 && !this.alerted) {
      this.alerted = true;
      this.deps.onFailedTwice({
        target: this.status().target ?? "",
        error: message,
        failures: this.failures,
        lastSuccessAt: this.last ? new Date(this.last.at).toISOString() : null,
      });
    }
    const delays = this.deps.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.plan(now + (delays[Math.min(this.failures, delays.length) - 1] ?? 60_000));
  }

  /** Sets the timer for the next scheduled run, or, after a failure, for its retry. */
  private plan(retryAt: number | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.started) return;
    const { config } = this.deps;
    const now = this.deps.now();
    this.next = retryAt ?? nextBackupAt(config.backupSchedule, now, this.last?.at ?? null, config.tz ?? undefined);
    if (this.next === null) return;
    // Timers fire at most ~24.8 days ahead; a longer wait is planned again when it fires.
    const delay = Math.min(Math.max(0, this.next - now), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.deps.now() + 50 < (this.next ?? 0)) {
        this.plan(retryAt);
        return;
      }
      try {
        this.runNow().catch(() => undefined);
      } catch (error) {
        // A run started by hand meanwhile plans the next one when it ends.
        if (!(error instanceof BackupUnavailable)) throw error;
      }
    }, delay);
    this.timer.unref?.();
  }
}

/** Two backup runs failed in a row (SPEC §25); sent to the webhooks that listen for status. */
export interface BackupFailedData {
  /** Where backups go: a path or an s3:// address, never a credential. */
  readonly target: string;
  readonly error: string;
  /** Failed runs in a row. */
  readonly failures: number;
  /** ISO time of the last backup that succeeded, or null. */
  readonly lastSuccessAt: string | null;
}
