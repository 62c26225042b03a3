import { afterEach, describe, expect, test } from "bun:test";
import { DAY_MS, HOUR_MS } from "../../src/domain/timezone.ts";
import type { Hub } from "../../src/hub.ts";
import { PRUNE_BATCH, Retention } from "../../src/live/retention.ts";
import { createLogger } from "../../src/log.ts";
import { call, json, memoryDb, testHub } from "../helpers.ts";
import { countReadings, storeReadings } from "../history-helpers.ts";
import { addAgent } from "../live-helpers.ts";

const NOW = Date.parse("2026-11-21T18:00:00.000Z");
const hubs: Hub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.stop();
});

function setup(readings: Parameters<typeof storeReadings>[1], env: Record<string, string> = { DATA_RETENTION_DAYS: "7" }) {
  let now = NOW;
  const db = memoryDb();
  storeReadings(db, readings);
  const hub = testHub({ db, now: () => now, env });
  hubs.push(hub);
  return { hub, db, advance: (ms: number) => (now += ms) };
}

type Payload = { regions: { region: string; killer: number; isReal: boolean }[] };

describe("retention", () => {
  test("at start-up, readings older than the window are pruned and the live values rebuilt from what remains", async () => {
    const { hub, db } = setup([
      { t: NOW - 9 * DAY_MS, killer: 25 },
      { t: NOW - 7 * DAY_MS - 1, killer: 50 },
      { t: NOW - 7 * DAY_MS, killer: 75 },
      { t: NOW - 8 * DAY_MS, killer: 100, region: "us-east-1" },
    ]);
    addAgent(hub, "us-east-1");
    const before = await json<Payload>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(before.regions.find((r) => r.region === "us-east-1")).toMatchObject({ killer: 100, isReal: true });

    hub.start();
    // The first batch runs inside start(); nothing else was asked to prune.
    expect(countReadings(db)).toBe(1);
    expect(await hub.ctx.retention.prune()).toBe(3);
    expect(db.sqlite.query<{ killer: number }, []>("SELECT killer FROM readings").all()).toEqual([{ killer: 75 }]);
    const after = await json<Payload>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(after.regions.find((r) => r.region === "us-east-1")).toMatchObject({ killer: 0, isReal: false });
    expect(after.regions.find((r) => r.region === "eu-west-1")).toMatchObject({ killer: 75, isReal: true });
    const history = await json<{ firstAt: number }>(await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-1/history"));
    expect(history.firstAt).toBe(NOW - 7 * DAY_MS);
  });

  test("later prunes take what has aged since, and forecasts forget what was removed", async () => {
    const { hub, db, advance } = setup([
      { t: NOW - 6 * DAY_MS, killer: 50 },
      { t: NOW - 2 * DAY_MS, killer: 100 },
    ]);
    hub.start();
    expect(await hub.ctx.retention.prune()).toBe(0);
    const forecast = await json<{ actual: unknown[]; confidence: string; points: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-1/forecast"));
    expect(forecast.points.length).toBe(24);
    advance(DAY_MS + HOUR_MS);
    expect(await hub.ctx.retention.prune()).toBe(1);
    expect(countReadings(db)).toBe(1);
    advance(6 * DAY_MS);
    expect(await hub.ctx.retention.prune()).toBe(1);
    const empty = await json<{ points: unknown[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-1/forecast"));
    expect(empty.points).toEqual([]);
  });

  test("large prunes go in batches and yield between them, so requests are served meanwhile", async () => {
    const old = Array.from({ length: 3 * PRUNE_BATCH + 10 }, (_, i) => ({ t: NOW - 30 * DAY_MS + i }));
    const { hub, db } = setup([...old, { t: NOW - HOUR_MS, killer: 50 }]);
    hub.start();
    const health = await call(hub, "GET", "/healthz");
    expect(health.status).toBe(200);
    const leftWhenAnswered = countReadings(db);
    expect(leftWhenAnswered).toBeGreaterThan(1);
    expect(leftWhenAnswered).toBeLessThan(old.length + 1);
    expect(await hub.ctx.retention.prune()).toBeGreaterThan(0);
    expect(countReadings(db)).toBe(1);
  });

  test("prunes repeat on their interval until stopped", async () => {
    let now = NOW;
    const db = memoryDb();
    const hub = testHub({ db, now: () => now, env: { DATA_RETENTION_DAYS: "1" } });
    hubs.push(hub);
    let pruned = 0;
    const retention = new Retention(hub.ctx.readings, 1, () => now, (removed) => (pruned += removed), createLogger("error", () => {}), 5);
    retention.start();
    try {
      await retention.prune();
      storeReadings(db, [{ t: NOW - 2 * DAY_MS }, { t: NOW }]);
      for (let i = 0; i < 2000 && pruned < 1; i++) await Bun.sleep(5);
      expect(pruned).toBe(1);
      now += 2 * DAY_MS;
      for (let i = 0; i < 2000 && pruned < 2; i++) await Bun.sleep(5);
      expect(pruned).toBe(2);
    } finally {
      retention.stop();
    }
    storeReadings(db, [{ t: NOW }]);
    await Bun.sleep(30);
    expect(countReadings(db)).toBe(1);
  });
});
