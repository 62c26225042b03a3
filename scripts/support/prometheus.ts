/**
 * Debian's Prometheus (package `prometheus`: `prometheus` and `promtool`) for
 * the tests of deploy/prometheus/ and deploy/grafana/: promtool checks and
 * tests the shipped rules, and a real Prometheus on loopback, with its own
 * data directory, scrapes a real hub and evaluates those rules.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.ts";

export const PROMTOOL = Bun.which("promtool");
export const PROMETHEUS = Bun.which("prometheus");

/** Skips loudly without Debian's prometheus package, but fails in CI, where .ci/run installs it. */
export function prometheusAvailable(): boolean {
  if (PROMTOOL && PROMETHEUS) return true;
  if (process.env.CI) throw new Error("prometheus and promtool are not installed, and CI must run the monitoring tests (.ci/run installs them: apt-get install prometheus)");
  console.warn("\n################################################################\n# prometheus/promtool are not installed: the monitoring tests are SKIPPED.\n# apt-get install prometheus to run them.\n################################################################\n");
  return false;
}

export interface ToolResult {
  readonly exitCode: number;
  readonly output: string;
}

/** Runs promtool with the arguments given; its exit code and everything it printed. */
export function promtool(args: readonly string[]): ToolResult {
  if (!PROMTOOL) throw new Error("promtool is not installed");
  const result = Bun.spawnSync([PROMTOOL, ...args], { stdout: "pipe", stderr: "pipe" });
  return { exitCode: result.exitCode, output: `${result.stdout.toString()}${result.stderr.toString()}` };
}

export interface RunningPrometheus {
  /** Its HTTP API and UI, on loopback. */
  readonly url: string;
  readonly output: () => string;
  /** GET on its HTTP API (`/api/v1/...`), the `data` of a successful answer; throws on an error answer. */
  api<T>(path: string): Promise<T>;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Its configuration, as YAML text (rule_files paths absolute). */
  readonly config: string;
  /** Where its configuration and data go. */
  readonly dir: string;
}

/** Starts Prometheus on a free loopback port and waits until it is ready. */
export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  if (!PROMETHEUS) throw new Error("prometheus is not installed");
  const port = await freePort();
  const configFile = join(options.dir, "prometheus.yml");
  const data = join(options.dir, "data");
  mkdirSync(data, { recursive: true });
  writeFileSync(configFile, options.config);
  const proc = Bun.spawn(
    [PROMETHEUS, `--config.file=${configFile}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`, "--web.enable-lifecycle", "--log.level=warn"],
    { stdout: "pipe", stderr: "pipe", stdin: "ignore" },
  );
  const chunks: string[] = [];
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stream) chunks.push(decoder.decode(chunk, { stream: true }));
    })();
  }
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`prometheus exited with ${proc.exitCode}:\n${chunks.join("")}`);
    try {
      if ((await fetch(`${url}/-/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`prometheus was not ready in time:\n${chunks.join("")}`);
    }
    await Bun.sleep(100);
  }
  return {
    url,
    output: () => chunks.join(""),
    async api<T>(path: string): Promise<T> {
      const response = await fetch(`${url}${path}`);
      const body = (await response.json()) as { status: string; data: T; error?: string };
      if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.error ?? response.status}`);
      return body.data;
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

export interface DashboardPanel {
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly targets?: readonly { readonly expr: string; readonly refId: string; readonly datasource?: { readonly uid: string } }[];
}

/** The parts of deploy/grafana/hub.json the tests read. */
export interface Dashboard {
  readonly title: string;
  readonly uid: string;
  readonly panels: readonly DashboardPanel[];
  readonly templating: { readonly list: readonly { readonly name: string; readonly type: string; readonly query: unknown }[] };
}

/** Grafana's own variables a panel may use, each with a value that makes the expression plain PromQL. */
const GRAFANA_VARIABLES: Readonly<Record<string, string>> = { __rate_interval: "5m", __interval: "1m", __range: "1h" };

/** A dashboard expression with the dashboard's variables (as `.*`) and Grafana's replaced, and the variables it names that nothing defines. */
export function plainPromql(expr: string, variables: readonly string[]): { readonly promql: string; readonly unknown: readonly string[] } {
  const unknown: string[] = [];
  const promql = expr.replaceAll(/\$\{?(\w+)\}?/g, (whole, name: string) => {
    const grafana = GRAFANA_VARIABLES[name];
    if (grafana !== undefined) return grafana;
    if (variables.includes(name)) return ".*";
    unknown.push(name);
    return whole;
  });
  return { promql, unknown };
}

/** The hub's metric names an expression reads (every `hub_…` word: no label of the hub's starts so). */
export function hubMetricsIn(expr: string): string[] {
  return [...new Set(expr.match(/\bhub_[a-z0-9_]+/g) ?? [])];
}
