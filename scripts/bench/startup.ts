/**
 * Start-up: from spawning the hub to the first 200 on /healthz on a database
 * of 1,000,000 readings, and the hub's memory once idle on an empty database
 * with nothing optional configured, each beside a bare Bun.serve started the
 * same way. The budgets are the compiled binary's (the product); the same
 * figures from source are printed beside them, without a budget.
 */
import { join } from "node:path";
import { sha256Hex } from "../../src/domain/tokens.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS, PLATFORMS } from "../../src/domain/catalogue.ts";
import { buildHub, checkLatencies, fmt, freePort, median, MAIN, printBenchRows, scratch, settledRssBytes, startProcess, type BenchRow } from "./common.ts";

const READINGS = Number(process.env.BENCH_STARTUP_READINGS ?? 1_000_000);
const RUNS = 5;
/** Idle memory's budget in MB. */
const IDLE_BUDGET_MB = 72;
const MB = 1024 * 1024;

/** One agent per slot and READINGS readings spread over them, all within the retention window. */
function fill(path: string): void {
  const db = openDatabase(path);
  migrate(db);
  const now = Date.now();
  const slots = PLATFORMS.flatMap((platform) => BUILT_IN_REGIONS.map((region) => ({ platform, region: region.id })));
  const provider = { Windows: "steam", EGS: "epic", GRDK: "grdk" } as const;
  db.sqlite.transaction(() => {
    const agent = db.sqlite.query<unknown, [string, string, string, string]>("INSERT INTO agents (token_hash, provider, platform, region, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)");
    slots.forEach((slot, i) => agent.run(sha256Hex(`startup-${i}`), provider[slot.platform], slot.platform, slot.region));
    const insert = db.sqlite.query<unknown, [string, string, number, number, number, number, number]>(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at, agent_id) VALUES (?, ?, ?, ?, 1.5, ?, ?, ?)",
    );
    const span = 25 * 86_400_000;
    for (let i = 0; i < READINGS; i++) {
      const slot = i % slots.length;
      const at = now - span + Math.floor((i / READINGS) * span);
      const s = slots[slot];
      if (s) insert.run(s.platform, s.region, (i % 7) * 25, ((i + 3) % 7) * 25, at, at, slot + 1);
    }
  })();
  db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.sqlite.close();
}

/** `hub serve` on `db`, on a free port, with nothing optional configured. */
async function serveHub(hub: readonly string[], db: string) {
  const port = await freePort();
  return await startProcess([...hub, "serve", "--db", db, "--host", "127.0.0.1", "--port", String(port), "--log-level", "warn"], `http://127.0.0.1:${port}/healthz`);
}

async function startBare() {
  const port = await freePort();
  return await startProcess([process.execPath, `${import.meta.dir}/bare-server.ts`, "100", String(port)], `http://127.0.0.1:${port}/`);
}

/** The median time to the first 200 over RUNS starts of `hub` on `db`. */
async function startTimes(hub: readonly string[], db: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const running = await serveHub(hub, db);
    times.push(running.readyMs);
    await running.stop();
  }
  return median(times);
}

/** Resident memory of `hub` idling on a fresh, empty database, once settled. */
async function idleRss(hub: readonly string[], db: string): Promise<number> {
  const running = await serveHub(hub, db);
  try {
    return await settledRssBytes(running.pid);
  } finally {
    await running.stop();
  }
}

export async function startupBench(): Promise<BenchRow[]> {
  const dir = scratch("startup");
  try {
    const binary = join(dir.path, "hub");
    await buildHub(binary);
    const compiled = [binary];
    const source = [process.execPath, MAIN];
    const full = join(dir.path, "full.db");
    fill(full);
    const bareTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const bare = await startBare();
      bareTimes.push(bare.readyMs);
      await bare.stop();
    }
    const bareReady = median(bareTimes);
    const ready = await startTimes(compiled, full);
    const sourceReady = await startTimes(source, full);
    await checkLatencies("start-up to 200 on /healthz, hub and bare", [ready, sourceReady, bareReady]);

    const bare = await startBare();
    let bareIdle = 0;
    try {
      bareIdle = await settledRssBytes(bare.pid);
    } finally {
      await bare.stop();
    }
    const idle = await idleRss(compiled, join(dir.path, "empty.db"));
    const sourceIdle = await idleRss(source, join(dir.path, "empty-source.db"));
    const bareMb = `${fmt(bareIdle / MB)} MB bare Bun.serve`;
    return [
      {
        figure: `Start-up to 200 on /healthz (${READINGS.toLocaleString("en")} readings, dist/hub)`,
        value: `${fmt(ready, 0)} ms`,
        budget: "< 500 ms",
        baseline: `${fmt(bareReady, 0)} ms bare Bun.serve`,
        ratio: `${fmt(ready / bareReady, 2)}×`,
        ok: ready < 500,
      },
      {
        figure: "Start-up to 200 on /healthz, the same from source",
        value: `${fmt(sourceReady, 0)} ms`,
        budget: "",
        baseline: `${fmt(bareReady, 0)} ms bare Bun.serve`,
        ratio: `${fmt(sourceReady / bareReady, 2)}×`,
        ok: null,
      },
      {
        figure: "Idle memory (RSS, settled), dist/hub on an empty database, nothing optional configured",
        value: `${fmt(idle / MB)} MB`,
        budget: `≤ ${IDLE_BUDGET_MB} MB`,
        baseline: bareMb,
        ratio: `${fmt(idle / bareIdle, 2)}×`,
        ok: idle / MB <= IDLE_BUDGET_MB,
      },
      {
        figure: "Idle memory (RSS, settled), the same from source",
        value: `${fmt(sourceIdle / MB)} MB`,
        budget: "",
        baseline: bareMb,
        ratio: `${fmt(sourceIdle / bareIdle, 2)}×`,
        ok: null,
      },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Start-up", await startupBench());
