/**
 * Every request is timed once: the duration feeds the metrics (by route
 * template, so unknown paths cannot grow them) and, at debug level, one JSON
 * log line with method, path (never the query), status, duration and client.
 */
import { Elysia } from "elysia";
import type { TrustedProxies } from "../domain/net.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import { clientIp } from "./client-ip.ts";

export function requestObserver(log: Logger, trust: TrustedProxies, metrics: Metrics) {
  const started = new WeakMap<Request, number>();
  const debug = log.enabled("debug");
  return new Elysia({ name: "hub/observe" })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, path, route, set }) => {
      const begin = started.get(request);
      const ms = begin === undefined ? 0 : performance.now() - begin;
      const status = typeof set.status === "number" ? set.status : 200;
      metrics.observe(request.method, route || "unmatched", status, ms / 1000);
      if (debug) log.debug("request", { method: request.method, path, status, ms: Math.round(ms * 100) / 100, ip: clientIp(request, trust) });
    });
}
