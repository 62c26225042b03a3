import { afterEach, describe, expect, test } from "bun:test";
import { DAY_MS, HOUR_MS } from "../../src/domain/timezone.ts";
import type { Hub } from "../../src/hub.ts";
import { PRUNE_BATCH, Retention } from "../../src/live/retention.ts";
import { createLogger } from "../../src/log.ts";
import { adminHub } from "../admin-helpers.ts";
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
    // Even before the prune, a live value older than the window is not shown.
    const before = await json<Payload>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"));
    expect(before.regions.find((r) => r.region === "us-east-1")).toMatchObject({ killer: 0, isReal: false });
    expect(before.regions.find((r) => r.region === "eu-west-1")).toMatchObject({ killer: 75, isReal: true });

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

  test("before any prune, the first reads already show nothing older than the window", async () => {
    const { hub, db } = setup([
      { t: NOW - 9 * DAY_MS, killer: 25 },
      { t: NOW - 8 * DAY_MS, killer: 50 },
      { t: NOW - 7 * DAY_MS - 1, killer: 100 },
      { t: NOW - DAY_MS, killer: 75 },
      { t: NOW - HOUR_MS, killer: 75 },
    ]);
    const base = "/api/v1/platforms/Windows/regions/eu-west-1";
    const history = await json<{ firstAt: number; lastAt: number; points: { t: number }[] }>(await call(hub, "GET", `${base}/history?from=${NOW - 30 * DAY_MS}`));
    expect(history.firstAt).toBe(NOW - DAY_MS);
    expect(history.lastAt).toBe(NOW - HOUR_MS);
    expect(history.points.map((p) => p.t)).toEqual([NOW - DAY_MS, NOW - HOUR_MS]);
    const past = await json<{ firstAt: number | null; points: unknown[] }>(await call(hub, "GET", `${base}/history?to=${NOW - 6 * DAY_MS}&from=${NOW - 10 * DAY_MS}`));
    expect(past.points).toEqual([]);
    const activity = await json<{ recent: { t: number }[]; changes: { t: number; killer: number }[] }>(await call(hub, "GET", `${base}/activity?limit=50`));
    expect(activity.recent.map((r) => r.t)).toEqual([NOW - HOUR_MS, NOW - DAY_MS]);
    expect(activity.changes).toEqual([expect.objectContaining({ t: NOW - DAY_MS, killer: 75 })]);
    const series = hub.ctx.readings.series("Windows", "eu-west-1", 0, NOW);
    expect(Array.from(series.t)).toEqual([NOW - DAY_MS, NOW - HOUR_MS]);
    expect(countReadings(db)).toBe(5);
  });

  test("a region with only readings older than the window reads as empty until they are pruned", async () => {
    const { hub, db } = setup([{ t: NOW - 8 * DAY_MS, killer: 50 }]);
    const base = "/api/v1/platforms/Windows/regions/eu-west-1";
    const history = await json<{ firstAt: number | null; lastAt: number | null; points: unknown[] }>(await call(hub, "GET", `${base}/history`));
    expect(history).toMatchObject({ firstAt: null, lastAt: null, points: [] });
    const activity = await json<{ recent: unknown[]; changes: unknown[] }>(await call(hub, "GET", `${base}/activity`));
    expect(activity).toMatchObject({ recent: [], changes: [] });
    const forecast = await json<{ points: unknown[]; past: unknown[]; confidence: string }>(await call(hub, "GET", `${base}/forecast`));
    expect(forecast).toMatchObject({ points: [], past: [], confidence: "low" });
    expect(countReadings(db)).toBe(1);
  });

  test("the window moves with the clock, between prunes too", async () => {
    const { hub, advance } = setup([{ t: NOW - 6 * DAY_MS, killer: 50 }, { t: NOW - HOUR_MS, killer: 75 }]);
    const base = "/api/v1/platforms/Windows/regions/eu-west-1";
    expect((await json<{ firstAt: number }>(await call(hub, "GET", `${base}/history`))).firstAt).toBe(NOW - 6 * DAY_MS);
    advance(DAY_MS + 1);
    expect((await json<{ firstAt: number }>(await call(hub, "GET", `${base}/history`))).firstAt).toBe(NOW - HOUR_MS);
  });

  test("while a large first prune is still under way, answers show nothing older than the window", async () => {
    const old = Array.from({ length: 3 * PRUNE_BATCH + 10 }, (_, i) => ({ t: NOW - 30 * DAY_MS + i, killer: 25 }));
    const { hub, db } = setup([...old, { t: NOW - HOUR_MS, killer: 50 }]);
    hub.start();
    const history = await json<{ firstAt: number; points: { t: number }[] }>(await call(hub, "GET", "/api/v1/platforms/Windows/regions/eu-west-1/history?from=0"));
    expect(countReadings(db)).toBeGreaterThan(1);
    expect(history.firstAt).toBe(NOW - HOUR_MS);
    expect(history.points.map((p) => p.t)).toEqual([NOW - HOUR_MS]);
    await hub.ctx.retention.prune();
  });

  test("the admin's attribution counts only readings inside the window", async () => {
    let now = NOW;
    const { hub, admin } = await adminHub({ DATA_RETENTION_DAYS: "7" }, () => now);
    hubs.push(hub);
    const agent = (await admin.json<{ agent: { id: number } }>("POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "steam" })).body.agent.id;
    storeReadings(hub.ctx.db, [
      { t: NOW - 9 * DAY_MS, agentId: agent },
      { t: NOW - 8 * DAY_MS, agentId: null },
      { t: NOW - 2 * DAY_MS, agentId: agent },
      { t: NOW - DAY_MS, agentId: agent },
    ]);
    const { body } = await admin.json<{ attribution: unknown[] }>("GET", "/api/v1/admin/platforms/Windows/regions/eu-west-1/attribution");
    expect(body.attribution).toEqual([{ agentId: agent, readings: 2, firstAt: NOW - 2 * DAY_MS, lastAt: NOW - DAY_MS }]);
    now += 5 * DAY_MS + HOUR_MS;
    const later = await admin.json<{ attribution: unknown[] }>("GET", "/api/v1/admin/platforms/Windows/regions/eu-west-1/attribution");
    expect(later.body.attribution).toEqual([{ agentId: agent, readings: 1, firstAt: NOW - DAY_MS, lastAt: NOW - DAY_MS }]);
  });

  test("prunes repeat on their interval until stopped", async () => {
    let now = NOW;
    const db = memoryDb();
    const hub = testHub({ db, now: () => now, env: { DATA_RETENTION_DAYS: "1" } });
    hubs.push(hub);
    let pruned = 0;
    const retention = new Retention(hub.ctx.readings, 1, () => now, (removed) => (pruned += removed), createLogger("error", () => {}), () => null, 5);
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
