/**
 * GET …/incentives against a bare Bun.serve returning a string of the same
 * size: same tool (wrk), same connections, alternating rounds, medians.
 */
import { freePort, hasWrk, median, printTable, scratchDir, startHub, startProcess, wrk, fmt, type Row } from "./harness.ts";
import { REGION_TOKENS, seedLiveHub } from "./seed.ts";

const CONNECTIONS = 64;
const ROUND_SECONDS = 5;
const ROUNDS = 3;

export async function benchIncentives(): Promise<Row[]> {
  if (!hasWrk()) {
    console.warn("wrk is not installed (apt-get install wrk): the incentives benchmark is skipped");
    return [{ figure: "GET /incentives vs bare Bun.serve", value: "skipped (no wrk)", budget: "≥ 85 %", baseline: "-", verdict: "info" }];
  }
  const dir = scratchDir();
  const hub = await startHub(["--db", `${dir.path}/hub.db`, "--provision", REGION_TOKENS]);
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
      const ratio = hubRps / bareRps;
      return [
        {
          figure: `GET /incentives req/s (${size} B, ${CONNECTIONS} conns)`,
          value: `${fmt(hubRps, 0)} (${fmt(ratio * 100)} %)`,
          budget: "≥ 85 % of bare",
          baseline: `${fmt(bareRps, 0)} req/s bare Bun.serve`,
          verdict: ratio >= 0.85 ? "met" : "MISSED",
        },
        {
          figure: "GET /incentives latency p50 / p99",
          value: `${fmt(median(hubRuns.map((r) => r.p50Ms)), 2)} / ${fmt(median(hubRuns.map((r) => r.p99Ms)), 2)} ms`,
          budget: "-",
          baseline: `${fmt(median(bareRuns.map((r) => r.p50Ms)), 2)} / ${fmt(median(bareRuns.map((r) => r.p99Ms)), 2)} ms`,
          verdict: "info",
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

if (import.meta.main) printTable("Incentives", await benchIncentives());
