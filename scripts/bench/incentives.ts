/**
 * GET …/incentives against a bare Bun.serve returning a string of the same
 * size: same tool (wrk), same connections, alternating rounds, medians.
 */
import { fmt, freePort, hasWrk, median, printBenchRows, scratch, startHubProcess, startProcess, wrk, type BenchRow } from "./common.ts";
import { REGION_TOKENS, seedLiveHub } from "./seed.ts";

const CONNECTIONS = 64;
const ROUND_SECONDS = 5;
const ROUNDS = 3;

export async function incentivesBench(): Promise<BenchRow[]> {
  if (!hasWrk()) {
    console.warn("wrk is not installed (apt-get install wrk): the incentives benchmark is skipped");
    return [{ figure: "GET /incentives req/s", value: "skipped (no wrk)", budget: "≥ 85 % of bare", baseline: "-", ratio: "-", ok: null }];
  }
  const dir = scratch("incentives");
  const hub = await startHubProcess(["--db", `${dir.path}/hub.db`, "--provision", REGION_TOKENS]);
  try {
    await seedLiveHub(hub.url);
    const url = `${hub.url}/api/v1/platforms/Windows/incentives`;
    const size = (await (await fetch(url)).arrayBuffer()).byteLength;
    const port = await freePort();
    const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-server.ts`, String(size), String(port)], `http://127.0.0.1:${port}/`);
    try {
      await wrk(url, { connections: CONNECTIONS, seconds: 1 });
      await wrk(`${bare.url}/`, { connections: CONNECTIONS, seconds: 1 });
      const hubRuns = [];
      const bareRuns = [];
      for (let round = 0; round < ROUNDS; round++) {
        bareRuns.push(await wrk(`${bare.url}/`, { connections: CONNECTIONS, seconds: ROUND_SECONDS }));
        hubRuns.push(await wrk(url, { connections: CONNECTIONS, seconds: ROUND_SECONDS }));
      }
      const hubRps = median(hubRuns.map((r) => r.requestsPerSecond));
      const bareRps = median(bareRuns.map((r) => r.requestsPerSecond));
      return [
        {
          figure: `GET /incentives req/s (${size} B, ${CONNECTIONS} connections, wrk)`,
          value: fmt(hubRps, 0),
          budget: "≥ 85 % of bare",
          baseline: `${fmt(bareRps, 0)} bare Bun.serve`,
          ratio: `${fmt((hubRps / bareRps) * 100)} %`,
          ok: hubRps / bareRps >= 0.85,
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
