/**
 * The retention window. Reads are bounded by it from the moment it exists;
 * readings older than it are pruned at start-up and then hourly, to reclaim
 * the space. Deletes go in small batches with a turn of the event loop between
 * them, so a large first prune never keeps the hub from answering requests.
 * A prune that storage refuses is reported like any refused write (one line
 * per reason a minute, no stack) and tried again at the next round.
 */
import type { ReadingQueries } from "../db/readings.ts";
import { DAY_MS, HOUR_MS } from "../domain/timezone.ts";
import type { Logger } from "../log.ts";

/** Notes a failed write as a storage refusal (health, the once-a-minute line); null when the error is not about storage. */
export type StorageRefusals = (error: unknown) => unknown;

export const PRUNE_INTERVAL_MS = HOUR_MS;
export const PRUNE_BATCH = 5000;

/** Calls `deleteBatch` until it removes less than a batch, yielding to the event loop between batches; resolves to the number removed. */
export async function deleteInBatches(deleteBatch: (limit: number) => number, stopped: () => boolean): Promise<number> {
  let removed = 0;
  for (;;) {
    const n = deleteBatch(PRUNE_BATCH);
    removed += n;
    if (n < PRUNE_BATCH || stopped()) return removed;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (stopped()) return removed;
  }
}

/**
 * Runs a batched prune at start and then every interval, until stopped; a
 * prune under way is shared, not doubled, and ends after its current batch
 * once stopped. Subclasses say what they delete.
 */
export abstract class PeriodicPrune {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<number> | null = null;
  protected stopped = false;

  constructor(private readonly intervalMs: number) {}

  /** Prunes everything due; resolves to the number removed. */
  prune(): Promise<number> {
    this.running ??= this.pruneInBatches().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Prunes now and every interval after, until stopped. */
  start(): void {
    this.stopped = false;
    void this.prune();
    this.timer ??= setInterval(() => void this.prune(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Stops the timer; a prune under way ends after its current batch. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  protected abstract pruneInBatches(): Promise<number>;
}

export class Retention extends PeriodicPrune {
  private readonly retentionMs: number;

  constructor(
    private readonly readings: ReadingQueries,
    retentionDays: number,
    private readonly now: () => number,
    /** Called after a prune that removed readings, to rebuild what depended on them. */
    private readonly onPruned: (removed: number) => void,
    private readonly log: Logger,
    private readonly storageRefusal: StorageRefusals,
    intervalMs = PRUNE_INTERVAL_MS,
  ) {
    super(intervalMs);
    this.retentionMs = retentionDays * DAY_MS;
    // Before the first prune ends (or after a restart with a shorter window) old readings are still stored; they must not show meanwhile.
    readings.limitTo(() => this.cutoff());
  }

  /** Readings measured before this instant are hidden and due for pruning. */
  cutoff(): number {
    return this.now() - this.retentionMs;
  }

  protected async pruneInBatches(): Promise<number> {
    const before = this.cutoff();
    let removed = 0;
    try {
      removed = await deleteInBatches((limit) => this.readings.pruneBatch(before, limit), () => this.stopped);
    } catch (error) {
      if (!this.storageRefusal(error)) this.log.error("pruning old readings failed", { error });
    }
    if (removed > 0) {
      this.log.info("old readings pruned", { removed, before: new Date(before).toISOString() });
      if (!this.stopped) this.onPruned(removed);
    }
    return removed;
  }
}
