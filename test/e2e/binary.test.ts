/** The compiled executable, alone in an empty directory, is the whole hub. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { START_FRAMES } from "../../src/db/checkpoint.ts";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { eventually, postReading, runCli, startHub } from "./harness.ts";

const run = tempDir("hub-alone-");
const binary = join(run.path, "hub");

beforeAll(async () => {
  copyFileSync(await compiledHub(), binary);
  Bun.spawnSync(["chmod", "+x", binary]);
}, 120_000);

afterAll(() => {
  run.cleanup();
});

describe("dist/hub", () => {
  test("starts from an empty directory with no node_modules and serves health, description and docs", async () => {
    expect(readdirSync(run.path)).toEqual(["hub"]);
    const hub = await startHub({ cmd: [binary], cwd: run.path, env: { PATH: "/usr/bin:/bin" } });
    for (const path of ["/healthz", "/openapi.json", "/openapi.yaml", "/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css", "/docs/assets/init.js"]) {
      const response = await fetch(`${hub.url}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
    const doc = (await (await fetch(`${hub.url}/openapi.json`)).json()) as { info: { title: string } };
    expect(doc.info.title).toBe("Incentives Hub");
    expect(await hub.stop()).toBe(0);
    expect(hub.output()).not.toContain("background checkpoints are unavailable");
    expect(existsSync(join(run.path, "data", "hub.db"))).toBe(true);
  });

  test("the web app's files are read from inside the binary when asked for, and compressed on the first request that accepts it", async () => {
    const hub = await startHub({ cmd: [binary], cwd: run.path, env: { PATH: "/usr/bin:/bin" } });
    try {
      const page = await (await fetch(`${hub.url}/`, { headers: { "accept-encoding": "br" } })).text();
      const scripts = [...page.matchAll(/src="(\/[^"]+\.js)"/g)].map((m) => m[1] ?? "");
      expect(scripts.length).toBeGreaterThan(0);
      for (const script of scripts) {
        const plain = await fetch(`${hub.url}${script}`, { headers: { "accept-encoding": "identity" } });
        expect(plain.headers.get("content-encoding")).toBeNull();
        const bytes = new Uint8Array(await plain.arrayBuffer());
        expect(bytes.byteLength).toBeGreaterThan(1024);
        const brotli = await fetch(`${hub.url}${script}`, { headers: { "accept-encoding": "br" }, decompress: false });
        expect(brotli.headers.get("content-encoding")).toBe("br");
        const compressed = new Uint8Array(await brotli.arrayBuffer());
        expect(compressed.byteLength).toBeLessThan(bytes.byteLength);
        expect(new Uint8Array(brotliDecompressSync(compressed))).toEqual(bytes);
        const gzip = await fetch(`${hub.url}${script}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
        expect(gzip.headers.get("content-encoding")).toBe("gzip");
        expect(new Uint8Array(gunzipSync(new Uint8Array(await gzip.arrayBuffer())))).toEqual(bytes);
        expect(brotli.headers.get("etag")).toBe(plain.headers.get("etag"));
        expect((await fetch(`${hub.url}${script}`, { headers: { "if-none-match": plain.headers.get("etag") ?? "" } })).status).toBe(304);
      }
    } finally {
      await hub.stop();
    }
  });

  test("background checkpoints start with the first writes: an idle hub runs no worker, a few readings start the one that folds the log back", async () => {
    // Readings from several agents, one each: an agent's next reading waits for its poll interval.
    const tokens = Array.from({ length: 5 }, (_, i) => `checkpoint-agent-${i}-0123456789abcdef`);
    const db = join(run.path, "checkpoints.db");
    const hub = await startHub({
      cmd: [binary],
      cwd: run.path,
      args: ["--db", db],
      env: { PATH: "/usr/bin:/bin", PROVISION_AGENTS: tokens.map((token, i) => `a${i}:${token}:eu-west-1:steam`).join(",") },
    });
    // Frames in the log, from its size (4 KiB pages, a 24-byte header per frame, 32 bytes for the log's own).
    const frames = () => Math.max(0, (statSync(`${db}-wal`).size - 32) / (4096 + 24));
    try {
      // The migrations' pages wait in the log: nothing folds them back while the hub writes nothing.
      const idle = statSync(db).size;
      await Bun.sleep(1500);
      expect(statSync(db).size).toBe(idle);
      expect(frames()).toBeGreaterThan(0);
      expect(frames()).toBeLessThan(START_FRAMES);
      for (const token of tokens) expect(await postReading(hub.url, token, Date.now() - 1000)).toBe(201);
      await eventually(() => statSync(db).size > idle);
      // Folded back by the worker: SQLite's own checkpoint would have waited for 1,000 frames.
      expect(frames()).toBeLessThan(1000);
      expect(hub.output()).not.toContain("background checkpoints are unavailable");
    } finally {
      await hub.stop();
    }
  }, 60_000);

  test("is the CLI too", async () => {
    const version = await runCli(["version"], { cmd: [binary], cwd: run.path });
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toContain("Incentives Hub");
    const migrate = await runCli(["migrate", "--db", join(run.path, "other.db")], { cmd: [binary], cwd: run.path });
    expect(migrate.exitCode).toBe(0);
    expect(migrate.stdout).toContain("0001_init");
  });
});
