/** GET …/incentives/stream: the live payload as Server-Sent Events. */
import { Elysia, t } from "elysia";
import type { Server } from "bun";
import type { HubContext } from "../context.ts";
import type { Access } from "../http/access.ts";
import { clientIp } from "../http/client-ip.ts";
import { receivedRequest } from "../http/incentives.ts";
import type { ConnectionId } from "../live/send-queues.ts";
import { PlatformParams, problems, requirePlatform } from "../http/schemas.ts";

/** The request's TCP connection as the kernel lists it: the peer's address and port and the hub's port; null on a Unix socket or in-process. */
function connectionOf(request: Request, server: Server<unknown> | null): ConnectionId | null {
  const peer = server?.requestIP(receivedRequest(request));
  const localPort = server?.port;
  if (!peer || !peer.port || !localPort) return null;
  return { remoteAddress: peer.address, remotePort: peer.port, localPort };
}

export function streamRoutes(ctx: HubContext, access: Access) {
  return new Elysia({ name: "routes/stream", prefix: "/api/v1" }).use(access.plugin).get(
    "/platforms/:platform/incentives/stream",
    async ({ params, request, server }) => {
      const platform = requirePlatform(params.platform);
      // Caps and presence of held streams are the proxy's: it keeps the connections.
      if (ctx.fanout && (await ctx.fanout.isProxied(request))) return ctx.fanout.hold(platform, request, `/api/v1/platforms/${platform}/incentives/stream`);
      return ctx.streams.connect(platform, {
        lastEventId: request.headers.get("last-event-id"),
        viewer: clientIp(request, ctx.config.trustedProxies, server),
        maxPerClient: ctx.config.maxStreamsPerClient,
        signal: request.signal,
        connection: connectionOf(request, server),
      });
    },
    {
      access: "public-read",
      params: PlatformParams,
      headers: t.Object({ "last-event-id": t.Optional(t.String()) }),
      response: {
        200: t.String({
          description:
            "text/event-stream. Each message: `event: message`, `id: <revision>`, `retry: 3000`, `data: <IncentivesPayload on one line>`. " +
            "The current payload comes first (unless Last-Event-ID equals the current revision), then one message per content change; `: ping` every 15 s.",
        }),
        ...problems(401, 404, 503),
      },
      detail: {
        tags: ["incentives"],
        summary: "Live incentives stream",
        description:
          "Server-Sent Events carrying the IncentivesPayload each time it changes. The revision in `id` grows with every change and never goes backwards, " +
          "even across restarts. A request signed by a GRIP proxy (a valid `Grip-Sig` whose `exp` is at most an hour and five seconds ahead) is answered with hold instructions and the same first bytes; the proxy keeps the connection. Beyond MAX_STREAMS open streams in all, or MAX_STREAMS_PER_CLIENT from one client address, the hub answers 503 with Retry-After. " +
          "A client that stops reading is closed (and counted in hub_streams_dropped_total) once its unsent bytes, the connection's kernel send queue plus what the hub holds, pass 1 MiB, or that queue has not drained for STREAM_STALL_MS (60 s); reading the queue needs Linux's /proc and a TCP listener.",
        "x-media-type": "text/event-stream",
        "x-response-headers": { 200: ["Cache-Control"] },
      },
    },
  );
}
