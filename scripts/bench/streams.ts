/**
 * Stream fan-out: 5,000 open streams; the delay from the moment a reading
 * was sent to its arrival on every stream, and the hub's memory per open stream, beside a
 * bare Bun.serve that fans the same frames out with no logic at all.
 */
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { checkLatencies, delaysSince, fmt, freePort, median, percentile, printBenchRows, rssBytes, scratch, startHubProcess, startProcess, type BenchRow } from "./common.ts";
import { REGION_TOKENS, seedLiveHub } from "./seed.ts";
import { openStreams, type StreamClients } from "./sse-clients.ts";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000);
const ROUNDS = 5;
const MOVERS = Array.from({ length: ROUNDS }, (_, i) => ({ id: `mover-${i}`, token: `mover-token-${i}-abcdefghijklmnop`, region: BUILT_IN_REGIONS[i]?.id ?? "eu-west-1" }));

async function waitConnected(clients: StreamClients): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (clients.latestIds.some((id) => id === 0) && Date.now() < deadline) await Bun.sleep(20);
}

interface Fanout {
  readonly delays: number[];
  readonly perStreamBytes: number;
  readonly lost: number;
}

async function measure(name: string, pid: number, host: string, port: number, path: string, publish: (round: number) => Promise<void>): Promise<Fanout> {
  await Bun.sleep(300);
  const idle = rssBytes(pid);
  const clients = await openStreams(host, port, path, STREAMS);
  await waitConnected(clients);
  await Bun.sleep(500);
  const open = rssBytes(pid);
  const delays: number[] = [];
  let lost = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const next = Math.max(...clients.latestIds) + 1;
    const { sent, arrivals } = await clients.arrivalsAfter(next, 10_000, async () => {
      const sentAt = performance.now();
      await publish(round);
      return sentAt;
    });
    const arrived = arrivals.filter((t): t is number => t !== null);
    lost += arrivals.length - arrived.length;
    delays.push(...delaysSince(sent, arrived, `${name}, round ${round}`));
    await Bun.sleep(200);
  }
  clients.close();
  await checkLatencies(`${name}: push to ${STREAMS} streams, p50 / p99`, [median(delays), percentile(delays, 0.99)]);
  return { delays, perStreamBytes: (open - idle) / STREAMS, lost };
}

export async function streamsBench(): Promise<BenchRow[]> {
  const dir = scratch("streams");
  const movers = MOVERS.map((m) => `${m.id}:${m.token}:${m.region}:steam`).join(",");
  const hub = await startHubProcess(["--db", `${dir.path}/hub.db`, "--provision", `${REGION_TOKENS},${movers}`, "--max-streams", String(STREAMS * 2), "--max-streams-per-client", String(STREAMS * 2)]);
  let hubResult: Fanout;
  let size: number;
  try {
    await seedLiveHub(hub.url);
    size = (await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).arrayBuffer()).byteLength;
    const url = new URL(hub.url);
    hubResult = await measure("hub", hub.pid, url.hostname, Number(url.port), "/api/v1/platforms/Windows/incentives/stream", async (round) => {
      const mover = MOVERS[round];
      if (!mover) throw new Error("no agent left for this round");
      const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
        method: "POST",
        headers: { authorization: `Bearer ${mover.token}`, "content-type": "application/json" },
        body: JSON.stringify({ region: mover.region, platform: "Windows", survivor: 25 * (round + 1), killer: 0, ratio: 0.5, isReal: true, measuredAt: new Date().toISOString() }),
      });
      if (response.status !== 201) throw new Error(`reading refused: ${response.status}`);
    });
  } finally {
    await hub.stop();
    dir.cleanup();
  }

  const port = await freePort();
  const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-sse.ts`, String(size), String(port)], `http://127.0.0.1:${port}/`);
  let bareResult: Fanout;
  try {
    bareResult = await measure("bare fan-out", bare.pid, "127.0.0.1", port, "/stream", async () => {
      const response = await fetch(`http://127.0.0.1:${port}/publish`, { method: "POST" });
      if (response.status !== 201) throw new Error("publish failed");
    });
  } finally {
    await bare.stop();
  }

  const p99 = percentile(hubResult.delays, 0.99);
  const kb = hubResult.perStreamBytes / 1024;
  return [
    {
      figure: `Stream push to ${STREAMS} streams, p50 / p99`,
      value: `${fmt(median(hubResult.delays))} / ${fmt(p99)} ms${hubResult.lost ? ` (${hubResult.lost} missed)` : ""}`,
      budget: "p99 < 250 ms",
      baseline: `${fmt(median(bareResult.delays))} / ${fmt(percentile(bareResult.delays, 0.99))} ms bare fan-out`,
      ratio: `${fmt(p99 / Math.max(1, percentile(bareResult.delays, 0.99)), 1)}×`,
      ok: p99 < 250 && hubResult.lost === 0,
    },
    {
      figure: "Hub memory per open stream",
      value: `${fmt(kb)} KB`,
      budget: "< 20 KB",
      baseline: `${fmt(bareResult.perStreamBytes / 1024)} KB bare`,
      ratio: `${fmt(hubResult.perStreamBytes / bareResult.perStreamBytes, 1)}×`,
      ok: kb < 20,
    },
  ];
}

if (import.meta.main) printBenchRows("Streams", await streamsBench());
