/**
 * Ingest: readings posted at a fixed rate for 30 s by many agents (each may
 * post once per 240 s, so one agent per reading), against a bare Bun.serve
 * that only parses and inserts. Reports the rate sustained, p99 latency and
 * readings lost (acknowledged with 201 but not stored).
 */
import { Database } from "bun:sqlite";
import { sha256Hex } from "../../src/auth/tokens.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS, PROVIDERS, platformOf } from "../../src/domain/catalogue.ts";
import { fmt, freePort, percentile, printTable, scratchDir, startHub, startProcess, type Row } from "./harness.ts";

const RATE = Number(process.env.BENCH_INGEST_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 30);
const TICK_MS = 5;

interface Agent {
  readonly token: string;
  readonly region: string;
  readonly platform: string;
}

/** One agent per reading to send, spread over every (platform, region). */
function createAgents(path: string, count: number): Agent[] {
  const db = openDatabase(path);
  migrate(db);
  const agents: Agent[] = [];
  const insert = db.sqlite.query("INSERT INTO agents (token_hash, provider, platform, region, source, created_at, updated_at) VALUES (?, ?, ?, ?, 'manual', 0, 0)");
  db.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const provider = PROVIDERS[i % PROVIDERS.length] ?? "steam";
      const region = BUILT_IN_REGIONS[Math.floor(i / PROVIDERS.length) % BUILT_IN_REGIONS.length]?.id ?? "eu-west-1";
      const token = `ingest-bench-agent-${i}-${crypto.randomUUID()}`;
      insert.run(sha256Hex(token), provider, platformOf(provider), region);
      agents.push({ token, region, platform: platformOf(provider) });
    }
  })();
  db.sqlite.close();
  return agents;
}

interface Load {
  readonly sent: number;
  readonly acknowledged: number;
  readonly latencies: number[];
  readonly seconds: number;
  readonly errors: number;
}

/** Open-loop load: RATE requests per second, whatever the server's pace. */
async function drive(url: string, agents: readonly Agent[]): Promise<Load> {
  const latencies: number[] = [];
  const inFlight: Promise<void>[] = [];
  let acknowledged = 0;
  let errors = 0;
  let next = 0;
  const total = RATE * SECONDS;
  const started = performance.now();
  while (next < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
    for (; next < due; next++) {
      const agent = agents[next];
      if (!agent) break;
      const sentAt = performance.now();
      inFlight.push(
        fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
          body: JSON.stringify({ region: agent.region, platform: agent.platform, survivor: 0, killer: 25, ratio: 1.2, isReal: true, measuredAt: new Date().toISOString() }),
        }).then(
          async (response) => {
            await response.arrayBuffer();
            latencies.push(performance.now() - sentAt);
            if (response.status === 201) acknowledged++;
            else errors++;
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await Bun.sleep(TICK_MS);
  }
  await Promise.all(inFlight);
  return { sent: next, acknowledged, latencies, seconds: (performance.now() - started) / 1000, errors };
}

function stored(path: string): number {
  const db = new Database(path, { readonly: true });
  const n = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
  db.close();
  return n;
}

export async function benchIngest(): Promise<Row[]> {
  const dir = scratchDir();
  try {
    const hubDb = `${dir.path}/hub.db`;
    const agents = createAgents(hubDb, RATE * SECONDS);
    const hub = await startHub(["--db", hubDb]);
    let hubLoad: Load;
    try {
      hubLoad = await drive(`${hub.url}/api/v1/agent/readings`, agents);
    } finally {
      await hub.stop();
    }
    const lost = hubLoad.acknowledged - stored(hubDb);

    const port = await freePort();
    const bareDb = `${dir.path}/bare.db`;
    const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-ingest.ts`, bareDb, String(port)], `http://127.0.0.1:${port}/`);
    let bareLoad: Load;
    try {
      bareLoad = await drive(`http://127.0.0.1:${port}/`, agents);
    } finally {
      await bare.stop();
    }

    const rate = hubLoad.acknowledged / hubLoad.seconds;
    const p99 = percentile(hubLoad.latencies, 0.99);
    return [
      {
        figure: `Ingest readings/s sustained (${SECONDS} s, ${agents.length} agents)`,
        value: `${fmt(rate, 0)}/s (${hubLoad.acknowledged} of ${hubLoad.sent} acknowledged)`,
        budget: `≥ ${RATE}/s`,
        baseline: `${fmt(bareLoad.acknowledged / bareLoad.seconds, 0)}/s bare insert`,
        verdict: rate >= RATE * 0.98 && hubLoad.errors === 0 ? "met" : "MISSED",
      },
      {
        figure: "Ingest latency p50 / p99",
        value: `${fmt(percentile(hubLoad.latencies, 0.5), 2)} / ${fmt(p99, 2)} ms`,
        budget: "p99 < 20 ms",
        baseline: `${fmt(percentile(bareLoad.latencies, 0.5), 2)} / ${fmt(percentile(bareLoad.latencies, 0.99), 2)} ms bare`,
        verdict: p99 < 20 ? "met" : "MISSED",
      },
      { figure: "Readings lost (acknowledged, not stored)", value: String(lost), budget: "0", baseline: "-", verdict: lost === 0 ? "met" : "MISSED" },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printTable("Ingest", await benchIngest());
