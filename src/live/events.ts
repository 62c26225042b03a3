/** The events table as the live store sees it (admin events and the agents' schedule), reloaded when it changes. */
import type { HubDb } from "../db/open.ts";
import type { EventSource, ScheduledEvent } from "../domain/events.ts";

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
}

export class EventBook {
  private events: ScheduledEvent[] = [];
  private readonly query;

  constructor(db: HubDb) {
    this.query = db.sqlite.query<EventRow, []>("SELECT id, key, label, multiplier, starts_at, ends_at, platforms, 'admin' AS source, NULL AS agent_id FROM events ORDER BY id");
    this.reload();
  }

  reload(): void {
    this.events = this.query.all().map((row) => ({
      id: row.id,
      key: row.key,
      label: row.label,
      multiplier: row.multiplier,
      startsAt: row.starts_at,
      endsAt: row.ends_at,
      platforms: row.platforms === null ? null : (JSON.parse(row.platforms) as string[]),
      source: row.source,
      agentId: row.agent_id,
    }));
  }

  all(): readonly ScheduledEvent[] {
    return this.events;
  }

  /** Identities (eventIdentity) of the agent events an admin hid. */
  hidden(): ReadonlySet<string> {
    return new Set();
  }
}
