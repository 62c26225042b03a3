/**
 * The serving hub's import (SPEC §16.2, §22) on a thread of its own, with a
 * connection of its own. Copying a million readings holds the write lock for
 * seconds: on the request thread that would stall health, reads and streams
 * with it. Here only writes wait: the hub's own meet a busy lock and answer
 * 503 with Retry-After, as beside any other writer.
 */
import { hubSecrets } from "../auth/keys.ts";
import { openDatabase } from "../db/open.ts";
import { Catalogue } from "../domain/catalogue.ts";
import { FieldImportError, runFieldImportInHub, type FieldImportJob, type FieldImportReport } from "./run.ts";

declare const self: Worker;

function report(message: FieldImportReport): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<FieldImportJob>) => {
  const job = event.data;
  try {
    const db = openDatabase(job.db);
    try {
      const target = { sqlite: db.sqlite, catalogue: new Catalogue(job.extraRegions), totpSecrets: hubSecrets(job.key, job.sessionSecret).totpSecrets, now: job.now };
      const result = runFieldImportInHub(target, job.from, job.dryRun, (done, total) => report({ type: "progress", done, total }));
      report({ type: "done", result });
    } finally {
      // No checkpoint on closing: the hub's checkpointer folds the log, and this connection is not the hub's.
      db.sqlite.close();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    report(error instanceof FieldImportError ? { type: "refused", message } : { type: "failed", message });
  }
};
