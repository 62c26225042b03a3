/**
 * Shared pieces of the benchmarks: timing, hubs on scratch databases, and
 * the one table every bench prints. Figures are compared with a baseline
 * measured in the same run, because the development machine is shared and
 * its speed wanders from one minute to the next.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFrom } from "../../src/config/load.ts";
import { migrate, openDatabase, type HubDb } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { createLogger } from "../../src/log.ts";

export interface BenchRow {
  readonly figure: string;
  readonly value: string;
  readonly budget: string;
  readonly baseline: string;
  readonly ratio: string;
  /** Whether the figure is within its budget (null when it has none). */
  readonly ok: boolean | null;
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
