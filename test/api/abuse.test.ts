/**
 * One client cannot lock everyone out: bodies have a deadline and are not
 * read before access passed, requests in progress are capped per client, and
 * refusals at a limit are logged once per client and reason per minute.
 * Most of it runs against a listening server, where clients have addresses.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import type { Server } from "bun";
import { CapacityRefusal, REFUSAL_LOG_INTERVAL_MS, RefusalLog } from "../../src/http/errors.ts";
import type { Hub } from "../../src/hub.ts";
import { listen } from "../../src/server.ts";
import { adminHub } from "../admin-helpers.ts";
import { freePort } from "../e2e/harness.ts";
import { expectProblem, json, memoryLog, testHub, type TestHubOptions } from "../helpers.ts";

const servers: Server<unknown>[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await server.stop(true);
});

async function serve(options: TestHubOptions = {}): Promise<{ hub: Hub; url: string; port: number }> {
  const port = await freePort();
  const hub = testHub({ ...options, env: { HOST: "127.0.0.1", PORT: String(port), ...options.env } });
  servers.push(listen(hub.ctx, hub.app, hub.nativeRoutes));
  return { hub, url: `http://127.0.0.1:${port}`, port };
}

/** A raw HTTP/1.1 request whose body never arrives in full: the headers promise more than is sent. */
class Trickle {
  text = "";
  closedAt: number | null = null;
  readonly started = performance.now();

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.text += chunk.toString("latin1");
    });
    socket.on("close", () => {
      this.closedAt = performance.now();
    });
    socket.on("error", () => {});
  }

  static async open(port: number, path: string, headers: Record<string, string> = {}, sent = "{"): Promise<Trickle> {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const lines = Object.entries({ host: "localhost", "content-type": "application/json", "content-length": "100", ...headers }).map(([k, v]) => `${k}: ${v}`);
    socket.write(`POST ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${sent}`);
    return new Trickle(socket);
  }

  /** Sends the rest of the promised body, which makes it `{}` padded to its length. */
  finish(): void {
    this.socket.write(`${" ".repeat(98)}}`);
  }

  get status(): number | null {
    const match = /^HTTP\/1\.1 (\d{3})/.exec(this.text);
    return match ? Number(match[1]) : null;
  }

  header(name: string): string | null {
    const head = this.text.split("\r\n\r\n")[0] ?? "";
    const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
    return line === undefined ? null : line.slice(line.indexOf(":") + 1).trim();
  }

  /** Waits (generously) until the condition holds; false if it never does. */
  async until(condition: () => boolean, timeoutMs = 10_000): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (!condition()) {
      if (performance.now() > deadline) return false;
      await Bun.sleep(5);
    }
    return true;
  }
}

/**
 * Probes until the hub refuses: the slow requests opened before are inside
 * once it does (a probe that still gets in finishes at once and frees its
 * slot), so nothing here depends on timing.
 */
async function refusedProbe(probe: () => Promise<Response>): Promise<Response> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    const response = await probe();
    if (response.status === 503) return response;
    await response.arrayBuffer();
  }
  throw new Error("the hub never refused");
}

describe("request bodies", () => {
  test("a body that has not arrived in full by the deadline gets 408, with the security headers, and its connection is closed", async () => {
    const { log, lines } = memoryLog("info");
    const { port } = await serve({ log, env: { BODY_TIMEOUT_MS: "300" } });
    const slow = await Trickle.open(port, "/api/v1/auth/login");
    expect(await slow.until(() => slow.closedAt !== null)).toBe(true);
    expect(slow.status).toBe(408);
    expect((slow.closedAt ?? 0) - slow.started).toBeGreaterThanOrEqual(300);
    expect(slow.header("content-type")).toStartWith("application/problem+json");
    expect(slow.header("x-content-type-options")).toBe("nosniff");
    expect(slow.header("x-frame-options")).toBe("DENY");
    expect(slow.header("connection")).toBe("close");
    expect(slow.text).toContain('"status":408');
    const logged = lines.filter((l) => l.msg === "refused at a limit");
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "warn", ip: "127.0.0.1", status: 408, path: "/api/v1/auth/login" });
    expect(String(logged[0]?.reason)).toContain("body not received within 300 ms");
  });

  test("a streamed body that sends a byte and stalls gets 408 through fetch too", async () => {
    const { url } = await serve({ env: { BODY_TIMEOUT_MS: "300" } });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("{"));
      },
    });
    const started = performance.now();
    const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    expect(response.status).toBe(408);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expectProblem(response);
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect((await json(response)).title).toBe("Request Timeout");
  });

  test("a body with a declared length within the limit is read in one call, not through a stream reader; one without a length through a reader", async () => {
    const hub = testHub();
    const login = (body: string, headers: Record<string, string>) =>
      hub.app.handle(new Request("http://localhost/api/v1/auth/login", { method: "POST", body, headers: { "content-type": "application/json", ...headers } }));
    const getReader = ReadableStream.prototype.getReader;
    let readers = 0;
    ReadableStream.prototype.getReader = function (this: ReadableStream, ...args: Parameters<typeof getReader>) {
      readers++;
      return getReader.apply(this, args);
    } as typeof getReader;
    try {
      const declared = await login("{}", { "content-length": "2" });
      expect(declared.status).toBe(400);
      expect((await json(declared)).detail).toContain("username");
      expect(readers).toBe(0);
      const unknown = await login("{}", {});
      expect(unknown.status).toBe(400);
      expect((await json(unknown)).detail).toContain("username");
      expect(readers).toBe(1);
    } finally {
      ReadableStream.prototype.getReader = getReader;
    }
  });

  test("a body longer than the limit is 413 on either path, even when it declares a length within it", async () => {
    const hub = testHub();
    const big = `{"username":"${"x".repeat(1_100_000)}"}`;
    const post = (headers: Record<string, string>) =>
      hub.app.handle(new Request("http://localhost/api/v1/auth/login", { method: "POST", body: big, headers: { "content-type": "application/json", ...headers } }));
    for (const headers of [{ "content-length": "2" }, {}] as Record<string, string>[]) {
      const response = await post(headers);
      expect(response.status).toBe(413);
      expectProblem(response);
    }
  });

  test("a body that declares a length over the limit is 413 before a byte of it is read", async () => {
    const { port } = await serve({ env: { BODY_TIMEOUT_MS: "60000" } });
    const huge = await Trickle.open(port, "/api/v1/auth/login", { "content-length": String(2 * 1024 * 1024) });
    expect(await huge.until(() => huge.status !== null)).toBe(true);
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('"status":413');
    expect(performance.now() - huge.started).toBeLessThan(30_000);
  });

  test("a body is not read at all before the route's access rule passed", async () => {
    const { hub, admin } = await adminHub();
    let pulls = 0;
    const nested = new TextEncoder().encode("[".repeat(64 * 1024));
    const send = (headers: Record<string, string>) => {
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulls++;
            controller.enqueue(nested);
            if (pulls % 16 === 0) controller.close();
          },
        },
        { highWaterMark: 0 },
      );
      const request = new Request("http://localhost/api/v1/admin/agents", { method: "POST", body, headers: { "content-type": "application/json", ...headers }, duplex: "half" } as RequestInit);
      return hub.app.handle(request);
    };
    const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

    const anonymous = await send({});
    expect(anonymous.status).toBe(401);
    const badKey = await send({ authorization: "Bearer hub_not-a-real-key-0000000000000000000000" });
    expect(badKey.status).toBe(401);
    const noCsrf = await send({ cookie });
    expect(noCsrf.status).toBe(403);
    expect(pulls).toBe(0);

    // The same request, allowed, reads the whole megabyte (and refuses it as JSON): the counter counts.
    const allowed = await send({ cookie, "x-csrf-token": admin.csrf ?? "" });
    expect(allowed.status).toBe(400);
    expect(pulls).toBe(16);
  });

  test("against a listening server, a refused caller gets 401 at once while its body is still on the way", async () => {
    const { port } = await serve({ env: { BODY_TIMEOUT_MS: "60000" } });
    const anonymous = await Trickle.open(port, "/api/v1/admin/agents");
    expect(await anonymous.until(() => anonymous.status !== null)).toBe(true);
    expect(anonymous.status).toBe(401);
    // Far below the body deadline: the hub answered without waiting for (or reading) the body.
    expect(performance.now() - anonymous.started).toBeLessThan(30_000);
    expect(anonymous.header("x-content-type-options")).toBe("nosniff");
  });
});

describe("requests in progress per client", () => {
  const A = { "x-forwarded-for": "198.51.100.1" };
  const B = { "x-forwarded-for": "198.51.100.2" };

  test("the default cap is 64: beyond it 503 with Retry-After; streams do not count; other clients are unaffected; a finished request frees its slot", async () => {
    const { hub, url, port } = await serve({ env: { TRUSTED_PROXIES: "127.0.0.1", BODY_TIMEOUT_MS: "60000" } });
    expect(hub.ctx.config.maxRequestsPerClient).toBe(64);
    const get = (path: string, headers: Record<string, string>) => fetch(`${url}${path}`, { headers });

    // Answers of every kind first: had any of them kept its slot, fewer than 64 would be left below.
    expect((await get("/healthz", A)).status).toBe(200);
    expect((await get("/nowhere", A)).status).toBe(404);
    expect((await fetch(`${url}/healthz`, { method: "DELETE", headers: A })).status).toBe(405);
    expect((await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { ...A, "content-type": "application/json" }, body: "{}" })).status).toBe(400);
    expect((await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { ...A, "content-type": "text/plain" }, body: "x" })).status).toBe(415);
    expect((await fetch(`${url}/api/v1/admin/agents`, { method: "POST", headers: { ...A, "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    expect((await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { ...A, "content-type": "application/json" }, body: "x".repeat(1_500_000) })).status).toBe(413);
    expect((await get("/api/v1/platforms/Windows/incentives", A)).status).toBe(200);
    const streams: Response[] = [];
    for (let i = 0; i < 32; i++) {
      const stream = await get("/api/v1/platforms/Windows/incentives/stream", A);
      expect(stream.status).toBe(200);
      streams.push(stream);
    }

    const held: Trickle[] = [];
    for (let i = 0; i < 64; i++) held.push(await Trickle.open(port, "/api/v1/auth/login", A));
    const refused = await refusedProbe(() => get("/healthz", A));
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
    expectProblem(refused);
    expect((await json(refused)).detail).toContain("64 requests in progress");
    expect(held.every((request) => request.text === "")).toBe(true);
    expect((await get("/api/v1/platforms/Windows/incentives", A)).status).toBe(503);

    expect((await get("/healthz", B)).status).toBe(200);
    expect((await get("/api/v1/platforms/Windows/incentives", B)).status).toBe(200);

    const first = held[0];
    if (!first) throw new Error("no request");
    first.finish();
    expect(await first.until(() => first.status !== null)).toBe(true);
    expect(first.status).toBe(400);
    expect((await get("/healthz", A)).status).toBe(200);
    expect((await get("/api/v1/platforms/Windows/incentives", A)).status).toBe(200);
    for (const stream of streams) await stream.body?.cancel();
  });

  test("refusals at the cap are logged once per client per minute, at warn, without a stack", async () => {
    const { log, lines } = memoryLog("info");
    let now = Date.parse("2026-11-21T18:00:00.000Z");
    const { url, port } = await serve({ log, now: () => now, env: { TRUSTED_PROXIES: "127.0.0.1", MAX_REQUESTS_PER_CLIENT: "1", BODY_TIMEOUT_MS: "60000" } });
    const refusedOf = async (headers: Record<string, string>, times: number) => {
      let refused = 0;
      for (let i = 0; i < times; i++) if ((await fetch(`${url}/healthz`, { headers })).status === 503) refused++;
      return refused;
    };
    const refusalLines = () => lines.filter((l) => l.msg === "refused at a limit");
    await Trickle.open(port, "/api/v1/auth/login", A);
    await refusedProbe(() => fetch(`${url}/healthz`, { headers: A }));
    await Trickle.open(port, "/api/v1/auth/login", B);
    await refusedProbe(() => fetch(`${url}/healthz`, { headers: B }));
    expect(refusalLines().map((l) => l.ip)).toEqual(["198.51.100.1", "198.51.100.2"]);
    expect(await refusedOf(A, 100)).toBe(100);
    expect(await refusedOf(B, 10)).toBe(10);
    expect(refusalLines()).toHaveLength(2);

    now += REFUSAL_LOG_INTERVAL_MS;
    expect(await refusedOf(A, 5)).toBe(5);
    const logged = refusalLines();
    expect(logged.map((l) => l.ip)).toEqual(["198.51.100.1", "198.51.100.2", "198.51.100.1"]);
    expect(logged[2]).toMatchObject({ level: "warn", ip: "198.51.100.1", status: 503, method: "GET", path: "/healthz", unloggedSinceLastLine: 100 });
    expect(String(logged[2]?.reason)).toContain("MAX_REQUESTS_PER_CLIENT");
    expect(lines.some((l) => l.level === "error" || l.msg === "storage unavailable" || JSON.stringify(l).includes("stack"))).toBe(false);
  });
});

describe("the refusal log", () => {
  test("100 refusals of one client in a minute make one line; another client its own; a minute later a new line", () => {
    const { log, lines } = memoryLog("info");
    let now = 1_000_000;
    const refusals = new RefusalLog(log, () => now);
    const refusal = (ip: string) => new CapacityRefusal(503, "full", ip, "MAX_STREAMS_PER_CLIENT (32) open streams from this client");
    for (let i = 0; i < 100; i++) {
      refusals.note(refusal("203.0.113.5"));
      now += 500;
    }
    expect(lines).toHaveLength(1);
    refusals.note(refusal("::ffff:203.0.113.6"));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ ip: "203.0.113.6" });
    now = 1_000_000 + REFUSAL_LOG_INTERVAL_MS;
    refusals.note(refusal("203.0.113.5"));
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ level: "warn", ip: "203.0.113.5", status: 503, unloggedSinceLastLine: 99 });
    // A different limit reached by the same client is a different story, told once too.
    refusals.note(new CapacityRefusal(408, "slow", "203.0.113.5", "body not received within 10000 ms"));
    refusals.note(new CapacityRefusal(408, "slow", "203.0.113.5", "body not received within 10000 ms"));
    expect(lines).toHaveLength(4);
  });
});
