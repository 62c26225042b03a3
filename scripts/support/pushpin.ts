/**
 * Debian's Pushpin for the end-to-end tests and the GRIP bench: each instance
 * gets its own directory (runner, ZeroMQ sockets, logs) and free loopback
 * ports, built from the deploy recipe's configuration so the recipe itself is
 * tested.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./ports.ts";

const ROOT = join(import.meta.dir, "..", "..");

export const PUSHPIN = Bun.which("pushpin");

/** Skips loudly without Pushpin, but fails in CI, where .ci/run installs it. */
export function pushpinAvailable(): boolean {
  if (PUSHPIN) return true;
  if (process.env.CI) throw new Error("pushpin is not installed, and CI must run the GRIP tests (.ci/run installs it: apt-get install pushpin)");
  console.warn("\n################################################################\n# pushpin is not installed: the GRIP tests are SKIPPED.\n# apt-get install pushpin to run them.\n################################################################\n");
  return false;
}

/** Processes of a session, from /proc (field 6 of stat is the session id). */
function sessionMembers(sid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[3]) === sid) members.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return members;
}

export interface RunningPushpin {
  /** Every process of this instance (runner, condure, zurl, proxy, handler), for measuring them. */
  pids(): number[];
  /** Where clients connect. */
  readonly url: string;
  /** The publish endpoint, as GRIP_URL names it. */
  readonly publishUrl: string;
  /** The handler's Prometheus metrics, as GRIP_STATS_URL names them. */
  readonly statsUrl: string;
  readonly output: () => string;
  /** Starts it again on the same ports, after kill(). */
  restart(): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

interface Ports {
  readonly http: number;
  readonly publish: number;
  readonly pull: number;
  readonly sub: number;
  readonly command: number;
  readonly prometheus: number;
}

/** Settings of pushpin.conf that differ from the recipe's for one instance, by name (`id_cache_ttl`: "0"). */
export type PushpinOverrides = Readonly<Record<string, string>>;

/** The recipe's pushpin.conf with this instance's directory, ports and key, and any overrides. */
function configFor(dir: string, ports: Ports, key: string, overrides: PushpinOverrides): string {
  let recipe = readFileSync(join(ROOT, "deploy", "pushpin", "pushpin.conf"), "utf8");
  for (const [name, value] of Object.entries(overrides)) {
    const line = new RegExp(`^${name}=.*$`, "m");
    if (!line.test(recipe)) throw new Error(`the recipe's pushpin.conf has no ${name}= to override`);
    recipe = recipe.replace(line, `${name}=${value}`);
  }
  return recipe
    .replace(/^rundir=.*$/m, `rundir=${join(dir, "run")}`)
    .replace(/^logdir=.*$/m, `logdir=${join(dir, "log")}`)
    .replace(/^routesfile=.*$/m, `routesfile=${join(dir, "routes")}`)
    .replace(/^http_port=.*$/m, `http_port=${ports.http}`)
    .replace(/^sig_key=.*$/m, `sig_key=${key}`)
    .replace(/^push_in_spec=.*$/m, `push_in_spec=tcp://127.0.0.1:${ports.pull}`)
    .replace(/^push_in_sub_specs=.*$/m, `push_in_sub_specs=tcp://127.0.0.1:${ports.sub}`)
    .replace(/^push_in_http_port=.*$/m, `push_in_http_port=${ports.publish}`)
    .replace(/^command_spec=tcp.*$/m, `command_spec=tcp://127.0.0.1:${ports.command}`)
    .replace(/^prometheus_port=.*$/m, `prometheus_port=127.0.0.1:${ports.prometheus}`);
}

export interface PreparedPushpin {
  /** The publish endpoint, as GRIP_URL names it, known before the hub starts. */
  readonly publishUrl: string;
  /** The metrics endpoint, as GRIP_STATS_URL names it. */
  readonly statsUrl: string;
  start(hubUrl: string): Promise<RunningPushpin>;
}

/** Picks the ports first, so that the hub can be told the publish endpoint before either runs. */
export async function preparePushpin(dir: string, key: string, overrides: PushpinOverrides = {}): Promise<PreparedPushpin> {
  const ports = { http: await freePort(), publish: await freePort(), pull: await freePort(), sub: await freePort(), command: await freePort(), prometheus: await freePort() };
  return { publishUrl: `http://127.0.0.1:${ports.publish}`, statsUrl: statsUrlOf(ports), start: (hubUrl) => startPushpin(dir, hubUrl, key, ports, overrides) };
}

function statsUrlOf(ports: Ports): string {
  return `http://127.0.0.1:${ports.prometheus}/metrics`;
}

async function startPushpin(dir: string, hubUrl: string, key: string, ports: Ports, overrides: PushpinOverrides): Promise<RunningPushpin> {
  mkdirSync(join(dir, "run"), { recursive: true });
  mkdirSync(join(dir, "log"), { recursive: true });
  const hub = new URL(hubUrl);
  const routes = readFileSync(join(ROOT, "deploy", "pushpin", "routes"), "utf8").replace(/^\*\s+\S+/m, `* ${hub.hostname}:${hub.port}`);
  writeFileSync(join(dir, "routes"), routes);
  writeFileSync(join(dir, "pushpin.conf"), configFor(dir, ports, key, overrides));
  const chunks: string[] = [];
  let proc: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
  const url = `http://127.0.0.1:${ports.http}`;
  const publishUrl = `http://127.0.0.1:${ports.publish}`;

  const launch = async (): Promise<void> => {
    const started = Bun.spawn([PUSHPIN ?? "pushpin", "--config", join(dir, "pushpin.conf"), "--port", `127.0.0.1:${ports.http}`, "--merge-output"], {
      cwd: dir,
      // Its own session, so that a kill can find condure, zurl, the proxy and the handler that the runner starts.
      detached: true,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc = started;
    const decoder = new TextDecoder();
    for (const stream of [started.stdout, started.stderr]) {
      void (async () => {
        for await (const chunk of stream) chunks.push(decoder.decode(chunk, { stream: true }));
      })();
    }
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`pushpin exited with ${started.exitCode}:\n${chunks.join("")}`);
      // Ready once both the proxy side and the publish endpoint answer. Each check closes its connection, so
      // that a node counts no leftover idle connection among its viewers (the presence test waits for zero).
      const answers = (input: string, init: RequestInit = {}) =>
        fetch(input, { ...init, keepalive: false, signal: AbortSignal.timeout(1000) }).then(async (r) => (await r.arrayBuffer(), r.status === 200), () => false);
      const ready = await Promise.all([
        answers(`${url}/healthz`, { headers: { connection: "close" } }),
        answers(`${publishUrl}/publish/`, { method: "POST", body: '{"items":[]}', headers: { "content-type": "application/json", connection: "close" } }),
      ]);
      if (ready.every(Boolean)) return;
      if (Date.now() > deadline) {
        started.kill("SIGKILL");
        throw new Error(`pushpin did not start in time:\n${chunks.join("")}`);
      }
      await Bun.sleep(50);
    }
  };

  await launch();
  return {
    pids: () => {
      const running = proc as Bun.Subprocess<"ignore", "pipe", "pipe"> | null;
      return running ? sessionMembers(running.pid) : [];
    },
    url,
    publishUrl,
    statsUrl: statsUrlOf(ports),
    output: () => chunks.join(""),
    restart: launch,
    async kill(signal = "SIGKILL") {
      const running = proc;
      proc = null;
      if (!running) return;
      // The runner puts each of its services in a process group of its own, but all stay in its session.
      for (const pid of [running.pid, ...sessionMembers(running.pid)]) {
        try {
          process.kill(pid, signal);
        } catch {
          // already gone
        }
      }
      await running.exited;
      // Its subprocesses (condure, zurl, proxy, handler) go with the group; wait until the port is free again.
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && (await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(500) }).then(() => true, () => false))) await Bun.sleep(50);
    },
  };
}
