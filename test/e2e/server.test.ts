import { describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { runCli, startHub } from "./harness.ts";

const scratch = scratchDirs();
const dbPath = (): string => join(scratch(), "hub.db");

function walSize(db: string): number {
  return existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
}

describe("hub serve", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    test(`${signal} shuts down gracefully: exit 0 and the WAL folded back`, async () => {
      const db = dbPath();
      const hub = await startHub({ args: ["--db", db] });
      const health = await fetch(`${hub.url}/healthz`);
      expect(health.status).toBe(200);
      expect(walSize(db)).toBeGreaterThan(0);
      expect(await hub.stop(signal)).toBe(0);
      expect(walSize(db)).toBe(0);
      // Besides the one plain "Hub ready" line for people, every line is the JSON log.
      const output = hub.output().trim().split("\n");
      expect(output.filter((l) => !l.startsWith("{"))).toEqual([`Hub ready: open http://localhost:${new URL(hub.url).port}/`]);
      const lines = output.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toContain("shutting down");
      expect(lines.at(-1)?.msg).toBe("stopped");
    });
  }

  test("open streams are ended at shutdown, which stays quick", async () => {
    const hub = await startHub({ args: ["--db", dbPath()] });
    const stream = await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const started = Date.now();
    expect(await hub.stop()).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
    let ended = false;
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true }));
      if (chunk.done) {
        ended = true;
        break;
      }
    }
    expect(ended).toBe(true);
  });

  test("a second server on the same database exits with a clear message", async () => {
    const db = dbPath();
    const first = await startHub({ args: ["--db", db] });
    const second = await runCli(["serve", "--db", db, "--port", "1"]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain("another hub is already serving");
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    expect(await first.stop()).toBe(0);
    const third = await startHub({ args: ["--db", db] });
    expect(await third.stop()).toBe(0);
  });

  test("a port already in use is one clear line and exit 1", async () => {
    const db = dbPath();
    const first = await startHub({ args: ["--db", dbPath()] });
    const port = new URL(first.url).port;
    const clash = await runCli(["serve", "--db", db, "--host", "127.0.0.1", "--port", port]);
    expect(clash.exitCode).toBe(1);
    expect(clash.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
    await first.stop();
  });
});
