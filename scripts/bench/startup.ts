/**
 * Start-up: from spawning `hub serve` on a database of 1,000,000 readings to
 * the first 200 on /healthz, and the hub's memory once idle, beside a bare
 * Bun.serve started the same way.
 */
import { sha256Hex } from "../../src/domain/tokens.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { BUILT_IN_REGIONS, PLATFORMS } from "../../src/domain/catalogue.ts";
import { checkLatencies, fmt, freePort, median, MAIN, printBenchRows, rssBytes, scratch, startProcess, type BenchRow } from "./common.ts";

const READINGS = Number(process.env.BENCH_STARTUP_READINGS ?? 1_000_000);
const RUNS = 5;

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

export async function startupBench(): Promise<BenchRow[]> {
  const dir = scratch("startup");
  try {
    const db = `${dir.path}/hub.db`;
    fill(db);
    const hubTimes: number[] = [];
    const bareTimes: number[] = [];
    let idle = 0;
    let bareIdle = 0;
    for (let run = 0; run < RUNS; run++) {
      const port = await freePort();
      const bare = await startProcess([process.execPath, `${import.meta.dir}/bare-server.ts`, "100", String(port)], `http://127.0.0.1:${port}/`);
      bareTimes.push(bare.readyMs);
      if (run === RUNS - 1) {
        await Bun.sleep(2000);
        bareIdle = rssBytes(bare.pid);
      }
      await bare.stop();
      const hubPort = await freePort();
      const hub = await startProcess(
        [process.execPath, MAIN, "serve", "--db", db, "--host", "127.0.0.1", "--port", String(hubPort), "--log-level", "warn"],
        `http://127.0.0.1:${hubPort}/healthz`,
      );
      hubTimes.push(hub.readyMs);
      if (run === RUNS - 1) {
        await Bun.sleep(2000);
        idle = rssBytes(hub.pid);
      }
      await hub.stop();
    }
    const ready = median(hubTimes);
    const bareReady = median(bareTimes);
    await checkLatencies("start-up to 200 on /healthz, hub and bare", [ready, bareReady]);
    const mb = idle / 1024 / 1024;
    return [
      {
        figure: `Start-up to 200 on /healthz (${READINGS.toLocaleString("en")} readings, from source)`,
        value: `${fmt(ready, 0)} ms`,
        budget: "< 500 ms",
        baseline: `${fmt(bareReady, 0)} ms bare Bun.serve`,
        ratio: `${fmt(ready / bareReady, 2)}×`,
        ok: ready < 500,
      },
      {
        figure: "Idle memory (RSS)",
        value: `${fmt(mb)} MB`,
        budget: "< 80 MB",
        baseline: `${fmt(bareIdle / 1024 / 1024)} MB bare Bun.serve`,
        ratio: `${fmt(idle / bareIdle, 2)}×`,
        ok: mb < 80,
      },
    ];
  } finally {
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Start-up", await startupBench());
