/**
 * A worker thread that folds the write-ahead log back into the database
 * every so often, more often while the log grows (a PASSIVE checkpoint never
 * blocks the writer). Running it here keeps the checkpoint's disk writes and
 * fsync off the thread that answers requests. Before each checkpoint it makes sure the files are still
 * the ones the hub opened: folding a log into a file that replaced the
 * database, or from a log nobody else can see, would corrupt what remains.
 */
import { Database } from "bun:sqlite";
import { nextCheckpointDelay, type CheckpointerMessage, type CheckpointerReport, type CheckpointRound } from "./checkpoint.ts";
import { filesChanged } from "./storage.ts";

declare const self: Worker;

let db: Database | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;

function halt(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

/** One PASSIVE checkpoint; null when it could not run (busy or closing: the next round tries again). */
function checkpoint(): CheckpointRound | null {
  try {
    return db?.query<CheckpointRound, []>("PRAGMA wal_checkpoint(PASSIVE)").get() ?? null;
  } catch {
    return null;
  }
}

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message.type === "start") {
    db = new Database(message.path);
    db.exec("PRAGMA busy_timeout = 1000");
    const { path, files } = message;
    let previous: CheckpointRound | null = null;
    const round = (): void => {
      if (files && filesChanged(path, files) !== null) {
        halt();
        self.postMessage("files-changed" satisfies CheckpointerReport);
        return;
      }
      const done = checkpoint();
      timer = setTimeout(round, nextCheckpointDelay(previous, done, message));
      previous = done;
    };
    timer = setTimeout(round, message.busyMs);
    self.postMessage("started" satisfies CheckpointerReport);
    return;
  }
  halt();
  db?.close();
  db = null;
  self.postMessage("stopped" satisfies CheckpointerReport);
};
