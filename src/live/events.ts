/** Admin-defined bloodpoint events as the live store sees them, reloaded when they change. */
import type { HubDb } from "../db/open.ts";
import type { AdminEvent } from "../domain/events.ts";

interface EventRow {
  id: number;
  key: string;
  label: string;
  multiplier: number;
  starts_at: number;
  ends_at: number;
  platforms: string | null;
}

export class EventBook {
  private events: AdminEvent[] = [];
  private readonly query;

  constructor(db: HubDb) {
    this.query = db.sqlite.query<EventRow, []>("SELECT id, key, label, multiplier, starts_at, ends_at, platforms FROM events ORDER BY id");
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
    }));
  }

  all(): readonly AdminEvent[] {
    return this.events;
  }
}
