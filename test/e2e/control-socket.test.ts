/**
 * The control socket is checked before use (SPEC §16.3): the CLI sends a
 * change only to a socket, not a symlink, owned by the database's owner or
 * root, and says which check failed; the hub does not start when it cannot
 * make its socket at `<db>.sock`.
 */
import { describe, expect, test } from "bun:test";
import { chownSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, runCli, startHub } from "./harness.ts";

const scratch = scratchDirs();
/** Another user's id: nobody. */
const STRANGER = 65534;

async function login(url: string, username: string, password: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
  await response.arrayBuffer();
  return response.status;
}

/** A listener at `path` that records every body it is sent and answers as the hub would. */
function fakeSocket(path: string): { readonly received: string[]; stop(): void } {
  const received: string[] = [];
  const server = Bun.serve({
    unix: path,
    async fetch(request) {
      received.push(await request.text());
      return Response.json({ user: { id: 1, username: "ops", role: "admin" } });
    },
  });
  return { received, stop: () => void server.stop(true) };
}

/** Runs `hub serve` and waits, bounded, for it to exit on its own; a hub that keeps serving is killed and reported. */
async function serveExpectingExit(bin: string, db: string): Promise<{ code: number | null; output: string }> {
  const proc = Bun.spawn([bin, "serve", "--db", db, "--host", "127.0.0.1", "--port", String(await freePort())], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code: proc.signalCode === null ? proc.exitCode : null, output: stdout + stderr };
}

describe("the control socket is checked before use", () => {
  test("the CLI refuses another user's socket and a symlink, sending nothing through them", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    const socket = `${db}.sock`;
    const hub = await startHub({ cmd: [bin], args: ["--db", db] });
    try {
      const created = await runCli(["user", "create", "--db", db, "--username", "ops", "--admin", "--password-stdin"], { cmd: [bin], stdin: "first long password\n" });
      expect(created.exitCode).toBe(0);

      // Someone else put their own socket where the hub's was.
      const real = join(dir, "moved-aside.sock");
      renameSync(socket, real);
      const fake = fakeSocket(socket);
      try {
        chownSync(socket, STRANGER, STRANGER);
        const reset = await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { cmd: [bin], stdin: "stolen long password\n" });
        expect(reset.exitCode).toBe(1);
        expect(reset.stdout).toBe("");
        expect(reset.stderr).toContain(socket);
        expect(reset.stderr).toContain(`owned by user ${STRANGER}`);
        expect(reset.stderr).not.toContain("stolen long password");
        expect(fake.received).toEqual([]);
      } finally {
        fake.stop();
        rmSync(socket, { force: true });
      }

      // A symlink, even to the hub's own socket, is not followed.
      symlinkSync(real, socket);
      const viaLink = await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { cmd: [bin], stdin: "linked long password\n" });
      expect(viaLink.exitCode).toBe(1);
      expect(viaLink.stderr).toContain(socket);
      expect(viaLink.stderr).toContain("symbolic link");
      rmSync(socket);

      // Something that is not a socket at all.
      writeFileSync(socket, "");
      const notSocket = await runCli(["agent", "create", "--db", db, "--region", "eu-west-1", "--provider", "steam"], { cmd: [bin] });
      expect(notSocket.exitCode).toBe(1);
      expect(notSocket.stderr).toContain("is not a socket");
      rmSync(socket);

      expect(await login(hub.url, "ops", "first long password")).toBe(200);
      expect(await login(hub.url, "ops", "linked long password")).toBe(401);

      // The hub's own socket, back in place, is used.
      renameSync(real, socket);
      const reset = await runCli(["user", "reset-password", "ops", "--db", db, "--password-stdin"], { cmd: [bin], stdin: "second long password\n" });
      expect(reset.exitCode).toBe(0);
      expect(await login(hub.url, "ops", "second long password")).toBe(200);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 90_000);

  test("the hub does not start when its socket path holds a directory or a file it will not replace, and names the path", async () => {
    const bin = await compiledHub();
    for (const make of [(path: string) => mkdirSync(path), (path: string) => writeFileSync(path, "an operator's notes\n")]) {
      const dir = scratch();
      const db = join(dir, "hub.db");
      const socket = `${db}.sock`;
      make(socket);
      const { code, output } = await serveExpectingExit(bin, db);
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(output).toContain(socket);
      expect(output).not.toContain("Hub ready");
    }
  }, 90_000);
});
