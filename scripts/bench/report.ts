/**
 * What `npm run bench` leaves behind: docs/performance.md, the latest run's
 * table with when, where and on what it ran, and docs/performance.jsonl, one
 * JSON line per run, earlier runs included. The page is never edited by hand.
 */
import { Database } from "bun:sqlite";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { join } from "node:path";
import { HUB_VERSION } from "../../src/version.ts";
import type { BenchRow } from "./common.ts";
import type { AccuracyResult } from "./forecast.ts";

export interface BenchRun {
  readonly date: string;
  readonly machine: { readonly cpu: string; readonly cores: number; readonly memoryGb: number; readonly os: string };
  readonly runtime: string;
  readonly versions: Readonly<Record<string, string>>;
  readonly commit: string;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly loopbackRoundTripMs: number;
  readonly quick: boolean;
  readonly only: readonly string[] | null;
  readonly sizes: Readonly<Record<string, string>>;
  readonly seconds: number;
  readonly rows: readonly BenchRow[];
  readonly accuracy: AccuracyResult | null;
}

function firstLine(cmd: string[]): string | null {
  if (!Bun.which(cmd[0] ?? "")) return null;
  const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  const text = `${result.stdout.toString()}\n${result.stderr.toString()}`.trim();
  return text.split("\n")[0]?.trim() || null;
}

export function machine(): BenchRun["machine"] {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  return { cpu: model, cores: cpus().length, memoryGb: Math.round(totalmem() / 1024 ** 3), os: `${type()} ${release()}` };
}

export function versions(): Record<string, string> {
  const sqlite = new Database(":memory:");
  const row = sqlite.query<{ v: string }, []>("select sqlite_version() as v").get();
  sqlite.close();
  const found: Record<string, string> = { hub: HUB_VERSION, sqlite: row?.v ?? "unknown" };
  const tools: Record<string, string[]> = { pushpin: ["pushpin", "--version"], chromium: ["chromium", "--version"], wrk: ["wrk", "-v"] };
  for (const [name, cmd] of Object.entries(tools)) found[name] = firstLine(cmd)?.replace(/\s+Copyright.*$/, "") ?? "not installed";
  return found;
}

export function commit(root: string): string {
  const result = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return result.exitCode === 0 ? result.stdout.toString().trim() : "unknown";
}

export function loadAverage(): number {
  return loadavg()[0] ?? 0;
}

/**
 * The ingest row's figure: the rate is the load the bench offers (open loop,
 * whatever the server's pace), so the row says so and never reads as the
 * most the hub can take.
 */
export function offeredLoadFigure(rate: number, seconds: number, warmupSeconds: number, agents: number, webhooks: number): string {
  return `Ingest at an offered load of ${rate} readings/s (open loop, not a capacity) over ${seconds} s, after ${warmupSeconds} s warm-up; ${agents} agents; ${webhooks} webhooks subscribed`;
}

/**
 * A row as the benches word it now. Runs recorded before the ingest row said
 * that its rate is an offered load ("Ingest readings/s over 30 s …", "≥ 2000/s")
 * are shown with today's words; their figures are unchanged.
 */
export function currentWording(row: BenchRow): BenchRow {
  const old = /^Ingest readings\/s over (\d+) s \(after (\d+) s warm-up; (\d+) agents; (\d+) webhooks subscribed\)$/.exec(row.figure);
  const rate = /^≥ (\d+)\/s$/.exec(row.budget)?.[1];
  if (!old || !rate) return row;
  const [, seconds = "", warmup = "", agents = "", webhooks = ""] = old;
  const value = /^(\S+) \((\d+) of (\d+) acknowledged\)$/.exec(row.value);
  const baseline = /^(\S+) bare insert \(group commit\)$/.exec(row.baseline);
  return {
    ...row,
    figure: offeredLoadFigure(Number(rate), Number(seconds), Number(warmup), Number(agents), Number(webhooks)),
    value: value ? `${value[1]} acknowledged (${value[2]} of ${value[3]})` : row.value,
    budget: `keeps up with ${rate}/s`,
    baseline: baseline ? `${baseline[1]} acknowledged by a bare insert (group commit) at the same offered load` : row.baseline,
  };
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

export function renderPerformance(run: BenchRun): string {
  const when = run.date.replace("T", " ").replace(/\.\d+Z$/, " UTC").replace(/Z$/, " UTC");
  const lines = [
    "<!-- Written by npm run bench (scripts/bench/index.ts, scripts/bench/report.ts); do not edit by hand. -->",
    "",
    "# Performance",
    "",
    "The latest run of `npm run bench`, written by the bench itself. Every run, this one and earlier ones, is kept as data: one JSON line a run in [performance.jsonl](performance.jsonl).",
    "Each figure stands beside a baseline measured in the same run, because a shared machine's speed wanders; how the benches measure is in [the development guide](guides/development.md#benchmarks) and [decision 0057](decisions/0057-benchmarks-against-a-baseline.md).",
    "",
  ];
  if (run.quick) lines.push("**A smoke run with small sizes (`BENCH_QUICK`)**: it shows that the benches and this page work; its figures are not comparable with the budgets.", "");
  lines.push(
    "| Run | |",
    "|---|---|",
    `| Date | ${when} |`,
    `| Machine | ${cell(run.machine.cpu)}, ${run.machine.cores} cores, ${run.machine.memoryGb} GB memory, ${cell(run.machine.os)} |`,
    `| Load average (1 min) | ${run.loadAverage.before.toFixed(2)} before, ${run.loadAverage.after.toFixed(2)} after |`,
    `| Runtime | Bun ${run.runtime} |`,
    `| Versions | ${Object.entries(run.versions).map(([name, version]) => `${name}: ${cell(version)}`).join("; ")} |`,
    `| Commit | ${run.commit} |`,
    `| Benchmarks | ${run.only ? run.only.join(", ") : "all"}${Object.keys(run.sizes).length > 0 ? `; sizes ${Object.entries(run.sizes).map(([name, value]) => `${name}=${value}`).join(", ")}` : ""} |`,
    `| One loopback round trip | ${run.loopbackRoundTripMs.toFixed(3)} ms: no latency below it is printed |`,
    `| Took | ${run.seconds.toFixed(0)} s |`,
    "",
    "## Budgets",
    "",
    "| Figure | Measured | Budget | Baseline (same run) | Ratio | Within budget |",
    "|---|---|---|---|---|---|",
    ...run.rows.map(currentWording).map((r) => `| ${cell(r.figure)} | ${cell(r.value)} | ${cell(r.budget) || "—"} | ${cell(r.baseline) || "—"} | ${cell(r.ratio) || "—"} | ${r.ok === null ? "—" : r.ok ? "yes" : "**no**"} |`),
    "",
  );
  if (run.accuracy) {
    const { model, specModel, seasonalNaive, persistence } = run.accuracy.mae;
    lines.push(
      "## Forecast accuracy",
      "",
      `Mean absolute error in bonus percent over ${run.accuracy.pairs.toLocaleString("en-US")} forecast hours of ${run.accuracy.slots} simulated slots (deterministic).`,
      "",
      "| Forecast | Survivor MAE | Killer MAE |",
      "|---|---|---|",
      `| This hub's model (anomaly persistence) | ${model.survivor.toFixed(2)} | ${model.killer.toFixed(2)} |`,
      `| Climatology blended with the last level (level persistence) | ${specModel.survivor.toFixed(2)} | ${specModel.killer.toFixed(2)} |`,
      `| Seasonal-naive (the same hour a week earlier) | ${seasonalNaive.survivor.toFixed(2)} | ${seasonalNaive.killer.toFixed(2)} |`,
      `| Persistence (the last value) | ${persistence.survivor.toFixed(2)} | ${persistence.killer.toFixed(2)} |`,
      "",
    );
  }
  return lines.join("\n");
}

/** Writes the page and appends the run's line; `dir` is docs/ unless BENCH_OUT names another folder. */
export function writeReport(dir: string, run: BenchRun): void {
  writeFileSync(join(dir, "performance.md"), renderPerformance(run));
  appendFileSync(join(dir, "performance.jsonl"), `${JSON.stringify(run)}\n`);
}

/** The last run recorded in a performance.jsonl. */
export function lastRun(jsonl: string): BenchRun {
  const line = jsonl.trim().split("\n").at(-1);
  if (!line) throw new Error("performance.jsonl holds no run");
  return JSON.parse(line) as BenchRun;
}

// `bun scripts/bench/report.ts` writes docs/performance.md again from the last recorded run, with today's words.
if (import.meta.main) {
  const dir = join(import.meta.dir, "..", "..", "docs");
  writeFileSync(join(dir, "performance.md"), renderPerformance(lastRun(readFileSync(join(dir, "performance.jsonl"), "utf8"))));
  console.log("docs/performance.md written from the last run in docs/performance.jsonl");
}
