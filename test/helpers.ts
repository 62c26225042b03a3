/** Shared test scaffolding: configs, in-process hubs and request helpers. */
import { afterAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFrom, type Config, type Env } from "../src/config/load.ts";
import { migrate, openDatabase, type HubDb } from "../src/db/open.ts";
import { createHub, type Hub } from "../src/hub.ts";
import { createLogger, type Logger } from "../src/log.ts";

export function testConfig(argv: readonly string[] = [], env: Env = {}): Config {
  return configFrom(argv, env).config;
}

export interface TestHubOptions {
  readonly db?: HubDb;
  readonly argv?: readonly string[];
  readonly env?: Env;
  readonly now?: () => number;
  readonly log?: Logger;
}

/** A hub on an in-memory database with a silent log, unless told otherwise. */
export function testHub(options: TestHubOptions = {}): Hub {
  const config = testConfig(options.argv ?? [], options.env ?? {});
  return createHub(config, {
    db: options.db ?? openDatabase(":memory:"),
    log: options.log ?? createLogger("error", () => {}),
    now: options.now ?? Date.now,
  });
}

export interface CallOptions {
  readonly body?: unknown;
  readonly rawBody?: BodyInit;
  readonly headers?: Record<string, string>;
}

export async function call(hub: Hub, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return await hub.app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** An in-memory database with the schema, for filling before a hub starts on it. */
export function memoryDb(): HubDb {
  const db = openDatabase(":memory:");
  migrate(db);
  return db;
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = "hub-test-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Call at a test file's top level: returns a maker of temporary directories that are all removed after the file's tests. */
export function scratchDirs(): () => string {
  const cleanups: (() => void)[] = [];
  afterAll(() => cleanups.forEach((cleanup) => cleanup()));
  return () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    return dir.path;
  };
}

/** Collects log lines as parsed objects. */
export function memoryLog(level: "debug" | "info" | "warn" | "error" = "debug"): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { log: createLogger(level, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)), lines };
}

export function expectProblem(response: Response): void {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("application/problem+json")) throw new Error(`expected problem+json, got ${type} (${response.status})`);
}
