/**
 * The path of one reading: the acceptance rules, one transaction that stores
 * it, then the live update that every viewer sees.
 */
import type { Agent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import { StorageRefusal, type Storage } from "../db/storage.ts";
import type { Assignment } from "../domain/cadence.ts";
import type { Platform } from "../domain/catalogue.ts";
import { checkReading, type AcceptedReading, type PreviousReading } from "../domain/readings.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { Logger } from "../log.ts";
import type { AgentDirectory } from "./agents.ts";
import type { LiveStore } from "./store.ts";

export interface IngestResult {
  readonly assignment: Assignment;
  readonly live: boolean;
  /** The reading repeated the agent's previous one and was answered again, not stored again. */
  readonly duplicate: boolean;
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
  /** Runs right after, before the batch's commit (ReadingEffects.rolledBack undoes it if that fails). */
  committed(): void;
}

/** Asked about every reading about to become live; null when it brings nothing. */
export interface ReadingEffects {
  prepare(platform: Platform, region: string, reading: Pick<AcceptedReading, "survivor" | "killer" | "measuredAt">, now: number): PreparedEffects | null;
  /** The transaction the prepared effects were written and committed in was rolled back after all: forget what they changed. */
  rolledBack(): void;
}

/** The most readings stored in one transaction. */
const MAX_BATCH = 32;

interface Queued {
  readonly agent: Agent;
  readonly body: unknown;
  readonly resolve: (result: IngestResult) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly result: IngestResult } | { readonly ok: false; readonly error: unknown };

type InsertParams = [string, string, number, number, number, string | null, string | null, number | null, number, number, number, string | null, number];

/** What rule 5 needs to know of an agent's accepted readings so far. */
interface Previous {
  /** When the newest arrived (epoch ms); null when there is none. */
  readonly at: number | null;
  /** The agent has exactly one, and it was a probe: the next reading is exempt from rule 5. */
  readonly secondAfterProbe: boolean;
  /** The newest, so that a retry of it is recognised; null when there is none. */
  readonly last: (PreviousReading & { readonly id: number }) | null;
}

export class Ingest {
  private readonly previous = new Map<number, Previous>();
  private readonly insert;
  /** Stores one reading and what it brings in a savepoint of the batch's transaction; made once, not per reading (Bun builds a wrapper for each). */
  private readonly store;
  private readonly storedPrevious;
  private readonly storedLast;
  private readonly acceptedListeners = new Set<AcceptedListener>();
  private readonly queue: Queued[] = [];
  private flushScheduled = false;
  private flushing = false;
  private readonly batchSize: number;
  readonly counters: IngestCounters = { accepted: 0, rejected: new Map() };

  constructor(
    private readonly db: HubDb,
    private readonly storage: Storage,
    private readonly agents: AgentDirectory,
    private readonly live: LiveStore,
    private readonly now: () => number,
    private readonly log: Logger,
    private readonly effects: ReadingEffects | null = null,
    /** Requests one address may have in progress: a batch stays well below it, so waiting for a commit never trips that cap. */
    maxRequestsPerClient = Number.POSITIVE_INFINITY,
  ) {
    this.batchSize = Math.max(1, Math.min(MAX_BATCH, Math.floor(maxRequestsPerClient / 2)));
    // run() rather than RETURNING with get(): a statement stepped to completion commits at once and lets the WAL checkpoint.
    this.insert = db.sqlite.query<unknown, InsertParams>(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event, probe) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    // A savepoint: a reading that fails on its own leaves the batch's others to commit.
    this.store = db.sqlite.transaction((params: InsertParams, effects: PreparedEffects | null): number => {
      const stored = Number(this.insert.run(...params).lastInsertRowid);
      effects?.write();
      return stored;
    });
    // Derived from the stored readings rather than kept apart, so a restart, or readings detached or deleted by an admin, leave it right.
    this.storedPrevious = db.sqlite.query<{ at: number | null; n: number; probes: number | null }, [number]>(
      "SELECT MAX(received_at) AS at, COUNT(*) AS n, SUM(probe) AS probes FROM readings WHERE agent_id = ?",
    );
    this.storedLast = db.sqlite.query<{ id: number; measuredAt: number; survivor: number; killer: number; ratio: number }, [number]>(
      "SELECT id, measured_at AS measuredAt, survivor, killer, ratio FROM readings WHERE agent_id = ? ORDER BY measured_at DESC, id DESC LIMIT 1",
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
      // An agent with no reading yet (every agent of a new fleet) costs one query, not two.
      const any = stored !== null && stored.n > 0;
      previous = { at: stored?.at ?? null, secondAfterProbe: stored?.n === 1 && stored.probes === 1, last: any ? (this.storedLast.get(agentId) ?? null) : null };
      this.previous.set(agentId, previous);
    }
    return previous;
  }

  private reject(reason: string): void {
    this.counters.rejected.set(reason, (this.counters.rejected.get(reason) ?? 0) + 1);
  }

  /**
   * Checks and stores a reading. Readings that arrive together are stored in
   * one transaction (group commit): with synchronous = FULL each commit waits
   * for the disk, and one wait per turn of the event loop, not per reading,
   * is what keeps ingest within its budget. Each reading is still checked
   * and applied in arrival order, in its own savepoint.
   */
  submit(agent: Agent, body: unknown): Promise<IngestResult> {
    return new Promise<IngestResult>((resolve, reject) => {
      this.queue.push({ agent, body, resolve, reject });
      // A full batch is stored at once: posts waiting for a commit count against their address's cap on requests in progress.
      if (this.queue.length >= this.batchSize) void this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          void this.flush();
        });
      }
    });
  }

  private async flush(): Promise<void> {
    // A flush waiting for the lock takes what queued meanwhile when it is done.
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchSize);
        let outcomes: Outcome[];
        try {
          // While another process holds the write lock the batch waits between turns of the event loop, for at most 2 s (Storage.write).
          outcomes = await this.storage.write(() => this.commit(batch));
        } catch (error) {
          for (const item of batch) {
            if (error instanceof StorageRefusal) this.reject("storage");
            item.reject(error);
          }
          continue;
        }
        batch.forEach((item, i) => {
          const outcome = outcomes[i];
          if (outcome?.ok) item.resolve(outcome.result);
          else item.reject(outcome?.error);
        });
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * One transaction for the batch. Each accepted reading updates the live
   * values, rule 5's memory and the alert conditions at once, so the next
   * one in the batch is judged against it; if the commit fails, all of that
   * is read back from the database instead.
   */
  private commit(batch: readonly Queued[]): Outcome[] {
    const { sqlite } = this.db;
    sqlite.exec("BEGIN IMMEDIATE");
    const outcomes: Outcome[] = [];
    const committed: (() => void)[] = [];
    try {
      for (const item of batch) outcomes.push(this.attempt(item.agent, item.body, committed));
      sqlite.exec("COMMIT");
    } catch (error) {
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
      this.previous.clear();
      this.effects?.rolledBack();
      this.agents.reload();
      this.live.rebuildAll();
      throw error;
    }
    this.storage.confirmCommitted();
    for (const after of committed) after();
    return outcomes;
  }

  private attempt(agent: Agent, body: unknown, committed: (() => void)[]): Outcome {
    const now = this.now();
    const assignment = this.agents.assignment(agent);
    const previous = this.previousOf(agent.id);
    const verdict = checkReading(body, {
      region: agent.region,
      platform: agent.platform,
      now,
      pollMinSeconds: assignment.pollMinSeconds,
      pollMaxSeconds: assignment.pollMaxSeconds,
      previousAcceptedAt: previous.at,
      previous: previous.last,
      secondAfterProbe: previous.secondAfterProbe,
    });
    if (!verdict.ok) {
      const { refusal } = verdict;
      this.reject(`rule${refusal.rule}`);
      const error = new HttpProblem(refusal.status, refusal.detail, {
        errors: [{ location: refusal.location, message: refusal.detail }],
        headers: refusal.retryAfterSeconds === undefined ? {} : { "retry-after": String(refusal.retryAfterSeconds) },
      });
      return { ok: false, error };
    }
    if (verdict.duplicate && previous.last !== null) {
      const shownId = this.live.live(agent.platform as Platform, agent.region)?.id;
      return { ok: true, result: { assignment, live: shownId === previous.last.id, duplicate: true } };
    }
    const reading = verdict.reading;
    const platform = agent.platform as Platform;
    // Only a reading that will become live can turn an alert's condition (the same test as live.offer below).
    const shown = this.live.live(platform, reading.region);
    const effects = shown === undefined || reading.measuredAt > shown.measuredAt ? (this.effects?.prepare(platform, reading.region, reading, now) ?? null) : null;
    let id: number;
    try {
      id = this.store(
        [
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
        ],
        effects,
      );
    } catch (error) {
      // Storage faults fail the whole batch (Storage answers them, and retries while the lock is held); anything else refuses this reading alone, never with a 500.
      if (this.storage.classify(error) !== null) throw error;
      this.reject("storage");
      this.log.error("a reading could not be stored", { agentId: agent.id, error });
      const refused = new HttpProblem(503, "The hub cannot store readings right now; the reading was not accepted. Retry later.", { headers: { "retry-after": "30" } });
      return { ok: false, error: refused };
    }
    effects?.committed();
    const last = { id, measuredAt: reading.measuredAt, survivor: reading.survivor, killer: reading.killer, ratio: reading.ratio };
    this.previous.set(agent.id, { at: now, secondAfterProbe: previous.at === null && assignment.probeImmediately, last });
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
        if (this.storage.classify(error) !== null) throw error;
        this.log.warn("the reported refresh time could not be stored", { error });
      }
    }
    committed.push(() => {
      this.counters.accepted++;
      for (const listener of this.acceptedListeners) listener(platform, reading.region, reading, agent.id);
    });
    return { ok: true, result: { assignment: current, live: becameLive, duplicate: false } };
  }
}
