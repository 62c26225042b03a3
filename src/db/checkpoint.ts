/**
 * Checkpoints in the background: SQLite's automatic checkpoint runs on the
 * committing thread and can stall a request for tens of milliseconds on a
 * slow disk, so once a worker thread has taken the job over, the server
 * raises the automatic one's threshold from 1,000 frames to WRITER_FRAMES.
 * If the worker fails, SQLite takes it back.
 *
 * The threshold is not turned off: SQLite starts the log over only when a
 * write begins with every frame already folded back, and under a steady
 * stream of commits one always lands while the worker's PASSIVE checkpoint
 * runs, so the worker alone let the log grow without end (400 MB in 35 s at
 * 2,000 readings/s). Past WRITER_FRAMES the writer's own commit folds back
 * what the worker has not yet (a few hundred milliseconds of commits), and
 * the next write starts the log over. No other connection ever takes the
 * write lock for it, so no request can find the lock taken by the hub itself.
 */
import type { Logger } from "../log.ts";
import type { CheckpointerMessage, CheckpointerReport } from "./checkpointer.ts";
import type { HubDb } from "./open.ts";
import type { WatchedFiles } from "./storage.ts";

export const CHECKPOINT_INTERVAL_MS = 500;
/** Frames in the write-ahead log past which the writer's commit checkpoints too, so the log starts over: 16 MiB at 4 KiB pages. */
export const WRITER_FRAMES = 4096;

export interface CheckpointTuning {
  readonly intervalMs: number;
  readonly writerFrames: number;
}
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export class BackgroundCheckpoints {
  private worker: Worker | null = null;

  constructor(
    private readonly db: HubDb,
    private readonly log: Logger,
    private readonly script: URL = new URL("./checkpointer.ts", import.meta.url),
    private readonly files: WatchedFiles | null = null,
    private readonly tuning: CheckpointTuning = { intervalMs: CHECKPOINT_INTERVAL_MS, writerFrames: WRITER_FRAMES },
  ) {}

  private automatic(pages: number): void {
    try {
      this.db.sqlite.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // the database is already closed: nothing left to checkpoint
    }
  }

  start(): void {
    if (this.worker || this.db.path === ":memory:") return;
    try {
      const worker = new Worker(this.script);
      worker.onmessage = (event: MessageEvent<CheckpointerReport>) => {
        if (event.data === "started" && this.worker === worker) this.automatic(this.tuning.writerFrames);
      };
      worker.onerror = (event) => {
        this.log.warn("background checkpoints are unavailable; SQLite checkpoints on commit", { error: event.message });
        if (this.worker === worker) this.worker = null;
        this.automatic(DEFAULT_AUTOCHECKPOINT_PAGES);
      };
      worker.postMessage({ type: "start", path: this.db.path, intervalMs: this.tuning.intervalMs, files: this.files } satisfies CheckpointerMessage);
      this.worker = worker;
    } catch (error) {
      this.log.warn("background checkpoints are unavailable; SQLite checkpoints on commit", { error });
    }
  }

  /**
   * Ends checkpointing for good, without handing it back to SQLite: the
   * database's files were removed or replaced, and any checkpoint now would
   * write into a file that is no longer the hub's (or from a log that is gone).
   */
  halt(): void {
    this.automatic(0);
    this.worker?.terminate();
    this.worker = null;
  }

  /** Stops the worker and gives checkpointing back to SQLite. */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const stopped = new Promise<void>((resolve) => {
      worker.onmessage = () => resolve();
    });
    worker.postMessage({ type: "stop" } satisfies CheckpointerMessage);
    await Promise.race([stopped, Bun.sleep(2000)]);
    worker.terminate();
    this.automatic(DEFAULT_AUTOCHECKPOINT_PAGES);
  }
}
