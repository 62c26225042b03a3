/**
 * Web Push (SPEC §23): one reading that matches 10,000 subscriptions, sent
 * to a local push service over TLS (a Bun server with a self-signed
 * certificate the hub trusts through NODE_EXTRA_CA_CERTS; it answers 201 and
 * notes when each message arrived, without decrypting). Figures: p99 of
 * arrival from the posting request's start (budget 10 s, all 10,000); the
 * posting request's p99 against the same readings on a hub with no
 * subscriptions (budget within 5 ms); the hub's RSS over its idle (budget
 * under 50 MB).
 */
import { createECDH, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomToken, sha256Hex } from "../../src/domain/tokens.ts";
import { fmt, percentile, printBenchRows, rssBytes, scratch, scratchDb, startHubProcess, type BenchRow, type Running } from "./common.ts";

const SUBSCRIPTIONS = Number(process.env.BENCH_PUSH_SUBSCRIPTIONS ?? 10_000);
/** Readings that change a value without firing anything, around the one that fires. */
const QUIET_READINGS = 60;
const REGION = "eu-west-1";

function certificate(dir: string): { certPath: string; cert: string; key: string } {
  const certPath = join(dir, "cert.pem");
  const keyPath = join(dir, "key.pem");
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyPath, "-out", certPath, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
  return { certPath, cert: readFileSync(certPath, "utf8"), key: readFileSync(keyPath, "utf8") };
}

/** Fills a database with `count` subscriptions to the local service, each following the region's killer bonus from +50 %. */
function seed(dbPath: string, count: number, port: number): void {
  const db = scratchDb(join(dbPath, ".."), "hub.db");
  const device = createECDH("prime256v1");
  device.generateKeys();
  const p256dh = device.getPublicKey().toString("base64url");
  const insert = db.sqlite.query(
    "INSERT INTO push_subscriptions (public_id, endpoint, endpoint_hash, p256dh, auth, token_hash, lang, events, rules, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'en', 0, ?, ?, ?)",
  );
  const rules = JSON.stringify([{ platform: "Windows", region: REGION, role: "killer", minBonus: 50 }]);
  const now = Date.now();
  db.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      const endpoint = `https://localhost:${port}/push/${i}`;
      insert.run(randomToken(12), endpoint, sha256Hex(`push-endpoint\u0000${endpoint}`), p256dh, randomBytes(16).toString("base64url"), sha256Hex(randomToken(16)), rules, now, now);
    }
  })();
  db.sqlite.close();
}

interface Run {
  readonly requestMs: number[];
  readonly duringMs: number[];
  readonly firedAt: number[];
  readonly idleRss: number;
  /** The highest RSS while the first firing was delivered, and over all of them. */
  readonly firstPeakRss: number;
  readonly peakRss: number;
}

/** How many times the reading that fires is posted (re-armed by a quiet reading in between), its deliveries drained each time. */
const FIRINGS = 3;

/**
 * Posts quiet readings (a value changes, nothing fires, yet every reading is
 * judged against every rule of its platform), then the reading that fires,
 * then waits for its deliveries; FIRINGS times. Each reading from an agent
 * of its own. Requests posted while deliveries are in flight are timed apart.
 */
async function postReadings(hub: Running, tokens: readonly string[], expected: number, arrivals: readonly number[], roundDone: (round: number) => void): Promise<{ requestMs: number[]; duringMs: number[]; firedAt: number[] }> {
  const requestMs: number[] = [];
  const duringMs: number[] = [];
  const firedAt: number[] = [];
  let at = Date.now() - tokens.length * 1000;
  let next = 0;
  const post = async (survivor: number, killer: number): Promise<number> => {
    at += 1000;
    const body = { region: REGION, platform: "Windows", survivor, killer, ratio: 1.5, isReal: true, measuredAt: new Date(at).toISOString() };
    const started = performance.now();
    const response = await fetch(`${hub.url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${tokens[next++]}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    await response.arrayBuffer();
    if (response.status !== 201) throw new Error(`reading refused with ${response.status}`);
    return started;
  };
  const quiet = Math.floor(QUIET_READINGS / FIRINGS);
  for (let round = 0; round < FIRINGS; round++) {
    for (let i = 0; i < quiet; i++) {
      const started = await post(10 + (i % 5) * 5, 0);
      requestMs.push(performance.now() - started);
      await Bun.sleep(10);
    }
    const started = await post(0, 100);
    requestMs.push(performance.now() - started);
    firedAt.push(started);
    // A few readings while the deliveries are under way: timed, but not against the budget.
    for (let i = 0; i < 3; i++) {
      const during = await post(5, 100);
      duringMs.push(performance.now() - during);
      await Bun.sleep(200);
    }
    const deadline = Date.now() + 60_000;
    while (arrivals.length < expected * (round + 1) && Date.now() < deadline) await Bun.sleep(50);
    roundDone(round);
  }
  return { requestMs, duringMs, firedAt };
}

export async function pushBench(): Promise<BenchRow[]> {
  const dir = scratch("push");
  const { certPath, cert, key } = certificate(dir.path);
  const arrivals: number[] = [];
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    fetch: async (request) => {
      await request.arrayBuffer();
      arrivals.push(performance.now());
      return new Response(null, { status: 201 });
    },
  });
  const tokens = Array.from({ length: QUIET_READINGS + 4 * FIRINGS }, (_, i) => `push-bench-agent-${i}-${randomToken(12)}`);
  const env = {
    CONTACT_EMAIL: "bench@example.org",
    PUSH_SERVICE_HOSTS: "localhost",
    WEBHOOK_ALLOW_PRIVATE: "true",
    NODE_EXTRA_CA_CERTS: certPath,
    PROVISION_AGENTS: tokens.map((token, i) => `b${i}:${token}:${REGION}:steam`).join(","),
  };
  const run = async (name: string, subscriptions: number): Promise<Run> => {
    const dbPath = join(dir.path, name, "hub.db");
    seed(dbPath, subscriptions, receiver.port ?? 0);
    const hub = await startHubProcess(["--db", dbPath], env);
    try {
      await Bun.sleep(500);
      const idleRss = rssBytes(hub.pid);
      let peakRss = idleRss;
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssBytes(hub.pid))), 50);
      let firstPeakRss = idleRss;
      const { requestMs, duringMs, firedAt } = await postReadings(hub, tokens, subscriptions, arrivals, (round) => {
        if (round === 0) firstPeakRss = Math.max(peakRss, rssBytes(hub.pid));
      });
      await Bun.sleep(200);
      clearInterval(sampler);
      peakRss = Math.max(peakRss, rssBytes(hub.pid));
      return { requestMs, duringMs, firedAt, idleRss, firstPeakRss, peakRss };
    } finally {
      await hub.stop();
    }
  };
  try {
    const baseline = await run("none", 0);
    arrivals.length = 0;
    const loaded = await run("loaded", SUBSCRIPTIONS);
    // Each arrival counts from the firing it belongs to: the latest one posted before it.
    const arrivalMs = arrivals.map((at) => at - (loaded.firedAt.filter((fired) => fired <= at).at(-1) ?? at));
    const total = SUBSCRIPTIONS * FIRINGS;
    const p99 = percentile(arrivalMs, 0.99);
    const requestP99 = percentile(loaded.requestMs, 0.99);
    const baseP99 = percentile(baseline.requestMs, 0.99);
    const growthMb = (loaded.firstPeakRss - loaded.idleRss) / 1024 / 1024;
    const allGrowthMb = (loaded.peakRss - loaded.idleRss) / 1024 / 1024;
    return [
      {
        figure: `One reading to ${SUBSCRIPTIONS} push subscriptions at a local service, p50 / p99 of arrival (${FIRINGS} firings, ${arrivals.length} of ${total} arrived)`,
        value: `${fmt(percentile(arrivalMs, 0.5) / 1000, 2)} / ${fmt(p99 / 1000, 2)} s`,
        budget: `p99 < 10 s, all ${SUBSCRIPTIONS}`,
        baseline: "none",
        ratio: "",
        ok: p99 < 10_000 && arrivals.length === total,
      },
      {
        figure: `Posting request p50 / p99 with ${SUBSCRIPTIONS} push subscriptions (${loaded.requestMs.length} readings, ${FIRINGS} of them firing)`,
        value: `${fmt(percentile(loaded.requestMs, 0.5), 2)} / ${fmt(requestP99, 2)} ms`,
        budget: "p99 within 5 ms of no subscriptions",
        baseline: `no subscriptions: ${fmt(percentile(baseline.requestMs, 0.5), 2)} / ${fmt(baseP99, 2)} ms`,
        ratio: `+${fmt(requestP99 - baseP99, 2)} ms`,
        ok: requestP99 - baseP99 <= 5,
      },
      {
        figure: `A reading posted while those deliveries are under way, p50 / p99 (${loaded.duringMs.length})`,
        value: `${fmt(percentile(loaded.duringMs, 0.5), 2)} / ${fmt(percentile(loaded.duringMs, 0.99), 2)} ms`,
        budget: "none (shares the CPU with the sending)",
        baseline: `no subscriptions: ${fmt(percentile(baseline.duringMs, 0.5), 2)} / ${fmt(percentile(baseline.duringMs, 0.99), 2)} ms`,
        ratio: "",
        ok: null,
      },
      {
        figure: `Hub RSS growth while delivering one reading's ${SUBSCRIPTIONS}, over its idle (after all ${FIRINGS}: ${fmt(allGrowthMb, 1)} MB)`,
        value: `${fmt(growthMb, 1)} MB`,
        budget: "< 50 MB",
        baseline: `idle ${fmt(loaded.idleRss / 1024 / 1024, 1)} MB (no subscriptions: ${fmt(baseline.idleRss / 1024 / 1024, 1)} MB)`,
        ratio: "",
        ok: growthMb < 50,
      },
    ];
  } finally {
    await receiver.stop(true);
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Web Push", await pushBench());
