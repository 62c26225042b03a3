/**
 * A worker thread that folds the write-ahead log back into the database
 * every so often (a PASSIVE checkpoint never blocks the writer). Running it
 * here keeps the checkpoint's disk writes and fsync off the thread that
 * answers requests.
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export type CheckpointerMessage = { readonly type: "start"; readonly path: string; readonly intervalMs: number } | { readonly type: "stop" };

let db: Database | null = null;
let timer: ReturnType<typeof setInterval> | null = null;

self.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
  const message = event.data;
  if (message.type === "start") {
    db = new Database(message.path);
    db.exec("PRAGMA busy_timeout = 1000");
    timer = setInterval(() => {
      try {
        db?.exec("PRAGMA wal_checkpoint(PASSIVE)");
      } catch {
        // busy or closing: the next round tries again
      }
    }, message.intervalMs);
    self.postMessage("started");
    return;
  }
  if (timer) clearInterval(timer);
  db?.close();
  db = null;
  self.postMessage("stopped");
};
