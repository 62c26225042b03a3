/**
 * The path of one reading: the acceptance rules, one transaction that stores
 * it, then the live update that every viewer sees.
 */
import type { Agent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import type { Assignment } from "../domain/cadence.ts";
import type { Platform } from "../domain/catalogue.ts";
import { checkReading, type AcceptedReading } from "../domain/readings.ts";
import { HttpProblem } from "../http/problem.ts";
import type { Logger } from "../log.ts";
import type { AgentDirectory } from "./agents.ts";
import type { LiveStore } from "./store.ts";

export interface IngestResult {
  readonly assignment: Assignment;
  readonly live: boolean;
}

export interface IngestCounters {
  accepted: number;
  readonly rejected: Map<string, number>;
}

/** Told about every stored reading, after it is on disk. */
export type AcceptedListener = (platform: Platform, region: string, reading: AcceptedReading, agentId: number) => void;

/** Rows a reading brings with it (the outbox of alerts, SPEC §18). */
export interface PreparedEffects {
  /** Runs inside the reading's transaction, right after it is inserted, so both are on disk or neither is. */
  write(): void;
  /** Runs once that transaction has committed. */
  committed(): void;
}

/** Asked about every reading about to become live; null when it brings nothing, so the common case adds no transaction. */
export interface ReadingEffects {
  prepare(platform: Platform, region: string, reading: Pick<AcceptedReading, "survivor" | "killer" | "measuredAt">, now: number): PreparedEffects | null;
}

type InsertParams = [string, string, number, number, number, string | null, string | null, number | null, number, number, number, string | null, number];

/** What rule 5 needs to know of an agent's accepted readings so far. */
interface Previous {
  /** When the newest arrived (epoch ms); null when there is none. */
  readonly at: number | null;
  /** The agent has exactly one, and it was a probe: the next reading is exempt from rule 5. */
  readonly secondAfterProbe: boolean;
}

export class Ingest {
  private readonly previous = new Map<number, Previous>();
  private readonly insert;
  private readonly storedPrevious;
  private readonly acceptedListeners = new Set<AcceptedListener>();
  readonly counters: IngestCounters = { accepted: 0, rejected: new Map() };

  constructor(
    private readonly db: HubDb,
    private readonly agents: AgentDirectory,
    private readonly live: LiveStore,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly effects: ReadingEffects | null = null,
  ) {
    // run() rather than RETURNING with get(): a statement stepped to completion commits at once and lets the WAL checkpoint.
    this.insert = db.sqlite.query<unknown, InsertParams>(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event, probe) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    // Derived from the stored readings rather than kept apart, so a restart, or readings detached or deleted by an admin, leave it right.
    this.storedPrevious = db.sqlite.query<{ at: number | null; n: number; probes: number | null }, [number]>(
      "SELECT MAX(received_at) AS at, COUNT(*) AS n, SUM(probe) AS probes FROM readings WHERE agent_id = ?",
    );
  }

  /** Forgets what is known about agents' previous readings (after readings were deleted). */
  forget(agentId?: number): void {
    if (agentId === undefined) this.previous.clear();
    else this.previous.delete(agentId);
  }

  /** Subscribes to stored readings; returns the unsubscribe function. */
  onAccepted(listener: AcceptedListener): () => void {
    this.acceptedListeners.add(listener);
    return () => this.acceptedListeners.delete(listener);
  }

  private previousOf(agentId: number): Previous {
    let previous = this.previous.get(agentId);
    if (previous === undefined) {
      const stored = this.storedPrevious.get(agentId);
      previous = { at: stored?.at ?? null, secondAfterProbe: stored?.n === 1 && stored.probes === 1 };
      this.previous.set(agentId, previous);
    }
    return previous;
  }

  private reject(reason: string): void {
    this.counters.rejected.set(reason, (this.counters.rejected.get(reason) ?? 0) + 1);
  }

  submit(agent: Agent, body: unknown): IngestResult {
    const now = this.now();
    const assignment = this.agents.assignment(agent);
    const previous = this.previousOf(agent.id);
    const verdict = checkReading(body, {
      region: agent.region,
      platform: agent.platform,
      now,
      pollMinSeconds: assignment.pollMinSeconds,
      previousAcceptedAt: previous.at,
      secondAfterProbe: previous.secondAfterProbe,
    });
    if (!verdict.ok) {
      const { refusal } = verdict;
      this.reject(`rule${refusal.rule}`);
      throw new HttpProblem(refusal.status, refusal.detail, {
        errors: [{ location: refusal.location, message: refusal.detail }],
        headers: refusal.retryAfterSeconds === undefined ? {} : { "retry-after": String(refusal.retryAfterSeconds) },
      });
    }
    const reading = verdict.reading;
    const platform = agent.platform as Platform;
    // Only a reading that will become live can turn an alert's condition (the same test as live.offer below).
    const shown = this.live.live(platform, reading.region);
    const effects = shown === undefined || reading.measuredAt > shown.measuredAt ? (this.effects?.prepare(platform, reading.region, reading, now) ?? null) : null;
    const store = (): number =>
      Number(
        this.insert.run(
          platform,
          reading.region,
          reading.survivor,
          reading.killer,
          reading.ratio,
          reading.version,
          reading.category,
          reading.refreshTimeSeconds,
          reading.measuredAt,
          now,
          agent.id,
          reading.activeEvent ? JSON.stringify(reading.activeEvent) : null,
          assignment.probeImmediately ? 1 : 0,
        ).lastInsertRowid,
      );
    let id: number;
    try {
      id = effects === null
        ? store()
        : this.db.sqlite.transaction(() => {
            const stored = store();
            effects.write();
            return stored;
          })();
    } catch (error) {
      this.reject("storage");
      this.log.error("a reading could not be stored", { agentId: agent.id, error });
      throw new HttpProblem(503, "The hub cannot store readings right now; the reading was not accepted. Retry later.", {
        headers: { "retry-after": "30" },
      });
    }
    effects?.committed();
    this.previous.set(agent.id, { at: now, secondAfterProbe: previous.at === null && assignment.probeImmediately });
    this.counters.accepted++;
    for (const listener of this.acceptedListeners) listener(platform, reading.region, reading, agent.id);
    const becameLive = this.live.offer(platform, reading.region, {
      id,
      survivor: reading.survivor,
      killer: reading.killer,
      ratio: reading.ratio,
      measuredAt: reading.measuredAt,
      version: reading.version,
      category: reading.category,
      agentId: agent.id,
      activeEvent: reading.activeEvent,
    });
    let current = assignment;
    if (reading.refreshTimeSeconds !== null) {
      try {
        if (this.agents.learnRefreshTime(platform, reading.region, reading.refreshTimeSeconds, now)) current = this.agents.assignment(agent);
      } catch (error) {
        this.log.warn("the reported refresh time could not be stored", { error });
      }
    }
    return { assignment: current, live: becameLive };
  }
}
