/**
 * The stream past one machine (SPEC §20): open streams through two Debian
 * Pushpin instances in front of one hub, growing from 1,000 towards 50,000
 * (BENCH_GRIP_STREAMS); at each size the push delay from the moment a
 * reading was sent to its arrival on each client, and the hub's own memory
 * and CPU, which should stay flat. Both columns are timed alike: a direct
 * push may well leave before the reading's 201 does, so the 201 is no start.
 * Beside it, the same hub serving the streams itself, up to MAX_STREAMS.
 * Clients live in several processes, since one process may hold only as many
 * sockets as its file-descriptor limit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { preparePushpin, PUSHPIN, type RunningPushpin } from "../support/pushpin.ts";
import { checkLatencies, delaysSince, fmt, percentile, printBenchRows, rssBytes, scratch, startHubProcess, type BenchRow, type Running } from "./common.ts";
import { REGION_AGENTS, REGION_TOKENS, seedLiveHub } from "./seed.ts";

const TARGET = Number(process.env.BENCH_GRIP_STREAMS ?? 50_000);
const STEPS = [1_000, 5_000, 10_000, 20_000, 35_000, 50_000].filter((n) => n <= TARGET);
const DIRECT_MAX = 10_000;
const ROUNDS = 3;
const KEY = "bench-grip-key-0123456789abcdef";
const STREAM = "/api/v1/platforms/Windows/incentives/stream";
const TICKS_PER_SECOND = 100;

/** This machine's limit on open files per process, which caps sockets per client process and viewers per Pushpin. */
function fileLimit(): number {
  const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
  return Number(line?.split(/\s+/)[3] ?? 1024);
}

function cpuTicks(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended
    }
  }
  return ticks;
}

function rssOf(pids: readonly number[]): number {
  let bytes = 0;
  for (const pid of pids) {
    try {
      bytes += rssBytes(pid);
    } catch {
      // ended
    }
  }
  return bytes;
}

interface Worker {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "inherit">;
  readonly count: number;
  next(): Promise<string>;
}

function startWorker(url: string, count: number): Worker {
  const target = new URL(url);
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "grip-clients.ts"), target.hostname, target.port, STREAM, String(count)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    proc,
    count,
    async next() {
      for (;;) {
        const end = buffer.indexOf("\n");
        if (end !== -1) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          return line;
        }
        const { done, value } = await reader.read();
        if (done) throw new Error("client process ended");
        buffer += decoder.decode(value, { stream: true });
      }
    },
  };
}

interface Step {
  /** The size aimed at; `streams` is how many opened. */
  readonly target: number;
  readonly streams: number;
  readonly p50: number;
  readonly p99: number;
  readonly missed: number;
  readonly hubRss: number;
  readonly hubCpu: number;
  readonly proxyRss: number;
  readonly proxyCpu: number;
}

/**
 * The agents whose readings make the measured changes, one reading each per hub: rule 5 spaces an agent's readings
 * by at least 0.8 × its poll minimum (300 s or more), so no agent is asked for a second one.
 */
const CHANGE_AGENTS = Array.from({ length: STEPS.length * ROUNDS }, (_, i) => {
  const region = REGION_AGENTS[i % REGION_AGENTS.length]?.region ?? "eu-central-1";
  return { id: `bench-change-${i}`, token: `bench-change-${String(i).padStart(4, "0")}-abcdefghij`, region };
});
const CHANGE_TOKENS = CHANGE_AGENTS.map((a) => `${a.id}:${a.token}:${a.region}:steam`).join(",");
const changesSent = new Map<string, number>();

/** Posts a reading that changes the payload; returns the epoch-ms moment it was sent, the start of every push delay. */
async function change(hub: Running): Promise<number> {
  const n = changesSent.get(hub.url) ?? 0;
  changesSent.set(hub.url, n + 1);
  const agent = CHANGE_AGENTS[n];
  if (!agent) throw new Error(`grip bench: more changes than the ${CHANGE_AGENTS.length} agents provisioned for them`);
  const sent = performance.timeOrigin + performance.now();
  const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
    body: JSON.stringify({ region: agent.region, platform: "Windows", survivor: (n % 9) * 25, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
  });
  if (response.status !== 201) throw new Error(`reading refused: ${response.status} ${await response.text()}`);
  return sent;
}

/** Opens streams in steps through `entries` (round robin), measuring each step; stops where the machine does. */
async function grow(hub: Running, entries: readonly string[], steps: readonly number[], proxies: () => number[], perProcess: number, perEntry: number): Promise<{ steps: Step[]; limit: string | null }> {
  const workers: Worker[] = [];
  const onEntry = entries.map(() => 0);
  const results: Step[] = [];
  let open = 0;
  let unopened = 0;
  let limit: string | null = null;
  try {
    for (const target of steps) {
      while (open < target) {
        const entry = onEntry.indexOf(Math.min(...onEntry));
        const count = Math.min(target - open, perProcess, perEntry - (onEntry[entry] ?? 0));
        if (count <= 0) {
          limit = `file descriptors: each Pushpin's condure holds one per viewer, and a process may open ${fileLimit()} here (hard limit)`;
          break;
        }
        const worker = startWorker(entries[entry] ?? "", count);
        const line = await worker.next();
        workers.push(worker);
        const connected = Number(line.split(" ")[1]);
        onEntry[entry] = (onEntry[entry] ?? 0) + count;
        open += connected;
        unopened += count - connected;
        // A few refused under a burst are Pushpin's (docs/decisions/0042-streams-through-grip-proxies.md); most refused means the machine is at its end.
        if (connected < count * 0.9) {
          limit = `only ${connected} of ${count} streams of one client process opened`;
          break;
        }
      }
      if (open === (results.at(-1)?.streams ?? 0)) break;
      if (unopened > 0) console.error(`grip bench: ${unopened} streams refused on the way to ${target}`);
      await Bun.sleep(1000);
      const pids = [hub.pid];
      const cpuBefore = cpuTicks(pids);
      const proxyBefore = cpuTicks(proxies());
      const started = performance.now();
      const delays: number[] = [];
      let missed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const before = await currentRevision(hub);
        const sent = await change(hub);
        const revision = await nextRevision(hub, before);
        const deadline = Date.now() + 8_000;
        let arrivals: (number | null)[] = [];
        for (;;) {
          arrivals = [];
          for (const worker of workers) {
            worker.proc.stdin.write(`report ${revision}\n`);
            arrivals.push(...(JSON.parse(await worker.next()) as (number | null)[]));
          }
          if (arrivals.every((t) => t !== null) || Date.now() > deadline) break;
          await Bun.sleep(200);
        }
        missed += arrivals.filter((t) => t === null).length;
        delays.push(...delaysSince(sent, arrivals.filter((t): t is number => t !== null), `grip bench, revision ${revision}`));
        await Bun.sleep(1100);
      }
      const seconds = (performance.now() - started) / 1000;
      const p50 = percentile(delays, 0.5);
      const p99 = percentile(delays, 0.99);
      await checkLatencies(`push to ${open} streams${proxies().length > 0 ? " through Pushpin" : " served directly"}, p50 / p99`, [p50, p99]);
      results.push({
        target,
        streams: open,
        p50,
        p99,
        missed,
        hubRss: rssBytes(hub.pid),
        hubCpu: ((cpuTicks(pids) - cpuBefore) / TICKS_PER_SECOND / seconds) * 100,
        proxyRss: rssOf(proxies()),
        proxyCpu: ((cpuTicks(proxies()) - proxyBefore) / TICKS_PER_SECOND / seconds) * 100,
      });
      console.error(`grip bench: ${open} streams measured`);
      if (limit) break;
    }
  } finally {
    for (const worker of workers) {
      worker.proc.stdin.write("close\n");
      worker.proc.kill();
    }
    await Promise.all(workers.map((w) => w.proc.exited));
  }
  return { steps: results, limit };
}

async function currentRevision(hub: Running): Promise<number> {
  return Number((await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).headers.get("etag")?.replaceAll('"', ""));
}

async function nextRevision(hub: Running, before: number): Promise<number> {
  for (;;) {
    const now = await currentRevision(hub);
    if (now > before) return now;
    await Bun.sleep(5);
  }
}

const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024, 0)} MB`;

export async function gripBench(): Promise<BenchRow[]> {
  if (!PUSHPIN) {
    console.warn("grip bench: SKIPPED, pushpin is not installed (apt-get install pushpin)");
    return [];
  }
  const limit = fileLimit();
  // Headroom for each process's own files: its libraries, sockets to the hub, ZeroMQ.
  const perProcess = Math.min(19_000, limit - 500);
  const dir = scratch("grip");
  const env = { POLL_MIN_SECONDS: "1" };
  // Every client here is 127.0.0.1, which the hub would otherwise take for one client holding every stream and request.
  const provision = ["--provision", `${REGION_TOKENS},${CHANGE_TOKENS}`, "--max-streams-per-client", String(DIRECT_MAX * 2), "--max-requests-per-client", "1000000"];

  const direct = await startHubProcess(["--db", `${dir.path}/direct.db`, ...provision, "--max-streams", String(DIRECT_MAX)], env);
  let directSteps: Step[];
  try {
    await seedLiveHub(direct.url);
    directSteps = (await grow(direct, [direct.url], STEPS.filter((n) => n <= DIRECT_MAX), () => [], perProcess, DIRECT_MAX)).steps;
  } finally {
    await direct.stop();
  }

  const prepared = await Promise.all([0, 1].map((n) => preparePushpin(join(dir.path, `pushpin-${n}`), KEY)));
  const hub = await startHubProcess(["--db", `${dir.path}/grip.db`, ...provision], { ...env, GRIP_URL: prepared.map((p) => p.publishUrl).join(","), GRIP_KEY: KEY });
  const proxies: RunningPushpin[] = [];
  let proxied: { steps: Step[]; limit: string | null };
  try {
    await seedLiveHub(hub.url);
    for (const p of prepared) proxies.push(await p.start(hub.url));
    proxied = await grow(hub, proxies.map((p) => p.url), STEPS, () => proxies.flatMap((p) => p.pids()), perProcess, limit - 500);
  } finally {
    for (const proxy of proxies) await proxy.kill();
    await hub.stop();
    dir.cleanup();
  }

  const rows: BenchRow[] = proxied.steps.map((step) => {
    const base = directSteps.find((d) => d.target === step.target);
    return {
      figure: `${step.streams.toLocaleString("en")} streams via 2 Pushpin: push p50 / p99 from the reading sent to each client; hub RSS, CPU; Pushpin RSS, CPU`,
      value: `${fmt(step.p50)} / ${fmt(step.p99)} ms${step.missed ? ` (${step.missed} missed)` : ""}; hub ${mb(step.hubRss)}, ${fmt(step.hubCpu)} %; Pushpin ${mb(step.proxyRss)}, ${fmt(step.proxyCpu)} %`,
      budget: "hub flat",
      baseline: base ? `direct: ${fmt(base.p50)} / ${fmt(base.p99)} ms; hub ${mb(base.hubRss)}, ${fmt(base.hubCpu)} %` : `direct: beyond MAX_STREAMS (${DIRECT_MAX.toLocaleString("en")}), 503`,
      ratio: base ? `${fmt(step.hubRss / base.hubRss, 2)}× hub RSS` : "—",
      ok: null,
    };
  });
  const first = proxied.steps[0];
  const last = proxied.steps.at(-1);
  if (first && last) {
    rows.push({
      figure: `Most streams through 2 Pushpin on this machine (aim ${TARGET.toLocaleString("en")})`,
      value: last.streams.toLocaleString("en"),
      budget: `limited by: ${proxied.limit ?? "none reached"}`,
      baseline: `hub RSS ${mb(first.hubRss)} at ${first.streams.toLocaleString("en")} → ${mb(last.hubRss)}`,
      ratio: `${fmt(last.hubRss / first.hubRss, 2)}×`,
      ok: last.streams >= TARGET ? true : null,
    });
  }
  return rows;
}

if (import.meta.main) printBenchRows("Streams through GRIP proxies", await gripBench());
