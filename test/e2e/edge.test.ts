/**
 * The edge of dist/hub against hostile requests, over raw sockets where a
 * client library would tidy the request up: a short or invalid Host cannot
 * move the path the app routes, a deeply nested JSON body is a fast 400 that
 * never holds up /healthz.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const PASSWORD = "correct horse battery";
const dir = tempDir("hub-edge-");
let hub: RunningHub;
let session: { cookie: string; csrf: string };

/** Sends bytes as they are and returns everything the hub answered until it closed the connection. */
async function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return await new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(20_000, () => socket.destroy());
  });
}

function statusOf(answer: string): number {
  return Number(answer.split(" ")[1]);
}

function bodyOf(answer: string): string {
  return answer.slice(answer.indexOf("\r\n\r\n") + 4);
}

function logLines(): Record<string, unknown>[] {
  return hub
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  hub = await startHub({ cmd: [await compiledHub()], cwd: dir.path, env: { MFA_ENFORCED_ROLES: "", LOG_LEVEL: "debug" } });
  const setup = await fetch(`${hub.url}/api/v1/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "root", password: PASSWORD }),
  });
  expect(setup.status).toBe(201);
  const cookie = (setup.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const view = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
  session = { cookie, csrf: view.csrfToken };
});

afterAll(async () => {
  await hub?.stop();
  dir.cleanup();
});

describe("the path the hub routes is the request's own", () => {
  test("a Host of one to three characters, or an invalid one, does not shift the path", async () => {
    const admin = await fetch(`${hub.url}/api/v1/admin/settings`, { headers: { cookie: session.cookie } });
    expect(admin.status).toBe(200);
    for (const host of ["x", "ab", "abc", "", "a/b"]) {
      const shifted = await rawRequest(hub.url, `GET /xxxxxxxxx/api/v1/admin/settings HTTP/1.1\r\nHost: ${host}\r\nCookie: ${session.cookie}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(shifted)).toBe(404);
      expect(bodyOf(shifted)).toContain("/xxxxxxxxx/api/v1/admin/settings");
      const real = await rawRequest(hub.url, `GET /api/v1/admin/settings HTTP/1.1\r\nHost: ${host}\r\nCookie: ${session.cookie}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(real)).toBe(200);
    }
    await Bun.sleep(100);
    const logged = logLines()
      .filter((line) => line.msg === "request")
      .map((line) => line.path);
    expect(logged).toContain("/xxxxxxxxx/api/v1/admin/settings");
    expect(logged.filter((path) => typeof path === "string" && path.endsWith("/admin/settings") && path !== "/api/v1/admin/settings" && !path.startsWith("/xxxxxxxxx"))).toEqual([]);
  });
});
