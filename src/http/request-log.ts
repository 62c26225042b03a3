/**
 * At debug level, one JSON log line per request: method, path (never the
 * query), status, duration and the client's address. Timing every request
 * costs the hot path, so it only happens when the log wants it.
 */
import { Elysia } from "elysia";
import { viewerKey } from "../auth/presence.ts";
import type { TrustedProxies } from "../domain/net.ts";
import type { Logger } from "../log.ts";
import { clientIp } from "./client-ip.ts";
import { receivedRequest } from "./incentives.ts";

export function requestLog(log: Logger, trust: TrustedProxies) {
  const plugin = new Elysia({ name: "hub/request-log" });
  if (!log.enabled("debug")) return plugin;
  const started = new WeakMap<Request, { at: number; ip: string }>();
  return plugin
    // The address is taken on arrival: once the answer is sent, Bun no longer knows the request's peer.
    .onRequest(({ request, server }) => {
      started.set(request, { at: performance.now(), ip: viewerKey(clientIp(receivedRequest(request), trust, server)) });
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set }) => {
      const begin = started.get(request);
      const ms = begin === undefined ? null : Math.round((performance.now() - begin.at) * 100) / 100;
      log.debug("request", { method: request.method, path, status: typeof set.status === "number" ? set.status : 200, ms, ip: begin?.ip ?? null });
    });
}
