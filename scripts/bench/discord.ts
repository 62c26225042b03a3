/**
 * Discord (the interactions endpoint): signed /bonus interactions, with and
 * without a region, in several languages, sent at a fixed rate while agents
 * post readings at the ingest budget's rate. Figures: /bonus p50/p99 (budget
 * p99 under 50 ms) against a bare server that only verifies the signature
 * with the same library and answers a fixed embed; and the readings' p99
 * while Discord is answered (the ingest budget, p99 under 20 ms) against the
 * same readings without Discord, both on the same hub in the same run.
 * Requests are signed before the run, so the client's signing is not timed.
 */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { checkLatencies, createBenchAgents, type BenchAgent, fmt, freePort, percentile, printBenchRows, scratch, startHubProcess, startProcess, type BenchRow } from "./common.ts";
import { RawPoster, type PostResult } from "./raw-post.ts";

const DISCORD_RATE = Number(process.env.BENCH_DISCORD_RATE ?? 100);
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE ?? 2000);
const SECONDS = Number(process.env.BENCH_DISCORD_SECONDS ?? 15);
const WARMUP_SECONDS = 3;
const TICK_MS = 5;
const APPLICATION_ID = "1300000000000000001";
const LOCALES = ["en-US", "de", "fr", "ja", "pt-BR", "es-419"];



interface Signed {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** `count` /bonus interactions signed with `key`: every other one names a region, the languages rotate. */
function signedBonuses(key: KeyObject, count: number): Signed[] {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return Array.from({ length: count }, (_, i) => {
    const region = BUILT_IN_REGIONS[i % BUILT_IN_REGIONS.length]?.id ?? "eu-west-1";
    const options = i % 2 === 0 ? [{ name: "region", type: 3, value: region }] : [];
    const body = JSON.stringify({ type: 2, id: `14${String(i).padStart(17, "0")}`, application_id: APPLICATION_ID, token: "t", version: 1, locale: LOCALES[i % LOCALES.length], data: { id: "1322222222222222222", name: "bonus", type: 1, options } });
    const signature = sign(null, Buffer.from(timestamp + body), key).toString("hex");
    return { headers: { "X-Signature-Ed25519": signature, "X-Signature-Timestamp": timestamp }, body };
  });
}

interface Load {
  readonly latencies: number[];
  readonly failures: number;
}

/** Open-loop: `rate` sends a second for `seconds`, whatever the server's pace. */
async function drive(rate: number, seconds: number, send: (i: number) => Promise<PostResult>, expected: number): Promise<Load> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  let outstanding = 0;
  let drained = (): void => {};
  const total = Math.floor(rate * seconds);
  const started = performance.now();
  const settle = (): void => {
    if (--outstanding === 0) drained();
  };
  while (next < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; next < due; next++) {
      outstanding++;
      send(next).then(
        (result) => {
          latencies.push(result.ms);
          if (result.status !== expected) failures++;
          settle();
        },
        () => {
          failures++;
          settle();
        },
      );
    }
    await Bun.sleep(TICK_MS);
  }
  if (outstanding > 0) await new Promise<void>((resolve) => (drained = resolve));
  return { latencies, failures };
}

const reading = (agent: BenchAgent) => JSON.stringify({ region: agent.region, platform: agent.platform, survivor: 0, killer: 25 + (agent.token.length % 4) * 25, ratio: 1.2, isReal: true, measuredAt: new Date().toISOString() });

export async function discordBench(): Promise<BenchRow[]> {
  const dir = scratch("discord");
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyHex = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url").toString("hex");
  const perPhase = Math.floor(INGEST_RATE * (SECONDS + WARMUP_SECONDS));
  try {
    const dbPath = `${dir.path}/hub.db`;
    const agents = createBenchAgents(dbPath, perPhase * 2, "discord");
    const alone = agents.slice(0, perPhase);
    const beside = agents.slice(perPhase);
    const bonuses = signedBonuses(privateKey, Math.floor(DISCORD_RATE * (SECONDS + WARMUP_SECONDS)));
    const hub = await startHubProcess(["--db", dbPath, "--max-requests-per-client", "100000"], { DISCORD_APPLICATION_ID: APPLICATION_ID, DISCORD_PUBLIC_KEY: publicKeyHex });
    let ingestAlone: Load;
    let ingestBeside: Load;
    let discordHub: Load;
    try {
      const ingest = RawPoster.fromUrl(`${hub.url}/api/v1/agent/readings`);
      const discord = RawPoster.fromUrl(`${hub.url}/api/v1/discord/interactions`);
      try {
        const split = INGEST_RATE * WARMUP_SECONDS;
        await drive(INGEST_RATE, WARMUP_SECONDS, (i) => ingest.post(alone[i]?.token ?? "", reading(alone[i] as BenchAgent)), 201);
        ingestAlone = await drive(INGEST_RATE, SECONDS, (i) => ingest.post(alone[split + i]?.token ?? "", reading(alone[split + i] as BenchAgent)), 201);
        const discordSplit = DISCORD_RATE * WARMUP_SECONDS;
        await drive(DISCORD_RATE, WARMUP_SECONDS, (i) => discord.postWith(bonuses[i]?.headers ?? {}, bonuses[i]?.body ?? ""), 200);
        [ingestBeside, discordHub] = await Promise.all([
          drive(INGEST_RATE, SECONDS, (i) => ingest.post(beside[split + i]?.token ?? "", reading(beside[split + i] as BenchAgent)), 201),
          drive(DISCORD_RATE, SECONDS, (i) => discord.postWith(bonuses[discordSplit + i]?.headers ?? {}, bonuses[discordSplit + i]?.body ?? ""), 200),
        ]);
      } finally {
        ingest.close();
        discord.close();
      }
    } finally {
      await hub.stop();
    }
    const port = await freePort();
    const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-discord.ts`, String(port), publicKeyHex], `http://127.0.0.1:${port}/`);
    let discordBare: Load;
    try {
      const client = RawPoster.fromUrl(`http://127.0.0.1:${port}/`);
      try {
        await drive(DISCORD_RATE, WARMUP_SECONDS, (i) => client.postWith(bonuses[i]?.headers ?? {}, bonuses[i]?.body ?? ""), 200);
        const split = DISCORD_RATE * WARMUP_SECONDS;
        discordBare = await drive(DISCORD_RATE, SECONDS, (i) => client.postWith(bonuses[split + i]?.headers ?? {}, bonuses[split + i]?.body ?? ""), 200);
      } finally {
        client.close();
      }
    } finally {
      await bare.stop();
    }
    const p = (load: Load, q: number) => percentile(load.latencies, q);
    await checkLatencies("Discord /bonus p50 / p99", [p(discordHub, 0.5), p(discordHub, 0.99)]);
    await checkLatencies("bare Discord endpoint p50 / p99", [p(discordBare, 0.5), p(discordBare, 0.99)]);
    await checkLatencies("ingest beside Discord p50 / p99", [p(ingestBeside, 0.5), p(ingestBeside, 0.99)]);
    await checkLatencies("ingest alone p50 / p99", [p(ingestAlone, 0.5), p(ingestAlone, 0.99)]);
    return [
      {
        figure: `Discord: signed /bonus interactions p50 / p99 (${DISCORD_RATE}/s for ${SECONDS} s, while ${INGEST_RATE} readings/s arrive)`,
        value: `${fmt(p(discordHub, 0.5), 2)} / ${fmt(p(discordHub, 0.99), 2)} ms (${discordHub.failures} not 200)`,
        budget: "p99 < 50 ms",
        baseline: `${fmt(p(discordBare, 0.5), 2)} / ${fmt(p(discordBare, 0.99), 2)} ms bare verify-and-answer, no readings`,
        ratio: `${fmt(p(discordHub, 0.99) / p(discordBare, 0.99), 1)}×`,
        ok: discordHub.failures === 0 && p(discordHub, 0.99) < 50,
      },
      {
        figure: `Discord: ingest latency p50 / p99 while /bonus is answered (${INGEST_RATE}/s)`,
        value: `${fmt(p(ingestBeside, 0.5), 2)} / ${fmt(p(ingestBeside, 0.99), 2)} ms (${ingestBeside.failures} not 201)`,
        budget: "p99 < 20 ms",
        baseline: `${fmt(p(ingestAlone, 0.5), 2)} / ${fmt(p(ingestAlone, 0.99), 2)} ms the same hub without Discord load`,
        ratio: `${fmt(p(ingestBeside, 0.99) / p(ingestAlone, 0.99), 1)}×`,
        ok: ingestBeside.failures === 0 && p(ingestBeside, 0.99) < 20,
      },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Discord", await discordBench());
