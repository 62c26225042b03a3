/**
 * Feeds under a crawler walking `min` (SPEC §16.3): a hub on a demo database
 * (14 days of simulated history on every platform and region, as
 * `serve --demo` makes) is asked for 240 distinct `min` values from 8
 * parallel clients, across the platforms and some regions, while one prober
 * times `/healthz` and the incentives JSON. The baseline is the same prober
 * on the same hub with no feed traffic, in the same run; the budget is every
 * probe under 50 ms throughout. The walk runs cold once (each platform's view
 * read in full for the first time), then warm for a while with a reading
 * posted every half second, so the revisions move and each change costs its
 * one build. Run alone with `bun scripts/bench/feeds.ts`.
 */
import { join } from "node:path";
import { newAgentToken, sha256Hex } from "../../src/domain/tokens.ts";
import { insertAgent } from "../../src/db/agents.ts";
import { closeDatabase } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { seedDemo } from "../../src/sim/demo.ts";
import { ms, percentile, printBenchRows, scratch, scratchDb, startHubProcess, type BenchRow, type Running } from "./common.ts";

const CLIENTS = 8;
const DISTINCT_MINS = 240;
const BUDGET_MS = 50;
const PROBE_GAP_MS = 20;
const BASELINE_MS = 8000;
/** How long the warm walk is repeated: long enough for the demo's agents to move the revisions many times. */
const SUSTAINED_MS = 8000;
const PLATFORMS = ["Windows", "EGS", "GRDK"] as const;
const REGIONS = ["eu-central-1", "us-east-1", "ap-northeast-1"] as const;
const PROBES = ["/healthz", "/api/v1/platforms/Windows/incentives"] as const;
/** Readings posted during the warm walk, each by an agent of its own (an agent's readings must be minutes apart). */
const POSTERS = 40;
const POST_GAP_MS = 500;

interface Probed {
  readonly byPath: Map<string, number[]>;
}

/** Times each probe path in turn, one request at a time, until `done` says stop. */
async function probe(url: string, done: () => boolean): Promise<Probed> {
  const byPath = new Map<string, number[]>(PROBES.map((p) => [p, []]));
  while (!done()) {
    for (const path of PROBES) {
      const started = performance.now();
      const response = await fetch(`${url}${path}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
      byPath.get(path)?.push(performance.now() - started);
    }
    await Bun.sleep(PROBE_GAP_MS);
  }
  return { byPath };
}

/** The feed paths of one walk: 240 distinct min values, each on a platform or one of its regions in turn. */
function walk(): string[] {
  return Array.from({ length: DISTINCT_MINS }, (_, i) => {
    const platform = PLATFORMS[i % PLATFORMS.length] ?? "Windows";
    const min = Math.round((i * 1000) / (DISTINCT_MINS - 1));
    const region = i % 4 === 3 ? REGIONS[i % REGIONS.length] : null;
    return region === null ? `/feeds/${platform}.atom?min=${min}` : `/feeds/${platform}/${region}.atom?min=${min}`;
  });
}

interface Walked {
  readonly feedMs: number[];
  readonly builds: number;
  readonly probed: Probed;
  readonly wallMs: number;
}

/** Posts a reading of a new value now and then, each from the next agent, until `done` says stop. */
async function postReadings(url: string, tokens: string[], done: () => boolean): Promise<number> {
  let accepted = 0;
  for (let i = 0; !done() && i < tokens.length; i++) {
    const body = { region: "eu-central-1", platform: "Windows", survivor: 0, killer: 25 * (i % 8), ratio: 1, isReal: true, measuredAt: new Date().toISOString() };
    const response = await fetch(`${url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${tokens[i]}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    await response.arrayBuffer();
    if (response.status < 300) accepted++;
    await Bun.sleep(POST_GAP_MS);
  }
  return accepted;
}

/** Walks the 240 mins from 8 clients, again and again until `forMs` has passed (once when 0), while the prober runs and readings arrive. */
async function walkWhileProbing(hub: Running, forMs: number, posters: string[]): Promise<Walked & { posted: number }> {
  const feedMs: number[] = [];
  let builds = 0;
  let finished = false;
  const prober = probe(hub.url, () => finished);
  const poster = postReadings(hub.url, posters, () => finished);
  const started = performance.now();
  do {
    const queue = walk();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
          const t0 = performance.now();
          const response = await fetch(`${hub.url}${path}`);
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
          feedMs.push(performance.now() - t0);
          if ((response.headers.get("server-timing") ?? "").startsWith("build")) builds++;
        }
      }),
    );
  } while (performance.now() - started < forMs);
  const wallMs = performance.now() - started;
  finished = true;
  return { feedMs, builds, probed: await prober, wallMs, posted: await poster };
}

const worst = (values: readonly number[]): number => Math.max(...values);

export async function feedsBench(): Promise<BenchRow[]> {
  const dir = scratch("feeds");
  const db = scratchDb(dir.path);
  const end = Date.now();
  const world = seedDemo(db, BUILT_IN_REGIONS, end);
  const posters = Array.from({ length: POSTERS }, () => {
    const token = newAgentToken();
    insertAgent(db.orm, { tokenHash: sha256Hex(token), provider: "steam", region: "eu-central-1", label: null, source: "manual" }, end);
    return token;
  });
  closeDatabase(db);
  const hub = await startHubProcess(["--db", join(dir.path, "bench.db")], {}, true);
  try {
    let baselineDone = false;
    const baselineTimer = Bun.sleep(BASELINE_MS).then(() => (baselineDone = true));
    const baseline = await probe(hub.url, () => baselineDone);
    await baselineTimer;
    const cold = await walkWhileProbing(hub, 0, []);
    const warm = await walkWhileProbing(hub, SUSTAINED_MS, posters);
    const rows: BenchRow[] = [];
    for (const [label, run] of [
      ["cold: each platform's view read for the first time", cold],
      [`warm, repeated for ${SUSTAINED_MS / 1000} s, a reading every ${POST_GAP_MS} ms`, warm],
    ] as const) {
      for (const path of PROBES) {
        const during = run.probed.byPath.get(path) ?? [];
        const before = baseline.byPath.get(path) ?? [];
        rows.push({
          figure: `${path} while ${CLIENTS} clients walk ${DISTINCT_MINS} feed mins (${label}), worst of ${during.length}`,
          value: `${ms(worst(during))} (p50 ${ms(percentile(during, 0.5))}, p99 ${ms(percentile(during, 0.99))})`,
          budget: `< ${BUDGET_MS} ms throughout`,
          baseline: `no feed traffic: worst ${ms(worst(before))} (p50 ${ms(percentile(before, 0.5))}, p99 ${ms(percentile(before, 0.99))}) of ${before.length}`,
          ratio: `${(worst(during) / worst(before)).toFixed(2)}×`,
          ok: worst(during) < BUDGET_MS,
        });
      }
      rows.push({
        figure: `Feed answers (${label}): ${run.feedMs.length} in ${ms(run.wallMs)}; builds (Server-Timing) ${run.builds} for ${run.posted} readings posted, on ${world.readings.toLocaleString("en-US")} stored`,
        value: `p50 ${ms(percentile(run.feedMs, 0.5))}, p99 ${ms(percentile(run.feedMs, 0.99))}`,
        budget: "",
        baseline: "",
        ratio: "",
        ok: null,
      });
    }
    return rows;
  } finally {
    await hub.stop();
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Feeds under a min walk", await feedsBench());
