/**
 * The events table as the live store sees it (admin events and the agents'
 * schedule), reloaded when it changes; and which events seen in readings
 * are on record, so each is written once.
 */
import type { HubDb } from "../db/open.ts";
import { eventIdentity, type EventSource, type ScheduledEvent } from "../domain/events.ts";

interface EventRow {
  id: number;
  key: string;
  label: string;
  multiplier: number;
  starts_at: number;
  ends_at: number;
  platforms: string | null;
  source: EventSource;
  agent_id: number | null;
  seen: number;
}

const seenKey = (platform: string, event: { readonly key: string; readonly startsAt: number }): string => `${platform}\u0000${eventIdentity(event)}`;

export class EventBook {
  private events: ScheduledEvent[] = [];
  private seenRows = new Map<string, ScheduledEvent>();
  private hiddenSet: ReadonlySet<string> = new Set();
  private reporterSets = new Map<number, Set<number>>();
  private readonly query;
  private readonly hiddenQuery;
  private readonly reportersQuery;

  constructor(db: HubDb) {
    this.query = db.sqlite.query<EventRow, []>("SELECT id, key, label, multiplier, starts_at, ends_at, platforms, source, agent_id, seen FROM events ORDER BY id");
    this.hiddenQuery = db.sqlite.query<{ key: string; starts_at: number }, []>("SELECT key, starts_at FROM hidden_events");
    this.reportersQuery = db.sqlite.query<{ event_id: number; agent_id: number }, []>("SELECT event_id, agent_id FROM event_reporters");
    this.reload();
  }

  reload(): void {
    const rows = this.query.all();
    const toEvent = (row: EventRow): ScheduledEvent => ({
      id: row.id,
      key: row.key,
      label: row.label,
      multiplier: row.multiplier,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      platforms: row.platforms === null ? null : (JSON.parse(row.platforms) as string[]),
      source: row.source,
      agentId: row.agent_id,
    });
    this.events = rows.filter((row) => row.seen === 0).map(toEvent);
    this.seenRows = new Map(rows.filter((row) => row.seen === 1).map(toEvent).map((event) => [seenKey(event.platforms?.[0] ?? "", event), event]));
    this.hiddenSet = new Set(this.hiddenQuery.all().map((row) => eventIdentity({ key: row.key, startsAt: row.starts_at })));
    const reporters = new Map<number, Set<number>>();
    for (const row of this.reportersQuery.all()) {
      const set = reporters.get(row.event_id) ?? new Set<number>();
      set.add(row.agent_id);
      reporters.set(row.event_id, set);
    }
    this.reporterSets = reporters;
  }

  /** Whether the agent's report already holds this entry of the agents' schedule. */
  reportedBy(eventId: number, agentId: number): boolean {
    return this.reporterSets.get(eventId)?.has(agentId) ?? false;
  }

  /** Admin events and the agents' schedule: what payloads take events from, beside the live readings. */
  all(): readonly ScheduledEvent[] {
    return this.events;
  }

  /** Identities (eventIdentity) of the agent events an admin hid. */
  hidden(): ReadonlySet<string> {
    return this.hiddenSet;
  }

  /** The record of an event seen in a reading on a platform, if there is one. */
  seenOn(platform: string, event: { readonly key: string; readonly startsAt: number }): ScheduledEvent | undefined {
    return this.seenRows.get(seenKey(platform, event));
  }

  /** The schedule agents reported last (SPEC §9.1). */
  agentSchedule(): ScheduledEvent[] {
    return this.events.filter((event) => event.source === "agent");
  }
}
