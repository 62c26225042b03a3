/**
 * A file written in small synced steps. On ext4 a commit's fsync waits for
 * other files' pending data, so hundreds of megabytes of unsynced backup
 * would stall the serving hub's next commit; syncing every 256 KiB keeps
 * what stands between the hub and its own syncs small (as `hub backup` does).
 */
import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { Writable } from "node:stream";

const SYNC_EVERY_BYTES = 256 * 1024;

/** A writable stream into a new file (`wx`, 0600) or onto the end of one (`a`), synced as it goes and at the end. */
export function syncedFile(path: string, flags: "wx" | "a"): Writable {
  const fd = openSync(path, flags, 0o600);
  let unsynced = 0;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    closeSync(fd);
  };
  return new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      try {
        let written = 0;
        while (written < chunk.byteLength) written += writeSync(fd, chunk, written, chunk.byteLength - written);
        unsynced += chunk.byteLength;
        if (unsynced >= SYNC_EVERY_BYTES) {
          fsyncSync(fd);
          unsynced = 0;
        }
        done();
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)));
      }
    },
    final(done) {
      try {
        fsyncSync(fd);
        close();
        done();
      } catch (error) {
        done(error instanceof Error ? error : new Error(String(error)));
      }
    },
    destroy(error, done) {
      try {
        close();
      } finally {
        done(error);
      }
    },
  });
}
