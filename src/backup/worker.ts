/**
 * A worker thread that makes one backup for the serving hub: the snapshot's
 * copy, the compression, the encryption and the hashing all take CPU that
 * the thread answering requests must not lose (SPEC §25: no request delayed
 * by more than 100 ms). Its thread runs at the lowest priority.
 */
import { runBackup, type BackupRunResult } from "./run.ts";
import type { TargetSpec } from "../config/backup-target.ts";
import { openTarget, type S3Credentials } from "./target.ts";

declare const self: Worker;

export interface BackupWorkerRequest {
  readonly dbPath: string;
  readonly spec: TargetSpec;
  readonly credentials: S3Credentials;
  readonly keep: number;
  readonly passphrase: string | null;
  readonly iterations?: number;
}

export type BackupWorkerReply = { readonly ok: true; readonly result: BackupRunResult } | { readonly ok: false; readonly message: string };

self.onmessage = async (event: MessageEvent<BackupWorkerRequest>) => {
  const request = event.data;
  let reply: BackupWorkerReply;
  try {
    const result = await runBackup({
      dbPath: request.dbPath,
      target: openTarget(request.spec, request.credentials),
      keep: request.keep,
      passphrase: request.passphrase,
      ...(request.iterations === undefined ? {} : { iterations: request.iterations }),
    });
    reply = { ok: true, result };
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  self.postMessage(reply);
};
