/** Runs the app on Bun.serve and shuts it down gracefully. */
import type { Server } from "bun";
import type { HubApp } from "./app.ts";
import type { HubContext } from "./context.ts";
import { rememberSocketAddress, NO_SOCKET_ADDRESS } from "./http/client-ip.ts";
import { MAX_BODY_BYTES } from "./http/errors.ts";

/** How long in-flight requests get to finish once shutdown begins. */
export const SHUTDOWN_GRACE_MS = 5000;

export function listen(ctx: HubContext, app: HubApp): Server<undefined> {
  return Bun.serve({
    hostname: ctx.config.host,
    port: ctx.config.port,
    development: false,
    reusePort: false,
    // Slightly above the limit so the app, not Bun, answers oversized bodies with a problem detail.
    maxRequestBodySize: MAX_BODY_BYTES * 2,
    idleTimeout: 60,
    fetch(request, server) {
      rememberSocketAddress(request, server.requestIP(request)?.address ?? NO_SOCKET_ADDRESS);
      return app.fetch(request);
    },
  });
}

/** Stops accepting, lets in-flight requests finish (at most the grace period), then closes what remains. */
export async function drain(server: Server<undefined>): Promise<void> {
  const graceful = server.stop(false);
  const timedOut = Symbol("timeout");
  const outcome = await Promise.race([graceful.then(() => null), Bun.sleep(SHUTDOWN_GRACE_MS).then(() => timedOut)]);
  if (outcome === timedOut) await server.stop(true);
}
