/** Runs the app on Bun's server (through Elysia, so routes use Bun's native router) and shuts it down gracefully. */
import type { Server } from "bun";
import type { HubApp } from "./app.ts";
import type { HubContext } from "./context.ts";
import { MAX_BODY_BYTES } from "./http/errors.ts";

/** How long in-flight requests get to finish once shutdown begins. */
export const SHUTDOWN_GRACE_MS = 5000;

export function listen(ctx: HubContext, app: HubApp): Server<unknown> {
  app.listen({
    hostname: ctx.config.host,
    port: ctx.config.port,
    development: false,
    reusePort: false,
    // Slightly above the limit so the app, not Bun, answers oversized bodies with a problem detail.
    maxRequestBodySize: MAX_BODY_BYTES * 2,
    idleTimeout: 60,
  });
  if (!app.server) throw new Error("the server did not start");
  return app.server;
}

/** Stops accepting, lets in-flight requests finish (at most the grace period), then closes what remains. */
export async function drain(server: Server<unknown>): Promise<void> {
  const graceful = server.stop(false);
  const timedOut = Symbol("timeout");
  const outcome = await Promise.race([graceful.then(() => null), Bun.sleep(SHUTDOWN_GRACE_MS).then(() => timedOut)]);
  if (outcome === timedOut) await server.stop(true);
}
