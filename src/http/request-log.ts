/**
 * At debug level, one JSON log line per request: method, path (never the
 * query), status, duration and client. Timing every request costs the hot
 * path, so it only happens when the log wants it.
 */
import { Elysia } from "elysia";
import type { TrustedProxies } from "../domain/net.ts";
import type { Logger } from "../log.ts";
import { clientIp } from "./client-ip.ts";

export function requestLog(log: Logger, trust: TrustedProxies) {
  const plugin = new Elysia({ name: "hub/request-log" });
  if (!log.enabled("debug")) return plugin;
  const started = new WeakMap<Request, number>();
  return plugin
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set, server }) => {
      const begin = started.get(request);
      const ms = begin === undefined ? null : Math.round((performance.now() - begin) * 100) / 100;
      log.debug("request", { method: request.method, path, status: typeof set.status === "number" ? set.status : 200, ms, ip: clientIp(request, trust, server) });
    });
}
