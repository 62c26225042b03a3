/**
 * Shared pieces of the benchmarks: timing, hubs on scratch databases, and
 * the one table every bench prints. Figures are compared with a baseline
 * measured in the same run, because the development machine is shared and
 * its speed wanders from one minute to the next.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { configFrom } from "../../src/config/load.ts";
import { migrate, openDatabase, type HubDb } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS, PROVIDERS, platformOf } from "../../src/domain/catalogue.ts";
import { sha256Hex } from "../../src/domain/tokens.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { createLogger } from "../../src/log.ts";
import { freePort } from "../support/ports.ts";

export interface BenchRow {
  readonly figure: string;
  readonly value: string;
  readonly budget: string;
  readonly baseline: string;
  readonly ratio: string;
  /** Whether the figure is within its budget (null when it has none). */
  readonly ok: boolean | null;
}

export const ROOT = join(import.meta.dir, "..", "..");
export const MAIN = join(ROOT, "src", "main.ts");

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

export { freePort };

export interface Running {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawning the process to its first 200. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/**
 * On a machine with two or more cores and taskset, load benchmarks pin the
 * server to one core and the load tool to another, so they do not fight over
 * the same core and runs are comparable.
 */
export const PINNING = availableParallelism() >= 2 && Bun.which("taskset") !== null;
export const SERVER_CPU = ["taskset", "-c", "0"];
export const CLIENT_CPU = ["taskset", "-c", "1"];

/** Starts a process and waits until `probe` answers 200. */
export async function startProcess(cmd: string[], probe: string, env: Record<string, string> = {}, timeoutMs = 30_000, pinned = false): Promise<Running> {
  const started = performance.now();
  const proc = Bun.spawn(pinned && PINNING ? [...SERVER_CPU, ...cmd] : cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${cmd.join(" ")} exited with ${proc.exitCode}`);
    try {
      if ((await fetch(probe)).status === 200) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${cmd.join(" ")} did not answer ${probe}`);
    }
    await Bun.sleep(2);
  }
  const readyMs = performance.now() - started;
  return {
    pid: proc.pid,
    url: new URL(probe).origin,
    readyMs,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** A hub served from source in its own process, on a free port. */
export async function startHubProcess(args: string[], env: Record<string, string> = {}, pinned = false): Promise<Running> {
  const port = await freePort();
  return await startProcess(
    [process.execPath, MAIN, "serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "warn", ...args],
    `http://127.0.0.1:${port}/healthz`,
    env,
    30_000,
    pinned,
  );
}

/** Resident memory of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const SETTLE_SAMPLE_MS = 500;
/** Samples (3 s) that must lie within SETTLE_SPREAD_BYTES of one another. */
const SETTLE_SAMPLES = 6;
const SETTLE_SPREAD_BYTES = 512 * 1024;
const SETTLE_MIN_MS = 5_000;
const SETTLE_MAX_MS = 30_000;

/**
 * A process's resident memory once it has settled: sampled every half
 * second, the last sample once six in a row (3 s) lie within 0.5 MB of one
 * another, at least 5 s after the call, at most 30 s. Start-up's garbage
 * (and the allocator's freed pages) take a few seconds to be given back, so
 * an early sample reports start-up, not idling.
 */
export async function settledRssBytes(pid: number): Promise<number> {
  const started = performance.now();
  const samples: number[] = [];
  for (;;) {
    await Bun.sleep(SETTLE_SAMPLE_MS);
    samples.push(rssBytes(pid));
    const recent = samples.slice(-SETTLE_SAMPLES);
    const elapsed = performance.now() - started;
    const steady = recent.length === SETTLE_SAMPLES && Math.max(...recent) - Math.min(...recent) <= SETTLE_SPREAD_BYTES;
    if ((steady && elapsed >= SETTLE_MIN_MS) || elapsed >= SETTLE_MAX_MS) return samples.at(-1) ?? 0;
  }
}

/** The product is the binary, so a bench that measures it compiles it the way a release does. */
export async function buildHub(outfile: string): Promise<void> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", outfile], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`the hub did not build (exit ${code}):\n${out}${err}`);
}

export function hasWrk(): boolean {
  return Bun.which("wrk") !== null;
}

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

function toMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

export async function wrk(url: string, options: { connections: number; threads?: number; seconds: number }): Promise<WrkResult> {
  const pin = PINNING ? CLIENT_CPU : [];
  const proc = Bun.spawn([...pin, "wrk", "--latency", `-t${options.threads ?? 2}`, `-c${options.connections}`, `-d${options.seconds}s`, url], { stdout: "pipe", stderr: "pipe" });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN),
    p50Ms: toMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? ""),
    p99Ms: toMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? ""),
  };
}

export interface Timing {
  readonly median: number;
  readonly p95: number;
  readonly runs: number;
}

/** Runs `fn` a few times to warm up, then `runs` times, timing each run in ms. */
export async function time(fn: () => unknown, runs: number, warmup = 3): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95), runs };
}

export const ms = (value: number): string => `${value.toFixed(1)} ms`;
export const seconds = (value: number): string => `${(value / 1000).toFixed(1)} s`;
export const ratio = (value: number, baseline: number): string => `${(value / baseline).toFixed(2)}×`;

/** A scratch directory, removed by the returned cleanup. */
export function scratch(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `hub-bench-${prefix}-`));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export function scratchDb(dir: string, name = "bench.db"): HubDb {
  const db = openDatabase(join(dir, name));
  migrate(db);
  return db;
}

/** A hub on an existing database with a silent log and the given command-line settings. */
export function benchHub(db: HubDb, argv: readonly string[], now: () => number = Date.now): Hub {
  const { config } = configFrom(argv, {});
  return createHub(config, { db, log: createLogger("error", () => {}), now });
}

export async function get(hub: Hub, path: string): Promise<Response> {
  const response = await hub.app.handle(new Request(`http://localhost${path}`));
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response;
}

export function printTable(title: string, header: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
}

export function printBenchRows(title: string, rows: readonly BenchRow[]): void {
  printTable(
    title,
    ["Figure", "Measured", "Budget", "Baseline (same run)", "Ratio", "Within budget"],
    rows.map((r) => [r.figure, r.value, r.budget, r.baseline, r.ratio, r.ok === null ? "—" : r.ok ? "yes" : "NO"]),
  );
}

const LOOPBACK_SAMPLES = 200;

/** The fastest of many one-byte TCP round trips to a server in this process on 127.0.0.1, in ms. */
async function measureLoopbackRoundTrip(): Promise<number> {
  let answered: (() => void) | null = null;
  const server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, chunk) {
        socket.write(chunk);
      },
    },
  });
  const client = await Bun.connect({
    hostname: "127.0.0.1",
    port: server.port,
    socket: {
      data() {
        answered?.();
      },
    },
  });
  try {
    let fastest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < LOOPBACK_SAMPLES; i++) {
      const back = new Promise<void>((resolve) => {
        answered = resolve;
      });
      const started = performance.now();
      client.write("x");
      await back;
      fastest = Math.min(fastest, performance.now() - started);
    }
    return fastest;
  } finally {
    client.end();
    server.stop(true);
  }
}

let loopback: Promise<number> | null = null;

/**
 * What one loopback round trip costs on this machine, measured once per run:
 * no latency that crosses a socket can be shorter.
 */
export function loopbackRoundTripMs(): Promise<number> {
  loopback ??= measureLoopbackRoundTrip();
  return loopback;
}

/** A figure a bench must not print: a delay below zero or below one loopback round trip is a fault of the bench, not a speed. */
export class BenchFault extends Error {
  override readonly name = "BenchFault";
}

/** Throws unless every latency (ms) of `figure` is at least one loopback round trip measured in this run. */
export async function checkLatencies(figure: string, latenciesMs: readonly number[]): Promise<void> {
  const floor = await loopbackRoundTripMs();
  const lowest = Math.min(...latenciesMs);
  if (lowest < 0) throw new BenchFault(`${figure}: a delay of ${lowest.toFixed(3)} ms is negative; the bench measured from the wrong moment`);
  if (lowest < floor) throw new BenchFault(`${figure}: ${lowest.toFixed(3)} ms is below one loopback round trip (${floor.toFixed(3)} ms in this run); the bench measured from the wrong moment`);
}

/**
 * Each arrival's delay after the moment its change was sent (both in ms on
 * one clock), never clamped: an arrival before the send is a fault of the
 * bench (it timed from the wrong moment), not a fast push.
 */
export function delaysSince(sentMs: number, arrivalsMs: readonly number[], what: string): number[] {
  const delays = arrivalsMs.map((arrived) => arrived - sentMs);
  const early = delays.filter((delay) => delay < 0);
  if (early.length > 0) throw new BenchFault(`${what}: ${early.length} arrived before the change was sent (${Math.min(...early).toFixed(3)} ms)`);
  return delays;
}

/** An agent a bench made straight in the database: its token (for posting), region and platform. */
export interface BenchAgent {
  readonly token: string;
  readonly region: string;
  readonly platform: string;
}

/** `count` agents spread over every (platform, region), written into the database at `path` (migrated first). */
export function createBenchAgents(path: string, count: number, label: string): BenchAgent[] {
  const db = openDatabase(path);
  migrate(db);
  const agents: BenchAgent[] = [];
  const insert = db.sqlite.query("INSERT INTO agents (token_hash, provider, platform, region, source, created_at, updated_at) VALUES (?, ?, ?, ?, 'manual', 0, 0)");
  db.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const provider = PROVIDERS[i % PROVIDERS.length] ?? "steam";
      const region = BUILT_IN_REGIONS[Math.floor(i / PROVIDERS.length) % BUILT_IN_REGIONS.length]?.id ?? "eu-west-1";
      const token = `${label}-bench-agent-${i}-${crypto.randomUUID()}`;
      insert.run(sha256Hex(token), provider, platformOf(provider), region);
      agents.push({ token, region, platform: platformOf(provider) });
    }
  })();
  db.sqlite.close();
  return agents;
}
