/**
 * dist/hub on a Unix socket (HOST=unix:…): the socket is 0660 whatever the
 * umask, requests work over it (curl and fetch), the client is who the proxy
 * says in X-Forwarded-For (one hop), and a stop leaves no socket behind.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";

const dir = tempDir("hub-unix-");
afterAll(() => dir.cleanup());

async function overSocket(socket: string, path: string, init: RequestInit = {}): Promise<Response> {
  return await fetch(`http://localhost${path}`, { ...init, unix: socket } as RequestInit);
}

describe("HOST=unix:…", () => {
  test("serves over a 0660 socket, takes the client from the proxy's X-Forwarded-For, and removes the socket at stop", async () => {
    const binary = await compiledHub();
    const socket = join(dir.path, "hub.sock");
    // A leftover socket, as a killed hub leaves one, is replaced.
    const leftover = Bun.spawnSync(["python3", "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", socket]);
    expect(leftover.exitCode).toBe(0);
    expect(statSync(socket).isSocket()).toBe(true);
    const proc = Bun.spawn([binary, "serve", "--host", `unix:${socket}`], {
      cwd: dir.path,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LOG_LEVEL: "debug", MFA_ENFORCED_ROLES: "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const output: string[] = [];
    void (async () => {
      for await (const chunk of proc.stdout) output.push(new TextDecoder().decode(chunk));
    })();
    try {
      const deadline = Date.now() + 15_000;
      let healthy = false;
      while (!healthy && Date.now() < deadline) {
        healthy = existsSync(socket) && (await overSocket(socket, "/healthz").then((r) => r.status === 200, () => false));
        if (!healthy) await Bun.sleep(50);
      }
      expect(healthy).toBe(true);
      expect(statSync(socket).isSocket()).toBe(true);
      expect(statSync(socket).mode & 0o777).toBe(0o660);

      const curl = Bun.spawnSync(["curl", "-s", "--unix-socket", socket, "http://localhost/api/v1/meta"]);
      expect(curl.exitCode).toBe(0);
      expect(JSON.parse(curl.stdout.toString())).toHaveProperty("platforms");

      const setup = await overSocket(socket, "/api/v1/auth/setup", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.1, 203.0.113.7" },
        body: JSON.stringify({ username: "root", password: "correct horse battery" }),
      });
      expect(setup.status).toBe(201);
      await (await overSocket(socket, "/api/v1/meta")).arrayBuffer();
      await Bun.sleep(200);
      const requests = output
        .join("")
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; path?: string; ip?: string })
        .filter((line) => line.msg === "request");
      // One hop: the address the proxy appended, never one the client wrote before it.
      expect(requests.find((line) => line.path === "/api/v1/auth/setup")?.ip).toBe("203.0.113.7");
      // A process on the machine talking to the socket directly counts as this machine.
      expect(requests.find((line) => line.path === "/api/v1/meta")?.ip).toBe("127.0.0.1");
    } finally {
      proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
    }
    expect(existsSync(socket)).toBe(false);
  });
});
