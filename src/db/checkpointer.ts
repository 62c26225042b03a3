/**
 * A worker thread that folds the write-ahead log back into the database
 * every so often (a PASSIVE checkpoint never blocks the writer). Running it
 * here keeps the checkpoint's disk writes and fsync off the thread that
 * answers requests. Before each checkpoint it makes sure the files are still
 * the ones the hub opened: folding a log into a file that replaced the
 * database, or from a log nobody else can see, would corrupt what remains.
 *
 * SQLite starts the log over only when a write begins with every frame
 * already folded back; under a steady stream of commits one always lands
 * while a checkpoint runs, so a PASSIVE checkpoint alone lets the log grow
 * without end (400 MB in 35 s at 2,000 readings/s). Once the log passes
 * restartFrames, a RESTART checkpoint follows the PASSIVE one: it takes the
 * write lock only when it is free at that moment (busy timeout 0, tried again
 * a millisecond later, for a while, then at the next round), folds back the
 * few frames committed meanwhile, and makes the next commit write the log
 * from its start. The hub's next write may find the lock taken for those few
 * milliseconds and retry (Storage.write).
 */
import { Database } from "bun:sqlite";
import { filesChanged, type WatchedFiles } from "./storage.ts";

declare const self: Worker;

export type CheckpointerMessage =
  | { readonly type: "start"; readonly path: string; readonly intervalMs: number; readonly restartFrames: number; readonly files: WatchedFiles | null }
  | { readonly type: "stop" };

/** What the worker tells the hub: it runs, it stopped when asked, or it stopped because the files changed. */
export type CheckpointerReport = "started" | "stopped" | "files-changed";

const BUSY_TIMEOUT_MS = 1000;
const RESTART_TRIES = 20;

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

function checkpoint(connection: Database, restartFrames: number): void {
  const passive = connection.query<CheckpointResult, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
  if (!passive || passive.log < restartFrames) return;
  connection.exec("PRAGMA busy_timeout = 0");
  try {
    // The hub holds the write lock only while it commits, so a few tries a millisecond apart find it free.
    for (let tries = 1; connection.query<CheckpointResult, []>("PRAGMA wal_checkpoint(RESTART)").get()?.busy === 1 && tries < RESTART_TRIES; tries++) Bun.sleepSync(1);
  } finally {
    connection.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

function halt(): void {
  if (timer) clearInterval(timer);
  timer = null;
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message.type === "start") {
    const connection = new Database(message.path);
    connection.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db = connection;
    const { path, files, restartFrames } = message;
    timer = setInterval(() => {
      if (files && filesChanged(path, files) !== null) {
        halt();
        self.postMessage("files-changed" satisfies CheckpointerReport);
        return;
      }
      try {
        checkpoint(connection, restartFrames);
      } catch {
        // busy or closing: the next round tries again
      }
    }, message.intervalMs);
    self.postMessage("started" satisfies CheckpointerReport);
    return;
  }
  halt();
  db?.close();
  db = null;
  self.postMessage("stopped" satisfies CheckpointerReport);
};
