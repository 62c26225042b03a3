/**
 * Demo mode (`hub serve --demo`): a throw-away database with 14 days of
 * simulated history and a simulated agent on every platform and region,
 * played live against the hub itself, so a newcomer sees a full board at once,
 * and a demo admin to see the console with.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashPasswordSync } from "../auth/passwords.ts";
import { randomToken } from "../domain/tokens.ts";
import type { HubDb } from "../db/open.ts";
import { insertUser } from "../db/users.ts";
import { markMfaPolicyChosen } from "../settings.ts";
import type { Region } from "../domain/catalogue.ts";
import { PLATFORMS } from "../domain/catalogue.ts";
import { allSlots, backfill, type BackfillResult } from "./backfill.ts";
import { playLive, provisionSimAgents, type LiveStats, type SimAgent } from "./live.ts";

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

export const DEMO_ADMIN = "demo";
/** Where the printed sign-in address sends the demo admin once signed in: the console. */
export const DEMO_LANDING = "/admin";

/**
 * The key the demo's secrets are derived from, held in memory only: nothing
 * of a throw-away database needs keeping, so no hub.key is written beside it
 * and the hub gives no advice about keeping one.
 */
export function demoKey(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

export interface DemoWorld {
  readonly agents: readonly SimAgent[];
  readonly readings: number;
  /** The demo admin's password, made for this run and shown once. */
  readonly password: string;
}

/**
 * Fills a migrated, not yet served database: one agent per platform and
 * region, which the history is attributed to and which then reports live (so
 * the agents list holds only agents that run), and the demo admin.
 */
export function seedDemo(db: HubDb, regions: readonly Region[], end: number): DemoWorld {
  const agents = provisionSimAgents(db, regions, PLATFORMS.length * regions.length, end);
  const bySlot = new Map(agents.map((a) => [`${a.platform}/${a.region.id}`, a.id]));
  const seeded = backfill(db, {
    days: DEMO_DAYS,
    end,
    seed: DEMO_SEED,
    slots: allSlots(regions),
    agentFor: (slot) => {
      const id = bySlot.get(`${slot.platform}/${slot.region.id}`);
      if (id === undefined) throw new Error(`no demo agent for ${slot.platform} ${slot.region.id}`);
      return id;
    },
  });
  const password = randomToken(12);
  insertUser(db.orm, { username: DEMO_ADMIN, role: "admin", passwordHash: hashPasswordSync(password), email: null, name: null }, end);
  // The demo needs no second factor (serve sets no enforced roles): the choice is made, so signing in opens the console, not setup.
  markMfaPolicyChosen(db, end);
  return { agents, readings: seeded.rows, password };
}

/** Plays the demo's agents against the hub at `hubUrl` until `signal` aborts. */
export function playDemoAgents(agents: readonly SimAgent[], hubUrl: string, signal: AbortSignal): Promise<LiveStats> {
  return playLive({ hubUrl, agents: [...agents], seed: DEMO_SEED, speed: 1, signal });
}
