/**
 * GET …/incentives against a bare Bun.serve returning a string of the same
 * size: same tool (wrk), same connections, alternating rounds, medians.
 */
import { checkLatencies, fmt, freePort, hasWrk, median, PINNING, printBenchRows, scratch, startHubProcess, startProcess, wrk, type BenchRow, type WrkResult } from "./common.ts";
import { REGION_TOKENS, seedLiveHub } from "./seed.ts";

const CONNECTIONS = 64;
const ROUND_SECONDS = 3;
const ROUNDS = 9;

export async function incentivesBench(): Promise<BenchRow[]> {
  if (!hasWrk()) {
    console.warn("wrk is not installed (apt-get install wrk): the incentives benchmark is skipped");
    return [{ figure: "GET /incentives req/s", value: "skipped (no wrk)", budget: "≥ 85 % of bare", baseline: "-", ratio: "-", ok: null }];
  }
  const dir = scratch("incentives");
  const hub = await startHubProcess(["--db", `${dir.path}/hub.db`, "--provision", REGION_TOKENS], {}, true);
  try {
    await seedLiveHub(hub.url);
    const url = `${hub.url}/api/v1/platforms/Windows/incentives`;
    const size = (await (await fetch(url)).arrayBuffer()).byteLength;
    const port = await freePort();
    const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-server.ts`, String(size), String(port)], `http://127.0.0.1:${port}/`, {}, 30_000, true);
    try {
      await wrk(url, { connections: CONNECTIONS, seconds: 1 });
      await wrk(`${bare.url}/`, { connections: CONNECTIONS, seconds: 1 });
      const hubRuns: WrkResult[] = [];
      const bareRuns: WrkResult[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        bareRuns.push(await wrk(`${bare.url}/`, { connections: CONNECTIONS, seconds: ROUND_SECONDS }));
        hubRuns.push(await wrk(url, { connections: CONNECTIONS, seconds: ROUND_SECONDS }));
      }
      const hubRps = median(hubRuns.map((r) => r.requestsPerSecond));
      const bareRps = median(bareRuns.map((r) => r.requestsPerSecond));
      // Each hub round is compared with the bare round just before it; the median of those ratios resists the machine's drift.
      const ratio = median(hubRuns.map((r, i) => r.requestsPerSecond / (bareRuns[i]?.requestsPerSecond ?? Number.NaN)));
      await checkLatencies("GET /incentives latency p50 / p99", [median(hubRuns.map((r) => r.p50Ms)), median(hubRuns.map((r) => r.p99Ms))]);
      await checkLatencies("bare Bun.serve latency p50 / p99", [median(bareRuns.map((r) => r.p50Ms)), median(bareRuns.map((r) => r.p99Ms))]);
      return [
        {
          figure: `GET /incentives req/s (${size} B, ${CONNECTIONS} connections, wrk${PINNING ? ", server and wrk on separate cores" : ""})`,
          value: fmt(hubRps, 0),
          budget: "≥ 85 % of bare",
          baseline: `${fmt(bareRps, 0)} bare Bun.serve`,
          ratio: `${fmt(ratio * 100)} %`,
          ok: ratio >= 0.85,
        },
        {
          figure: "GET /incentives latency p50 / p99",
          value: `${fmt(median(hubRuns.map((r) => r.p50Ms)), 2)} / ${fmt(median(hubRuns.map((r) => r.p99Ms)), 2)} ms`,
          budget: "—",
          baseline: `${fmt(median(bareRuns.map((r) => r.p50Ms)), 2)} / ${fmt(median(bareRuns.map((r) => r.p99Ms)), 2)} ms`,
          ratio: "—",
          ok: null,
        },
      ];
    } finally {
      await bare.stop();
    }
  } finally {
    await hub.stop();
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Incentives", await incentivesBench());
