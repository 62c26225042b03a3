/**
 * Shared pieces of the benchmarks: starting hubs and baselines as separate
 * processes, driving them with wrk, reading their memory, and statistics.
 * Every figure is measured beside a baseline in the same run, because the
 * machine is shared and noisy: ratios travel, absolute numbers do not.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const MAIN = join(ROOT, "src", "main.ts");

export interface Row {
  readonly figure: string;
  readonly value: string;
  readonly budget: string;
  readonly baseline: string;
  readonly verdict: "met" | "MISSED" | "info";
}

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

export function scratchDir(prefix = "hub-bench-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  await probe.stop(true);
  return port;
}

export interface Running {
  readonly proc: Bun.Subprocess;
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Starts a process and waits until `probe` answers 200. */
export async function startProcess(cmd: string[], probe: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Running & { readyMs: number }> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "ignore", stderr: "inherit" });
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
    proc,
    pid: proc.pid,
    url: new URL(probe).origin,
    readyMs,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export async function startHub(args: string[], env: Record<string, string> = {}): Promise<Running & { readyMs: number }> {
  const port = await freePort();
  return await startProcess([process.execPath, MAIN, "serve", "--host", "127.0.0.1", "--port", String(port), "--log-level", "warn", ...args], `http://127.0.0.1:${port}/healthz`, env);
}

/** Resident memory of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb ?? 0) * 1024;
}

export function hasWrk(): boolean {
  return Bun.which("wrk") !== null;
}

export interface WrkResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
}

function toMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

export async function wrk(url: string, options: { connections: number; threads?: number; seconds: number; headers?: Record<string, string> }): Promise<WrkResult> {
  const args = ["wrk", "--latency", `-t${options.threads ?? 2}`, `-c${options.connections}`, `-d${options.seconds}s`];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  args.push(url);
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const text = await new Response(proc.stdout).text();
  await proc.exited;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? Number.NaN);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(text)?.[1] ?? "");
  const p99 = toMs(/\s99%\s+(\S+)/.exec(text)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  return { requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, non2xx };
}

export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}

export function printTable(title: string, rows: readonly Row[]): void {
  const header = ["Figure", "Measured", "Budget", "Baseline (same run)", "Verdict"];
  const cells = rows.map((r) => [r.figure, r.value, r.budget, r.baseline, r.verdict]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) => `| ${c.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const c of cells) console.log(line(c));
}

export function fileExists(path: string): boolean {
  return existsSync(path);
}
