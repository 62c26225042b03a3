/**
 * A request that may write waits for the database's write lock before its
 * handler runs, asynchronously and for at most WRITE_WAIT_MS (SPEC §16.2), so
 * another process holding the lock delays only writes, never the requests
 * around them; then a 503 with Retry-After. Routes that retry their own
 * write (the agents' readings, the hot path) are left to do so.
 */
import { Elysia } from "elysia";
import type { Storage, StorageRefusal } from "../db/storage.ts";
import { HttpProblem } from "../domain/problem.ts";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function storageGate(storage: Storage, ownRetries: ReadonlySet<string>) {
  return new Elysia({ name: "http/storage-gate" }).onBeforeHandle({ as: "global" }, async ({ request, route }) => {
    if (SAFE_METHODS.has(request.method) || ownRetries.has(route)) return;
    await storage.writable();
  });
}

/** The one answer to a write storage refused, over HTTP and the control socket alike. */
export function storageProblem(refusal: StorageRefusal): HttpProblem {
  return new HttpProblem(503, refusal.message, { headers: { "retry-after": String(refusal.retryAfterSeconds) } });
}
