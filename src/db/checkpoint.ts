/**
 * Checkpoints in the background: SQLite's automatic checkpoint runs on the
 * committing thread and can stall a request for tens of milliseconds on a
 * slow disk, so once a worker thread has taken the job over, the server
 * turns the automatic one off. If the worker fails, SQLite takes it back.
 */
import type { Logger } from "../log.ts";
import type { CheckpointerMessage, CheckpointerReport } from "./checkpointer.ts";
import type { HubDb } from "./open.ts";
import type { WatchedFiles } from "./storage.ts";

export const CHECKPOINT_INTERVAL_MS = 500;
/** Frames (pages) in the write-ahead log past which the worker makes the next commit start it over: 16 MiB at 4 KiB pages. */
export const RESTART_FRAMES = 4096;

export interface CheckpointTuning {
  readonly intervalMs: number;
  readonly restartFrames: number;
}
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export class BackgroundCheckpoints {
  private worker: Worker | null = null;

  constructor(
    private readonly db: HubDb,
    private readonly log: Logger,
    private readonly script: URL = new URL("./checkpointer.ts", import.meta.url),
    private readonly files: WatchedFiles | null = null,
    private readonly tuning: CheckpointTuning = { intervalMs: CHECKPOINT_INTERVAL_MS, restartFrames: RESTART_FRAMES },
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
        if (event.data === "started" && this.worker === worker) this.automatic(0);
      };
      worker.onerror = (event) => {
        this.log.warn("background checkpoints are unavailable; SQLite checkpoints on commit", { error: event.message });
        if (this.worker === worker) this.worker = null;
        this.automatic(DEFAULT_AUTOCHECKPOINT_PAGES);
      };
      worker.postMessage({ type: "start", path: this.db.path, ...this.tuning, files: this.files } satisfies CheckpointerMessage);
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
