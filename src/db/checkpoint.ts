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
 * what the worker has not yet (what arrived since its last round), and
 * the next write starts the log over. No other connection ever takes the
 * write lock for it, so no request can find the lock taken by the hub itself.
 *
 * While the log grows the worker checkpoints every CHECKPOINT_BUSY_MS, and
 * every CHECKPOINT_INTERVAL_MS once a round finds nothing new. What the
 * writer's own checkpoint has left to copy (and fsync) on the request thread
 * is what arrived since the worker's last round, so short rounds keep that
 * stall small: at 2,000 readings/s, rounds 500 ms apart left tens of
 * megabytes of frames a second to fold back in large steps.
 *
 * The worker is started with the hub's first writes after start-up (the log
 * grown by START_GROWTH_FRAMES, two readings' worth), or at once when the log
 * already holds START_FRAMES (left by a hub that stopped without folding it
 * back), not with the server: a thread with its own JavaScript heap costs a
 * few megabytes, which a hub that writes nothing (an idle one) does not need
 * to carry. Until then SQLite checkpoints on commit at its default 1,000
 * frames, as it does when the worker cannot start.
 */
import { statSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { HubDb } from "./open.ts";
import type { WatchedFiles } from "./storage.ts";

/** What the hub tells the checkpointer (src/db/checkpointer.ts, a worker thread): start on a database, or stop. */
export type CheckpointerMessage =
  | { readonly type: "start"; readonly path: string; readonly intervalMs: number; readonly busyMs: number; readonly files: WatchedFiles | null }
  | { readonly type: "stop" };

/** What the worker tells the hub: it runs, it stopped when asked, or it stopped because the files changed. */
export type CheckpointerReport = "started" | "stopped" | "files-changed";

/** Between two checkpoints while the log stays as it was. */
export const CHECKPOINT_INTERVAL_MS = 500;
/** Between two checkpoints while commits keep adding frames. */
export const CHECKPOINT_BUSY_MS = 50;
/** Frames in the write-ahead log past which the writer's commit checkpoints too, so the log starts over: 16 MiB at 4 KiB pages. */
export const WRITER_FRAMES = 4096;
/** Frames the write-ahead log grows by after start-up that start the worker: two readings' worth; an idle hub adds one at most. */
export const START_GROWTH_FRAMES = 8;
/** Frames a write-ahead log holds at start-up that start the worker at once: over twice what a new database's migrations write. */
export const START_FRAMES = 400;
/** The write-ahead log's header, and each frame's header before its page (the SQLite file format). */
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

export interface CheckpointTuning {
  readonly intervalMs: number;
  readonly busyMs: number;
  readonly writerFrames: number;
  readonly startFrames: number;
  readonly startGrowthFrames: number;
}

/** What `PRAGMA wal_checkpoint` answers: frames in the log, and how many of them are folded back. */
export interface CheckpointRound {
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * How long the worker waits before its next round: the busy spacing while
 * the log changed since the round before (or is not folded back yet), the
 * idle one otherwise.
 */
export function nextCheckpointDelay(previous: CheckpointRound | null, round: CheckpointRound | null, tuning: Pick<CheckpointTuning, "intervalMs" | "busyMs">): number {
  if (round === null) return tuning.intervalMs;
  const settled = round.checkpointed >= round.log && previous !== null && previous.log === round.log && previous.checkpointed === round.checkpointed;
  return settled ? tuning.intervalMs : tuning.busyMs;
}
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

export class BackgroundCheckpoints {
  private worker: Worker | null = null;
  /** Looks at the log's size every intervalMs until the worker is started. */
  private watch: ReturnType<typeof setInterval> | null = null;
  private halted = false;

  constructor(
    private readonly db: HubDb,
    private readonly log: Logger,
    private readonly script: URL = new URL("./checkpointer.ts", import.meta.url),
    private readonly files: WatchedFiles | null = null,
    private readonly tuning: CheckpointTuning = { intervalMs: CHECKPOINT_INTERVAL_MS, busyMs: CHECKPOINT_BUSY_MS, writerFrames: WRITER_FRAMES, startFrames: START_FRAMES, startGrowthFrames: START_GROWTH_FRAMES },
  ) {}

  private automatic(pages: number): void {
    try {
      this.db.sqlite.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // the database is already closed: nothing left to checkpoint
    }
  }

  /** Starts the worker at once if the log holds startFrames frames, else once it has grown by startGrowthFrames. */
  start(): void {
    if (this.worker || this.watch || this.halted || this.db.path === ":memory:") return;
    const pageSize = this.db.sqlite.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
    const frames = (): number => {
      try {
        return Math.max(0, Math.floor((statSync(`${this.db.path}-wal`).size - WAL_HEADER_BYTES) / (FRAME_HEADER_BYTES + pageSize)));
      } catch {
        // no log yet (or its files are gone, which Storage reports): nothing to fold back
        return 0;
      }
    };
    // The log's file keeps its size when SQLite starts it over, so it grows only with frames past the most it held.
    const before = frames();
    if (before >= this.tuning.startFrames) {
      this.startWorker();
      return;
    }
    this.watch = setInterval(() => {
      if (frames() - before < this.tuning.startGrowthFrames) return;
      this.stopWatching();
      this.startWorker();
    }, this.tuning.intervalMs);
    this.watch.unref?.();
  }

  private stopWatching(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  private startWorker(): void {
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
      worker.postMessage({ type: "start", path: this.db.path, intervalMs: this.tuning.intervalMs, busyMs: this.tuning.busyMs, files: this.files } satisfies CheckpointerMessage);
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
    this.halted = true;
    this.stopWatching();
    this.automatic(0);
    this.worker?.terminate();
    this.worker = null;
  }

  /** Stops the worker and gives checkpointing back to SQLite. */
  async stop(): Promise<void> {
    this.stopWatching();
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
