/**
 * Demo mode (`hub serve --demo`): a throw-away database with 14 days of
 * simulated history and a simulated agent on every platform and region,
 * played live against the hub itself, so a newcomer sees a full board at once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HubDb } from "../db/open.ts";
import type { Region } from "../domain/catalogue.ts";
import { PLATFORMS } from "../domain/catalogue.ts";
import { allSlots, backfill, type BackfillResult } from "./backfill.ts";
import { playLive, provisionSimAgents, type LiveStats } from "./live.ts";

export const DEMO_DAYS = 14;
export const DEMO_SEED = 7;

export interface DemoDirectory {
  readonly db: string;
  /** Removes the directory and everything in it. */
  remove(): void;
}

/** A fresh directory for the demo's database, removed when the demo ends. */
export function demoDirectory(): DemoDirectory {
  const dir = mkdtempSync(join(tmpdir(), "hub-demo-"));
  return { db: join(dir, "hub.db"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Fills a migrated, not yet served database with the demo's history. */
export function seedDemoHistory(db: HubDb, regions: readonly Region[], end: number): BackfillResult {
  return backfill(db, { days: DEMO_DAYS, end, seed: DEMO_SEED, slots: allSlots(regions) });
}

/**
 * Creates one agent per platform and region and plays them against the hub at
 * `hubUrl` until `signal` aborts. `reload` lets the running hub see the new
 * agents at once.
 */
export function playDemoAgents(db: HubDb, regions: readonly Region[], hubUrl: string, signal: AbortSignal, reload: () => void): Promise<LiveStats> {
  const agents = provisionSimAgents(db, regions, PLATFORMS.length * regions.length, Date.now());
  reload();
  return playLive({ hubUrl, agents, seed: DEMO_SEED, speed: 1, signal });
}
