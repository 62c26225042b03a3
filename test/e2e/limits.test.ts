/**
 * The abuse limits through the compiled binary, where the code is minified:
 * the per-client caps, the body deadline, access before the body, and log
 * lines that carry the real client address.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { startHub } from "./harness.ts";

const dir = tempDir("hub-limits-");
const sockets: Socket[] = [];
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  dir.cleanup();
});

/** A raw POST whose headers promise 100 bytes of body but only one is sent; `text` is what came back. */
async function trickle(url: string, path: string): Promise<{ socket: Socket; reply: () => string; closed: () => boolean }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  sockets.push(socket);
  let text = "";
  let closed = false;
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => {});
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(`POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`);
  return { socket, reply: () => text, closed: () => closed };
}

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}

describe("limits in dist/hub", () => {
  test("per-client caps, the body deadline, access before the body, and the client's address in the log", async () => {
    const binary = await compiledHub();
    const hub = await startHub({
      cmd: [binary],
      cwd: dir.path,
      env: { MAX_REQUESTS_PER_CLIENT: "2", MAX_STREAMS_PER_CLIENT: "2", BODY_TIMEOUT_MS: "3000", LOG_LEVEL: "debug" },
    });
    try {
      const held = [await trickle(hub.url, "/api/v1/auth/login"), await trickle(hub.url, "/api/v1/auth/login")];
      let refused: Response | null = null;
      for (const deadline = performance.now() + 10_000; refused === null && performance.now() < deadline; ) {
        const probe = await fetch(`${hub.url}/healthz`);
        if (probe.status === 503) refused = probe;
        else await probe.arrayBuffer();
      }
      expect(refused?.headers.get("retry-after")).toBe("5");
      expect(refused?.headers.get("x-frame-options")).toBe("DENY");
      expect((await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).status).toBe(503);
      for (const request of held) request.socket.write(`${" ".repeat(98)}}`);
      expect(await until(() => held.every((request) => request.reply().startsWith("HTTP/1.1 400")))).toBe(true);

      const streams = [await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`), await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`)];
      expect(streams.map((s) => s.status)).toEqual([200, 200]);
      expect((await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`)).status).toBe(503);
      expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
      for (const stream of streams) await stream.body?.cancel();

      const anonymous = await trickle(hub.url, "/api/v1/admin/agents");
      expect(await until(() => anonymous.reply() !== "")).toBe(true);
      expect(anonymous.reply()).toStartWith("HTTP/1.1 401");

      const slow = await trickle(hub.url, "/api/v1/auth/login");
      const started = performance.now();
      expect(await until(() => slow.closed())).toBe(true);
      expect(performance.now() - started).toBeGreaterThan(2000);
      expect(slow.reply()).toStartWith("HTTP/1.1 408");
    } finally {
      expect(await hub.stop()).toBe(0);
    }
    const lines = hub
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const reasons = lines.filter((l) => l.msg === "refused at a limit").map((l) => [l.ip, String(l.reason).split(" ")[0]]);
    expect(reasons).toEqual([
      ["127.0.0.1", "MAX_REQUESTS_PER_CLIENT"],
      ["127.0.0.1", "MAX_STREAMS_PER_CLIENT"],
      ["127.0.0.1", "body"],
    ]);
    expect(lines.find((l) => l.msg === "access refused")).toMatchObject({ level: "info", ip: "127.0.0.1", status: 401, path: "/api/v1/admin/agents" });
    expect(lines.find((l) => l.msg === "request" && l.path === "/healthz")).toMatchObject({ ip: "127.0.0.1" });
    expect(lines.some((l) => l.level === "error")).toBe(false);
  }, 60_000);
});
