/**
 * Runs the hub through Elysia's listen, so every route is served by Bun's
 * native router (which also parses paths correctly whatever the Host), with
 * the hot path added as a Bun-native route ahead of the app; shuts it down
 * gracefully.
 */
import type { BunRequest, Server } from "bun";
import type { HubApp } from "./app.ts";
import type { HubContext } from "./context.ts";
import { MAX_BODY_BYTES } from "./http/errors.ts";

/** How long in-flight requests get to finish once shutdown begins. */
export const SHUTDOWN_GRACE_MS = 5000;

export type NativeRoutes = Record<string, { GET: (request: BunRequest<string>, server: Server<unknown>) => Response | Promise<Response> }>;

export function listen(ctx: HubContext, app: HubApp, routes: NativeRoutes): Server<unknown> {
  app.config.serve = { ...app.config.serve, routes };
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
