/** Admin-defined bloodpoint events: validated, stored, and pushed to viewers when they start or end. */
import { eq } from "drizzle-orm";
import { audit, type Actor } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { events } from "../db/schema.ts";
import { isPlatform, PLATFORMS } from "../domain/catalogue.ts";
import { parseIsoTime } from "../domain/iso-time.ts";
import { HttpProblem } from "../http/problem.ts";
import { characters } from "../domain/characters.ts";
import type { EventBook } from "../live/events.ts";
import type { LiveStore } from "../live/store.ts";

export interface EventBody {
  readonly id: number;
  readonly key: string;
  readonly label: string;
  readonly multiplier: number;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly platforms: string[] | null;
}

export interface EventInput {
  readonly key?: string;
  readonly label?: string;
  readonly multiplier?: number;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly platforms?: string[] | null;
}

type EventRow = typeof events.$inferSelect;

export const EVENT_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

function toBody(row: EventRow): EventBody {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    multiplier: row.multiplier,
    startsAt: new Date(row.startsAt).toISOString(),
    endsAt: new Date(row.endsAt).toISOString(),
    platforms: row.platforms === null ? null : (JSON.parse(row.platforms) as string[]),
  };
}

function invalid(location: string, message: string): never {
  throw new HttpProblem(400, `Invalid ${location.replace("body.", "")}: ${message}.`, { errors: [{ location, message }] });
}

export class EventAdmin {
  constructor(
    private readonly db: HubDb,
    private readonly book: EventBook,
    private readonly live: LiveStore,
    private readonly now: () => number,
  ) {}

  private get(id: number): EventRow {
    const row = this.db.orm.select().from(events).where(eq(events.id, id)).get();
    if (!row) throw new HttpProblem(404, `There is no event ${id}.`);
    return row;
  }

  /** The complete, checked values of an event made from stored values and a change. */
  private values(base: Partial<EventBody>, input: EventInput) {
    const key = input.key ?? base.key;
    const label = input.label ?? base.label;
    const multiplier = input.multiplier ?? base.multiplier;
    const startsText = input.startsAt ?? base.startsAt;
    const endsText = input.endsAt ?? base.endsAt;
    const platforms = input.platforms === undefined ? (base.platforms ?? null) : input.platforms;
    if (key === undefined || !EVENT_KEY_PATTERN.test(key)) invalid("body.key", "1 to 64 of a-z, 0-9, '_' and '-'");
    if (label === undefined || label.trim() === "" || characters(label) > 120) invalid("body.label", "1 to 120 characters");
    if (multiplier === undefined || !Number.isFinite(multiplier) || multiplier <= 0) invalid("body.multiplier", "a number greater than 0");
    const startsAt = parseIsoTime(startsText);
    const endsAt = parseIsoTime(endsText);
    if (startsAt === null) invalid("body.startsAt", "an ISO-8601 time with a zone");
    if (endsAt === null) invalid("body.endsAt", "an ISO-8601 time with a zone");
    if (endsAt <= startsAt) invalid("body.endsAt", "must be after startsAt");
    if (platforms !== null) {
      if (platforms.length === 0) invalid("body.platforms", "list at least one platform, or null for all");
      for (const p of platforms) if (!isPlatform(p)) invalid("body.platforms", `unknown platform "${p}"; use ${PLATFORMS.join(", ")}`);
    }
    return { key, label: label.trim(), multiplier, startsAt, endsAt, platforms: platforms === null ? null : JSON.stringify([...new Set(platforms)]) };
  }

  private changed(): void {
    this.book.reload();
    this.live.invalidate();
  }

  list(): EventBody[] {
    return this.db.orm.select().from(events).orderBy(events.startsAt, events.id).all().map(toBody);
  }

  create(actor: Actor, input: EventInput): EventBody {
    const values = this.values({}, input);
    const row = this.db.sqlite.transaction(() => {
      const created = this.db.orm.insert(events).values({ ...values, createdAt: this.now(), updatedAt: this.now() }).returning().get();
      audit(this.db.orm, actor, "event.create", `event:${created.id}`, { key: created.key }, this.now());
      return created;
    })();
    this.changed();
    return toBody(row);
  }

  update(actor: Actor, id: number, input: EventInput): EventBody {
    const values = this.values(toBody(this.get(id)), input);
    const row = this.db.sqlite.transaction(() => {
      const updated = this.db.orm.update(events).set({ ...values, updatedAt: this.now() }).where(eq(events.id, id)).returning().get();
      audit(this.db.orm, actor, "event.update", `event:${id}`, { ...input }, this.now());
      return updated;
    })();
    this.changed();
    if (!row) throw new HttpProblem(404, `There is no event ${id}.`);
    return toBody(row);
  }

  remove(actor: Actor, id: number): void {
    this.get(id);
    this.db.sqlite.transaction(() => {
      this.db.orm.delete(events).where(eq(events.id, id)).run();
      audit(this.db.orm, actor, "event.delete", `event:${id}`, null, this.now());
    })();
    this.changed();
  }
}
