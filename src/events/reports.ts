/**
 * Agents' event reports (SPEC §9.1): the throttle, the replacement of the
 * agent schedule, its audit row, and the count and log of skipped entries;
 * and the record of events agents name in readings, so an admin can see and
 * hide those too.
 *
 * The agent schedule is one for all agents and platforms: each report that
 * holds at least one good entry replaces it. Rows are matched by key and
 * start, so an event reported again keeps its id (the admin console's
 * handle on it) and an identical report writes nothing at all, once every
 * agent sending it is on record as vouching for its entries (SPEC §16.3:
 * an entry is withdrawn with the last agent that reported it).
 */
import { and, eq, inArray } from "drizzle-orm";
import { audit, type Actor } from "../db/audit.ts";
import type { Agent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import { eventReporters, events } from "../db/schema.ts";
import { eventIdentity, type ReportedEvent } from "../domain/events.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { EventBook } from "../live/events.ts";
import type { LiveStore } from "../live/store.ts";
import type { Logger } from "../log.ts";
import { readEventReport, REPORT_INTERVAL_MS, SKIP_REASONS, type ReadReport, type SkipReason } from "./report.ts";

/** Skipped entries are logged at most this often per agent. */
export const SKIP_LOG_INTERVAL_MS = 60_000;

/** The reason label /metrics gives entries past the first MAX_REPORT_ENTRIES. */
export const UNREAD_REASON = "unread";

export interface ScheduleChange {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
}

interface SkipLog {
  at: number;
  /** Skipped entries not yet in a log line. */
  pending: number;
}

const same = (a: ReportedEvent, b: ReportedEvent): boolean => a.label === b.label && a.multiplier === b.multiplier && a.endsAt === b.endsAt;

export class AgentEventReports {
  private readonly lastReportAt = new Map<number, number>();
  private readonly skipLogs = new Map<number, SkipLog>();
  /** Skipped entries since start, by reason (SkipReason or UNREAD_REASON). */
  readonly skippedCounts = new Map<string, number>();

  constructor(
    private readonly db: HubDb,
    private readonly book: EventBook,
    private readonly live: LiveStore,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  /** Takes one report; throws the problem to answer when it is refused as a whole. */
  report(agent: Agent, body: unknown): void {
    const now = this.now();
    const last = this.lastReportAt.get(agent.id);
    if (last !== undefined && now - last < REPORT_INTERVAL_MS) {
      const wait = Math.max(1, Math.ceil((last + REPORT_INTERVAL_MS - now) / 1000));
      throw new HttpProblem(429, `An agent may send one event report every ${REPORT_INTERVAL_MS / 1000} s; send the next in ${wait} s.`, { headers: { "retry-after": String(wait) } });
    }
    // Counted before the body is judged: a malformed report is still one report.
    this.lastReportAt.set(agent.id, now);
    const report = readEventReport(body, now);
    if (report === null) {
      throw new HttpProblem(400, "The report must be a JSON object with an `events` array.", { errors: [{ location: "body.events", message: "an array of { key, label, multiplier, startsAt, endsAt }" }] });
    }
    // An admin ignores this agent's events (SPEC §16.3): answered like any report, so the agent carries on as it is, and dropped.
    if (agent.eventReports === "ignored") return;
    this.noteSkipped(agent, report, now);
    // An empty schedule is what an agent sends after failing to decode the game's: it must not wipe a live event.
    if (report.events.length === 0) return;
    this.replaceSchedule(agent, report.events, now);
  }

  /**
   * Records an event named in a reading's activeEvent, once per platform,
   * key and start (its values follow the newest reading). Payloads take such
   * events from the live readings, not from here; a failure to record one
   * never costs the reading.
   */
  noteSeen(platform: string, event: ReportedEvent, agentId: number): void {
    const known = this.book.seenOn(platform, event);
    if (known && same(known, event)) return;
    const now = this.now();
    try {
      if (known) {
        this.db.orm.update(events).set({ label: event.label, multiplier: event.multiplier, endsAt: event.endsAt, agentId, updatedAt: now }).where(eq(events.id, known.id)).run();
      } else {
        this.db.orm
          .insert(events)
          .values({ ...event, platforms: JSON.stringify([platform]), source: "agent", agentId, seen: true, createdAt: now, updatedAt: now })
          .run();
      }
    } catch (error) {
      this.log.warn("an event seen in a reading could not be recorded", { agentId, error });
      return;
    }
    this.book.reload();
  }

  private noteSkipped(agent: Agent, report: ReadReport, now: number): void {
    const count = (reason: string, n: number) => this.skippedCounts.set(reason, (this.skippedCounts.get(reason) ?? 0) + n);
    for (const entry of report.skipped) count(entry.reason, 1);
    if (report.unread > 0) count(UNREAD_REASON, report.unread);
    const total = report.skipped.length + report.unread;
    if (total === 0) return;
    const state = this.skipLogs.get(agent.id) ?? { at: Number.NEGATIVE_INFINITY, pending: 0 };
    state.pending += total;
    this.skipLogs.set(agent.id, state);
    if (now - state.at < SKIP_LOG_INTERVAL_MS) return;
    const reasons: Partial<Record<SkipReason, number>> = {};
    for (const entry of report.skipped) reasons[entry.reason] = (reasons[entry.reason] ?? 0) + 1;
    const first = report.skipped[0];
    this.log.warn("an agent's event report had entries that were skipped", {
      agentId: agent.id,
      skipped: report.skipped.length,
      unread: report.unread,
      reasons,
      ...(first ? { first: { index: first.index, reason: SKIP_REASONS[first.reason] } } : {}),
      skippedSinceLastLine: state.pending,
    });
    state.at = now;
    state.pending = 0;
  }

  private replaceSchedule(agent: Agent, reported: readonly ReportedEvent[], now: number): void {
    const current = new Map(this.book.agentSchedule().map((event) => [eventIdentity(event), event]));
    const incoming = new Map(reported.map((event) => [eventIdentity(event), event]));
    const added = reported.filter((event) => !current.has(eventIdentity(event)));
    const changed = [...current].flatMap(([identity, event]) => {
      const next = incoming.get(identity);
      return next && !same(event, next) ? [{ id: event.id, next }] : [];
    });
    const removed = [...current].filter(([identity]) => !incoming.has(identity)).map(([, event]) => event.id);
    // Entries this agent reports for the first time now count it among those vouching for them (SPEC §16.3), even when nothing else changed.
    const vouched = [...current]
      .filter(([identity, event]) => incoming.has(identity) && !this.book.reportedBy(event.id, agent.id))
      .map(([, event]) => event.id);
    const scheduleChanged = added.length > 0 || changed.length > 0 || removed.length > 0;
    if (!scheduleChanged && vouched.length === 0) return;
    const actor: Actor = { userId: null, name: `agent:${agent.id}`, via: "config" };
    const change: ScheduleChange = { added: added.length, changed: changed.length, removed: removed.length };
    try {
      this.db.sqlite.transaction(() => {
        const { orm } = this.db;
        const vouch = (eventId: number) => orm.insert(eventReporters).values({ eventId, agentId: agent.id }).onConflictDoNothing().run();
        if (removed.length > 0) orm.delete(events).where(and(eq(events.source, "agent"), eq(events.seen, false), inArray(events.id, removed))).run();
        for (const { id, next } of changed) {
          orm.update(events).set({ label: next.label, multiplier: next.multiplier, endsAt: next.endsAt, agentId: agent.id, updatedAt: now }).where(eq(events.id, id)).run();
        }
        for (const id of vouched) vouch(id);
        for (const event of added) {
          const row = orm
            .insert(events)
            .values({ key: event.key, label: event.label, multiplier: event.multiplier, startsAt: event.startsAt, endsAt: event.endsAt, platforms: null, source: "agent", agentId: agent.id, createdAt: now, updatedAt: now })
            .returning({ id: events.id })
            .get();
          vouch(row.id);
        }
        if (scheduleChanged) audit(orm, actor, "events.reported", `agent:${agent.id}`, { events: reported.length, ...change }, now);
      })();
    } catch (error) {
      this.log.error("an agent's event report could not be stored", { agentId: agent.id, error });
      throw new HttpProblem(503, "The hub cannot store the event schedule right now; it was not changed. Retry later.", { headers: { "retry-after": "30" } });
    }
    this.book.reload();
    if (scheduleChanged) this.live.invalidate();
  }
}
