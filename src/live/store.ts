/**
 * The live values: the newest accepted reading per (platform, region), and
 * per platform the IncentivesPayload built from them. Each payload is
 * serialised once per content change, with its revision, ETag and
 * Server-Sent Events frame, and handed to every listener as the same bytes.
 */
import type { HubDb } from "../db/open.ts";
import { oldestVisibleReading } from "../db/readings.ts";
import { PLATFORMS, type Catalogue, type Platform } from "../domain/catalogue.ts";
import { type EventCandidate, nextEventBoundary, type ReportedEvent, type SeenEvent, selectActiveEvent, selectNextEvent, visibleEvents } from "../domain/events.ts";
import { deriveIncentives, isFresh, type IncentivesContent, type LiveValue } from "../domain/incentives.ts";
import { MAX_FUTURE_MS } from "../domain/readings.ts";
import type { AgentDirectory } from "./agents.ts";
import type { EventBook } from "./events.ts";

export interface LiveReading extends LiveValue {
  readonly id: number;
  readonly agentId: number | null;
  readonly activeEvent: ReportedEvent | null;
}

/** One serialised state of a platform's payload. */
export interface Published {
  readonly platform: Platform;
  readonly revision: number;
  readonly content: IncentivesContent;
  /** The IncentivesPayload as JSON, generatedAt included. */
  readonly json: string;
  readonly etag: string;
  /** The complete `event: message` frame of the stream. */
  readonly frame: Uint8Array;
}

export type ChangeListener = (published: Published) => void;

/** Stale transitions are re-checked at least this often, whatever the deadlines say. */
export const MAX_TICK_MS = 30_000;

/**
 * Revisions follow the clock (max(previous + 1, now)) but may run ahead of it
 * under bursts of changes. Before a revision passes the stored floor, the
 * floor is moved this far ahead, so a restart (however abrupt) starts above
 * every revision ever published.
 */
export const REVISION_RESERVE = 10_000;
/** Pushes of changed payloads follow each other at least this far apart (scheduleFlush). */
export const FLUSH_SPACING_MS = 25;
const FLOOR_KEY = "revisionFloor";

interface PlatformState {
  published: Published | null;
  contentJson: string;
  validUntil: number;
  dirty: boolean;
}

interface ReadingRow {
  id: number;
  survivor: number;
  killer: number;
  ratio: number;
  measured_at: number;
  version: string | null;
  category: string | null;
  agent_id: number | null;
  active_event: string | null;
}

const encoder = new TextEncoder();

/** Reads back an event stored by the ingest path (epoch-ms times). */
export function storedEvent(json: string | null): ReportedEvent | null {
  if (!json) return null;
  const value = JSON.parse(json) as Partial<ReportedEvent>;
  const { key, label, multiplier, startsAt, endsAt } = value;
  if (typeof key !== "string" || typeof label !== "string" || typeof multiplier !== "number") return null;
  if (typeof startsAt !== "number" || typeof endsAt !== "number") return null;
  return { key, label, multiplier, startsAt, endsAt };
}

function toLive(row: ReadingRow, since: number): LiveReading {
  return {
    since,
    id: row.id,
    survivor: row.survivor,
    killer: row.killer,
    ratio: row.ratio,
    measuredAt: row.measured_at,
    version: row.version,
    category: row.category,
    agentId: row.agent_id,
    activeEvent: storedEvent(row.active_event),
  };
}

export class LiveStore {
  private readonly slots = new Map<Platform, Map<string, LiveReading>>();
  private readonly states = new Map<Platform, PlatformState>();
  private readonly newestByAgent = new Map<number, number>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly newestQuery;
  private readonly lastDifferentQuery;
  private readonly firstAfterQuery;
  private readonly recentByAgentQuery;
  private readonly saveFloor;
  private revisionFloor: number;
  private readonly bootRevision: number;
  private flushQueued = false;
  /** performance.now() of the last push scheduled by a change. */
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  /** A push waiting for FLUSH_SPACING_MS to pass; cleared when the hub stops. */
  private pushTimer: ReturnType<typeof setTimeout> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private slotRebuilds = 0;

  constructor(
    private readonly db: HubDb,
    private readonly catalogue: Catalogue,
    private readonly agents: AgentDirectory,
    private readonly book: EventBook,
    private readonly staleAfterMs: number,
    private readonly now: () => number,
    /** Told when the floor could not be saved: a storage refusal goes to the once-a-minute line, anything else is an error. */
    private readonly floorNotSaved: (error: unknown) => void,
  ) {
    // A reading stamped more than a minute ahead of the clock was stamped by a clock since gone back: it is never live (SPEC §16.2).
    this.newestQuery = db.sqlite.query<ReadingRow, [string, string, number, number]>(
      "SELECT id, survivor, killer, ratio, measured_at, version, category, agent_id, active_event FROM readings " +
        "WHERE platform = ? AND region = ? AND measured_at >= ? AND measured_at <= ? ORDER BY measured_at DESC, id ASC LIMIT 1",
    );
    this.lastDifferentQuery = db.sqlite.query<{ measured_at: number }, [string, string, number, number, number]>(
      "SELECT measured_at FROM readings WHERE platform = ? AND region = ? AND measured_at >= ? AND (survivor != ? OR killer != ?) " +
        "ORDER BY measured_at DESC LIMIT 1",
    );
    this.firstAfterQuery = db.sqlite.query<{ first: number | null }, [string, string, number]>(
      "SELECT MIN(measured_at) AS first FROM readings WHERE platform = ? AND region = ? AND measured_at > ?",
    );
    this.recentByAgentQuery = db.sqlite.query<{ agent_id: number; newest: number }, [number]>(
      "SELECT agent_id, MAX(measured_at) AS newest FROM readings WHERE measured_at > ? AND agent_id IS NOT NULL GROUP BY agent_id",
    );
    this.saveFloor = db.sqlite.query<unknown, [string, string, number]>(
      "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    );
    const stored = db.sqlite.query<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?").get(FLOOR_KEY);
    this.revisionFloor = stored ? Number(JSON.parse(stored.value)) : 0;
    this.bootRevision = Math.max(now(), this.revisionFloor + 1);
    for (const platform of PLATFORMS) {
      this.slots.set(platform, new Map());
      this.states.set(platform, { published: null, contentJson: "", validUntil: 0, dirty: true });
    }
    this.rebuildAll();
    for (const platform of PLATFORMS) this.refresh(platform, now());
  }

  /** Rebuilds every live value and the per-agent freshness from the stored readings. */
  rebuildAll(): void {
    for (const platform of PLATFORMS) for (const region of this.catalogue.regions) this.rebuildSlot(platform, region.id);
    this.rebuildAgentFreshness();
  }

  /** Re-reads each agent's newest recent reading (after readings were deleted or detached). */
  rebuildAgentFreshness(): void {
    this.newestByAgent.clear();
    for (const row of this.recentByAgentQuery.all(this.now() - this.staleAfterMs)) this.newestByAgent.set(row.agent_id, row.newest);
  }

  /**
   * Moves each time a slot is read again from the stored readings (start-up,
   * deletions, a rolled-back batch): whatever keeps its own running view of
   * the readings (the feeds) starts that view again.
   */
  get storedGeneration(): number {
    return this.slotRebuilds;
  }

  /** Re-reads the newest stored reading of one slot (after deletions). */
  rebuildSlot(platform: Platform, region: string): void {
    this.slotRebuilds++;
    const oldest = oldestVisibleReading(this.db);
    const row = this.newestQuery.get(platform, region, oldest, this.now() + MAX_FUTURE_MS);
    const slots = this.slots.get(platform);
    if (!slots) return;
    if (row) slots.set(region, toLive(row, this.sinceOf(platform, region, row, oldest)));
    else slots.delete(region);
    this.invalidate(platform);
  }

  /**
   * The start of the newest unbroken run of the live values: two indexed
   * look-ups, made only when a slot is rebuilt (start-up, deletions); an
   * accepted reading carries it forward in offer().
   */
  private sinceOf(platform: Platform, region: string, row: ReadingRow, oldest: number): number {
    const different = this.lastDifferentQuery.get(platform, region, oldest, row.survivor, row.killer);
    return this.firstAfterQuery.get(platform, region, different ? different.measured_at : oldest - 1)?.first ?? row.measured_at;
  }

  /** Offers an accepted reading; it becomes live only if newer than the current live value. */
  offer(platform: Platform, region: string, accepted: Omit<LiveReading, "since">): boolean {
    if (accepted.agentId !== null) {
      const newest = this.newestByAgent.get(accepted.agentId);
      if (newest === undefined || accepted.measuredAt > newest) this.newestByAgent.set(accepted.agentId, accepted.measuredAt);
    }
    const slots = this.slots.get(platform);
    if (!slots) return false;
    const current = slots.get(region);
    if (current && accepted.measuredAt <= current.measuredAt && !this.inFuture(current, this.now())) return false;
    const unchanged = current !== undefined && current.survivor === accepted.survivor && current.killer === accepted.killer;
    const reading: LiveReading = { ...accepted, since: unchanged ? current.since : accepted.measuredAt };
    slots.set(region, reading);
    this.invalidate(platform);
    return true;
  }

  live(platform: Platform, region: string): LiveReading | undefined {
    return this.slots.get(platform)?.get(region);
  }

  /** Marks payloads as possibly changed (all platforms when none is given) and schedules a push. */
  invalidate(platform?: Platform): void {
    for (const p of platform ? [platform] : PLATFORMS) {
      const state = this.states.get(p);
      if (state) state.dirty = true;
    }
    this.scheduleFlush();
  }

  /** The current payload of a platform, rebuilt first if anything it depends on changed. */
  current(platform: Platform): Published {
    const now = this.now();
    const state = this.states.get(platform);
    if (state && (state.dirty || now >= state.validUntil || !state.published)) this.refresh(platform, now);
    const published = this.states.get(platform)?.published;
    if (!published) throw new Error(`no payload for ${platform}`);
    return published;
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private inFuture(reading: LiveReading, now: number): boolean {
    return reading.measuredAt > now + MAX_FUTURE_MS;
  }

  /** Rebuilds what is dirty or due and tells listeners about every real change. */
  flush(): void {
    const now = this.now();
    // The clock went back under a live value: it gives way to the newest reading that is not in the future.
    for (const [platform, slots] of this.slots) for (const [region, value] of slots) if (this.inFuture(value, now)) this.rebuildSlot(platform, region);
    for (const platform of PLATFORMS) {
      const state = this.states.get(platform);
      if (state && (state.dirty || now >= state.validUntil)) this.refresh(platform, now);
    }
    this.arm();
  }

  /** Agents whose newest reading is fresh. */
  isAgentFresh(agentId: number): boolean {
    const newest = this.newestByAgent.get(agentId);
    return newest !== undefined && isFresh(newest, this.now(), this.staleAfterMs);
  }

  /** (platform, region) pairs whose live reading is fresh. */
  freshSlotCount(): number {
    const now = this.now();
    let n = 0;
    for (const slots of this.slots.values()) for (const value of slots.values()) if (isFresh(value.measuredAt, now, this.staleAfterMs)) n++;
    return n;
  }

  /**
   * The events agents saw in the live readings, each for its reading's
   * platform: only those of agents that still vouch for them (enabled, their
   * event reports not ignored, not deleted), so an event planted in a reading
   * goes with its agent like the schedule entries it reported (SPEC §16.3).
   */
  seenEvents(platform?: Platform): SeenEvent[] {
    const seen: SeenEvent[] = [];
    for (const [p, slots] of this.slots) {
      if (platform !== undefined && p !== platform) continue;
      for (const value of slots.values()) if (value.activeEvent && this.vouches(value.agentId)) seen.push({ platform: p, event: value.activeEvent });
    }
    return seen;
  }

  private vouches(agentId: number | null): boolean {
    const agent = agentId === null ? undefined : this.agents.get(agentId);
    return agent !== undefined && agent.enabled && agent.eventReports === "accepted";
  }

  /** Every event a viewer of the platform (or of any, without one) may see now. */
  visibleEvents(platform?: Platform): EventCandidate[] {
    return visibleEvents(this.book.all(), this.seenEvents(platform), this.book.hidden());
  }

  /** Starts the timer that pushes stale transitions and event boundaries on time. */
  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = null;
    this.flushQueued = false;
  }

  /**
   * Pushes right away (in a microtask) after a quiet spell, else once
   * FLUSH_SPACING_MS has passed since the last push: under a steady stream
   * of readings one rebuild and one message carry the changes of many
   * batches, and viewers wait at most that long for them. A read of the
   * payload in between rebuilds it at once (current()).
   */
  private scheduleFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    const run = () => {
      this.flushQueued = false;
      this.lastFlushAt = performance.now();
      this.flush();
    };
    const wait = this.lastFlushAt + FLUSH_SPACING_MS - performance.now();
    if (wait <= 0) queueMicrotask(run);
    else {
      this.pushTimer = setTimeout(() => {
        this.pushTimer = null;
        run();
      }, wait);
      this.pushTimer.unref?.();
    }
  }

  private arm(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.now();
    let next = now + MAX_TICK_MS;
    for (const state of this.states.values()) next = Math.min(next, state.validUntil);
    this.timer = setTimeout(() => this.flush(), Math.max(0, next - now));
    this.timer.unref?.();
  }

  private refresh(platform: Platform, now: number): void {
    const state = this.states.get(platform);
    const slots = this.slots.get(platform);
    if (!state || !slots) return;
    const candidates = this.visibleEvents(platform);
    const { content, staleAt } = deriveIncentives({
      platform,
      catalogue: this.catalogue,
      live: slots,
      covered: this.agents.coveredRegions(platform),
      staleAfterMs: this.staleAfterMs,
      now,
      activeEvent: selectActiveEvent(platform, now, candidates),
      nextEvent: selectNextEvent(platform, now, candidates),
    });
    const boundary = nextEventBoundary(platform, now, candidates);
    state.validUntil = Math.min(staleAt ?? Number.POSITIVE_INFINITY, boundary ?? Number.POSITIVE_INFINITY);
    state.dirty = false;
    const contentJson = JSON.stringify(content);
    if (state.published && contentJson === state.contentJson) return;
    const revision = state.published ? Math.max(state.published.revision + 1, now) : Math.max(now, this.bootRevision);
    if (revision > this.revisionFloor) {
      try {
        this.saveFloor.run(FLOOR_KEY, String(revision + REVISION_RESERVE), now);
        this.revisionFloor = revision + REVISION_RESERVE;
      } catch (error) {
        // The payload is still served; the floor is saved with a later change.
        this.floorNotSaved(error);
      }
    }
    const json = JSON.stringify({ ...content, generatedAt: new Date(now).toISOString() });
    state.contentJson = contentJson;
    state.published = {
      platform,
      revision,
      content,
      json,
      etag: `"${revision}"`,
      frame: encoder.encode(`event: message\nid: ${revision}\nretry: 3000\ndata: ${json}\n\n`),
    };
    for (const listener of this.listeners) listener(state.published);
  }
}
