/**
 * The edge of dist/hub against hostile requests, over raw sockets where a
 * client library would tidy the request up: a short or invalid Host cannot
 * move the path the app routes, a deeply nested JSON body is a fast 400 that
 * never holds up /healthz.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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

/** Whether `answer` holds one whole response (its head and a body of its Content-Length). */
function complete(answer: string): boolean {
  const end = answer.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(answer.slice(0, end))?.[1];
  return length !== undefined && answer.length >= end + 4 + Number(length);
}

/** Sends the head, then up to `bodyBytes` of body (chunked or not) as fast as the hub takes it, until the hub has answered. */
async function sendLarge(url: string, head: string, bodyBytes: number, chunked: boolean): Promise<string> {
  const { hostname, port } = new URL(url);
  return await new Promise((resolve) => {
    let answer = "";
    const done = (): void => {
      socket.destroy();
      resolve(answer);
    };
    const socket = connect(Number(port), hostname, async () => {
      socket.write(head);
      const piece = Buffer.alloc(64 * 1024, "x");
      for (let sent = 0; sent < bodyBytes && !socket.destroyed && !complete(answer); sent += piece.length) {
        const data = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]) : piece;
        if (!socket.write(data)) await new Promise((drained) => setTimeout(drained, 5));
      }
    });
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (complete(answer)) done();
    });
    socket.on("close", done);
    socket.on("error", done);
    socket.setTimeout(20_000, done);
  });
}

function headersOf(answer: string): Map<string, string> {
  const lines = answer.slice(0, answer.indexOf("\r\n\r\n")).split("\r\n").slice(1);
  return new Map(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
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
    // The web app's own Bun routes take such requests too.
    const page = await (await fetch(`${hub.url}/`)).text();
    const asset = /src="(\/[^"]+\.js)"/.exec(page)?.[1];
    expect(asset).toBeDefined();
    for (const path of ["/", asset]) {
      const answer = await rawRequest(hub.url, `GET ${path} HTTP/1.1\r\nHost: a/b\r\nConnection: close\r\n\r\n`);
      expect({ path, status: statusOf(answer) }).toEqual({ path, status: 200 });
    }
    await Bun.sleep(100);
    const logged = logLines()
      .filter((line) => line.msg === "request")
      .map((line) => line.path);
    expect(logged).toContain("/xxxxxxxxx/api/v1/admin/settings");
    expect(logged.filter((path) => typeof path === "string" && path.endsWith("/admin/settings") && path !== "/api/v1/admin/settings" && !path.startsWith("/xxxxxxxxx"))).toEqual([]);
  });
});

describe("any Host value", () => {
  test("gets the normal answer or a 400 problem with the security headers, and one JSON log line, never a stack trace", async () => {
    const hosts = ["abcd%", "[::1", "abcd:99999", "[::1]:99999", "%zz", "a%00b", "[zz]", "abcd:", ":80", "[::1]x", "abcd:-1", "abcd:8o", `${"a".repeat(300)}:1`];
    const before = hub.output().split("\n").length;
    for (const host of hosts) {
      for (const path of ["/api/v1/meta", "/", "/healthz", "/no/such/page", "/api/v1/auth/session"]) {
        const answer = await rawRequest(hub.url, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`);
        const status = statusOf(answer);
        expect({ host, path, status: [200, 400, 404, 421].includes(status) ? "answered" : status }).toEqual({ host, path, status: "answered" });
        expect(headersOf(answer).get("x-content-type-options")).toBe("nosniff");
        if (status === 400) expect(headersOf(answer).get("content-type")).toBe("application/problem+json");
      }
    }
    await Bun.sleep(200);
    const lines = hub.output().split("\n").slice(before - 1).filter((line) => line !== "");
    expect(lines.filter((line) => !line.startsWith("{"))).toEqual([]);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((line) => line.level === "error")).toEqual([]);
    // The Hosts that make no URL (all but "abcd:" and the long name) are refused, each with its one request line.
    expect(parsed.filter((line) => line.msg === "request" && line.status === 400).length).toBeGreaterThanOrEqual((hosts.length - 2) * 5);
  });
});

describe("a deeply nested JSON body", () => {
  const nested = (levels: number): string => `{"a":${"[".repeat(levels)}${"]".repeat(levels)}}`;
  const routes: [string, string][] = [
    ["POST", "/api/v1/auth/mfa/passkeys"],
    ["POST", "/api/v1/admin/events"],
    ["PATCH", "/api/v1/admin/events/1"],
    ["POST", "/api/v1/auth/login"],
    ["PATCH", "/api/v1/admin/settings"],
  ];

  test("is refused with a fast 400 on every route while /healthz keeps answering", async () => {
    const baseline = performance.now();
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
    const idle = performance.now() - baseline;
    for (const [method, path] of routes) {
      const started = performance.now();
      const hostile = fetch(`${hub.url}${path}`, {
        method,
        headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
        body: nested(20_000),
      });
      const health = (async () => {
        const sent = performance.now();
        const response = await fetch(`${hub.url}/healthz`);
        return { status: response.status, ms: performance.now() - sent };
      })();
      const [refused, probe] = await Promise.all([hostile, health]);
      const refusedMs = performance.now() - started;
      expect(refused.status).toBe(400);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(((await refused.json()) as { detail: string }).detail).toContain("32 levels");
      expect(probe.status).toBe(200);
      // Before the depth check these took 10 to 27 seconds; the margin is for a loaded machine.
      expect(probe.ms).toBeLessThan(idle + 1000);
      expect(refusedMs).toBeLessThan(2000);
    }
  });

  /** Longer than any honest wait for CPU on a busy machine, far shorter than the stall this guards against. */
  const STALL_MS = 3000;
  test("a wide body at the deepest allowed level is refused by validation without holding up /healthz", async () => {
    // Just under the 1 MiB limit.
    const zeros = Array.from({ length: 520_000 }, () => "0").join(",");
    const body = `{"key":${"[".repeat(31)}${zeros}${"]".repeat(31)}}`;
    const idle: number[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = performance.now();
      await (await fetch(`${hub.url}/healthz`)).arrayBuffer();
      idle.push(performance.now() - sent);
    }
    for (const path of ["/api/v1/admin/events", "/api/v1/auth/mfa/passkeys"]) {
      // The slowest probe of each try. A hub that blocks on the refusal does so every time; a shared machine's
      // scheduler stalls only now and then, so the best of three tries is what the hub itself does.
      const slowest: number[] = [];
      for (let attempt = 0; attempt < 3 && !(slowest.length > 0 && Math.min(...slowest) < Math.max(...idle) + STALL_MS); attempt++) {
        let refusedAt = 0;
        const started = performance.now();
        const hostile = fetch(`${hub.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
          body,
        }).then(async (response) => {
          refusedAt = performance.now();
          return { status: response.status, problem: (await response.json()) as { errors?: { value?: unknown }[] } };
        });
        // Probes while the hostile body is being refused: none may wait behind it.
        const probes: number[] = [];
        do {
          const sent = performance.now();
          await (await fetch(`${hub.url}/healthz`)).arrayBuffer();
          probes.push(performance.now() - sent);
        } while (refusedAt === 0 && performance.now() - started < 5000);
        const refused = await hostile;
        expect(refused.status).toBe(400);
        // The problem never carries the refused value back.
        expect(JSON.stringify(refused.problem).length).toBeLessThan(2000);
        slowest.push(Math.max(...probes));
      }
      // The stall the review found took 10 to 27 s. Walking a megabyte of values is CPU work the event loop waits for,
      // and on a shared machine running other tests that stretches from tens of milliseconds to more than a second
      // (1.5 s seen at a load of 10 on 2 cores), so the bound is a stall, not a speed; the figure is printed.
      console.log(`wide body on ${path}: /healthz waited at most ${Math.min(...slowest).toFixed(0)} ms (idle ${Math.max(...idle).toFixed(0)} ms)`);
      expect(Math.min(...slowest)).toBeLessThan(Math.max(...idle) + STALL_MS);
    }
  });

  test("32 levels are still parsed and validated as usual", async () => {
    const response = await fetch(`${hub.url}/api/v1/admin/events`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
      body: `{"key":${"[".repeat(31)}${"]".repeat(31)}}`,
    });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { detail: string; errors: { location: string }[] };
    expect(problem.detail).not.toContain("levels");
    expect(problem.errors.map((e) => e.location)).toContain("body.key");
  });
});

describe("the log stream", () => {
  test("is JSON lines only, after requests across the routes", async () => {
    const paths = [
      "/",
      "/api/v1/meta",
      "/api/v1/platforms/Windows/incentives",
      "/api/v1/platforms/Windows/coverage",
      "/api/v1/platforms/Windows/regions/eu-west-1/history",
      "/api/v1/platforms/Windows/regions/eu-west-1/forecast",
      "/api/v1/admin/users",
      "/api/v1/admin/agents",
      "/api/v1/admin/audit",
      "/api/v1/auth/session",
      "/openapi.json",
      "/docs",
      "/metrics",
      "/no/such/route",
    ];
    for (const path of paths) await (await fetch(`${hub.url}${path}`, { headers: { cookie: session.cookie } })).arrayBuffer();
    const posts: [string, unknown][] = [
      ["/api/v1/auth/logout", {}],
      ["/api/v1/admin/agents", { label: "x" }],
      ["/api/v1/auth/mfa/totp", {}],
    ];
    for (const [path, body] of posts) {
      const response = await fetch(`${hub.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
    }
    const stream = await fetch(`${hub.url}/api/v1/platforms/Windows/stream`);
    await stream.body?.cancel();
    await Bun.sleep(200);
    const lines = hub.output().split("\n").filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(paths.length);
    // One plain line for people, once, naming where to open the hub; every other line is JSON.
    const ready = `Hub ready: open http://localhost:${new URL(hub.url).port}/`;
    expect(lines.filter((line) => line === ready)).toEqual([ready]);
    const notJson = lines.filter((line) => {
      if (line === ready) return false;
      try {
        return typeof JSON.parse(line) !== "object";
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
  });
});

describe("a healthy hub's log", () => {
  test("carries no library warning a few seconds after start and requests across the routes (Elysia's static analysis understands every hook)", async () => {
    await Bun.sleep(3000);
    const headers = { "content-type": "application/json", cookie: session.cookie, "x-csrf-token": session.csrf };
    for (const [method, path, body] of [
      ["POST", "/api/v1/auth/login", { username: "nobody", password: "wrong password" }],
      ["GET", "/api/v1/admin/agents", undefined],
      ["PATCH", "/api/v1/admin/settings", {}],
      ["GET", "/api/v1/meta", undefined],
      ["GET", "/api/v1/platforms/Windows/incentives", undefined],
      ["POST", "/api/v1/agent/readings", {}],
    ] as const) {
      await (await fetch(`${hub.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })).arrayBuffer();
    }
    await Bun.sleep(3000);
    const warnings = hub.output().split("\n").filter((line) => line.includes("Sucrose") || line.includes("library output"));
    expect(warnings).toEqual([]);
  }, 30_000);
});

describe("DNS rebinding", () => {
  test("a request addressed to another name cannot claim a hub that needs setup", async () => {
    const fresh = tempDir("hub-edge-rebind-");
    const target = await startHub({ cmd: [await compiledHub()], cwd: fresh.path, env: { ORIGIN: "https://hub.example.org", ALLOWED_HOSTS: "hub.lan" } });
    try {
      const body = JSON.stringify({ username: "mallory", password: PASSWORD });
      const setup = (host: string) =>
        `POST /api/v1/auth/setup HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
      const refused = await rawRequest(target.url, setup(`rebound.example:${new URL(target.url).port}`));
      expect(statusOf(refused)).toBe(421);
      expect(refused.toLowerCase()).toContain("content-type: application/problem+json");
      expect(JSON.parse(bodyOf(refused))).toMatchObject({ status: 421, title: "Misdirected Request" });
      const session = (await (await fetch(`${target.url}/api/v1/auth/session`)).json()) as { needsSetup: boolean };
      expect(session.needsSetup).toBe(true);
      expect(statusOf(await rawRequest(target.url, setup("hub.lan")))).toBe(201);
      // The plain start-up line names the configured origin, not the listen address.
      expect(target.output().split("\n")).toContain("Hub ready: open https://hub.example.org/");
    } finally {
      await target.stop();
      fresh.cleanup();
    }
  });
});

describe("what the runtime used to answer by itself", () => {
  test("a body over the limit is a 413 problem detail with the security headers, however large and however sent", async () => {
    const rss = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${hub.proc.pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    const before = rss();
    const cases: { length: number; chunked: boolean }[] = [
      { length: 3 * 1024 * 1024, chunked: false },
      { length: 100 * 1024 * 1024, chunked: false },
      { length: 3 * 1024 * 1024, chunked: true },
      { length: 100 * 1024 * 1024, chunked: true },
    ];
    for (const { length, chunked } of cases) {
      const framing = chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`;
      const head = `POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
      const answer = await sendLarge(hub.url, head, length, chunked);
      const headers = headersOf(answer);
      expect({ length, chunked, status: statusOf(answer) }).toEqual({ length, chunked, status: 413 });
      expect(headers.get("content-type")).toBe("application/problem+json");
      expect(headers.get("x-content-type-options")).toBe("nosniff");
      expect(JSON.parse(bodyOf(answer))).toMatchObject({ status: 413, title: "Content Too Large" });
    }
    // Refused while arriving, never gathered: 200 MiB sent, far less kept.
    expect(rss() - before).toBeLessThan(64 * 1024 * 1024);
  });

  test("a body over the limit sent in full with its Content-Length gets the 413 before the connection closes, with or without Expect: 100-continue", async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, "x");
    const { hostname, port } = new URL(hub.url);
    const INTERIM = /^HTTP\/1\.1 100 [^\r]*\r\n\r\n/;
    /**
     * As curl sends: the whole body written before anything is read (the
     * socket paused until the kernel took it all), so an answer followed by
     * a reset is lost as it is for curl. With `Expect: 100-continue` the body
     * follows the hub's 100, if it sends one.
     */
    const send = (head: string, expectContinue: boolean): Promise<{ answer: string; error: string | null }> =>
      new Promise((resolve) => {
        let answer = "";
        let error: string | null = null;
        let sentBody = false;
        const socket = connect(Number(port), hostname, () => {
          if (expectContinue) {
            socket.write(head);
            return;
          }
          socket.pause();
          socket.write(head);
          socket.write(body, () => socket.resume());
        });
        socket.on("data", (chunk: Buffer) => {
          answer += chunk.toString("latin1");
          if (expectContinue && !sentBody && INTERIM.test(answer)) {
            sentBody = true;
            answer = answer.replace(INTERIM, "");
            socket.write(body);
          }
          if (complete(answer)) socket.destroy();
        });
        socket.on("error", (e: Error & { code?: string }) => {
          error = e.code ?? e.message;
          socket.resume();
        });
        socket.on("close", () => resolve({ answer, error }));
        socket.setTimeout(20_000, () => socket.destroy());
      });
    const head = `POST /api/v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
    for (const [i, connection] of ["keep-alive", "close", "close", "close"].entries()) {
      const { answer, error } = await send(`${head}Connection: ${connection}\r\n\r\n`, false);
      expect({ i, connection, status: statusOf(answer), error }).toEqual({ i, connection, status: 413, error: null });
      expect(JSON.parse(bodyOf(answer))).toMatchObject({ status: 413, title: "Content Too Large" });
      expect(headersOf(answer).get("x-content-type-options")).toBe("nosniff");
    }
    const expecting = await send(`${head}Expect: 100-continue\r\n\r\n`, true);
    expect(statusOf(expecting.answer)).toBe(413);
    expect(JSON.parse(bodyOf(expecting.answer))).toMatchObject({ status: 413 });
    expect((await fetch(`${hub.url}/healthz`)).status).toBe(200);
  });

  test("a control character in a header is still Bun's own empty 400 that closes the connection", async () => {
    const answer = await rawRequest(hub.url, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Note: a\u0001b\r\n\r\n");
    expect(statusOf(answer)).toBe(400);
    expect(headersOf(answer).get("connection")).toBe("close");
    expect(bodyOf(answer)).toBe("");
    // The known limit (docs/guides/security.md, Known limits): Bun refuses a malformed request before the hub or an error
    // handler sees it, so the answer lacks the problem body and headers. Should this fail, shape it then.
    expect(headersOf(answer).has("x-content-type-options")).toBe(false);
  });
});
