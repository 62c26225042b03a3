/**
 * Bloodpoint events in the admin's hands: their own, validated, stored and
 * pushed to viewers when they start or end; and the agents' schedule, which
 * an admin may hide or show but not change, since the agents' next report
 * would only undo it (SPEC §11.6).
 */
import { and, eq } from "drizzle-orm";
import { audit, type Actor } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { events, hiddenEvents } from "../db/schema.ts";
import { isPlatform, PLATFORMS } from "../domain/catalogue.ts";
import { eventIdentity, type EventSource } from "../domain/events.ts";
import { parseIsoTime } from "../domain/iso-time.ts";
import { HttpProblem } from "../domain/problem.ts";
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
  readonly source: EventSource;
  /** The agent that reported it; null for admin events and once that agent is deleted. */
  readonly agentId: number | null;
  /** Left out of payloads and the public schedule (agent events only). */
  readonly hidden: boolean;
}

export interface EventInput {
  readonly key?: string;
  readonly label?: string;
  readonly multiplier?: number;
  readonly startsAt?: string;
  readonly endsAt?: string;
  readonly platforms?: string[] | null;
  readonly hidden?: boolean;
}

type EventRow = typeof events.$inferSelect;

export const EVENT_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

function toBody(row: EventRow, hidden: ReadonlySet<string>): EventBody {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    multiplier: row.multiplier,
    startsAt: new Date(row.startsAt).toISOString(),
    endsAt: new Date(row.endsAt).toISOString(),
    platforms: row.platforms === null ? null : (JSON.parse(row.platforms) as string[]),
    source: row.source,
    agentId: row.agentId,
    hidden: row.source === "agent" && hidden.has(eventIdentity(row)),
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

  private body(row: EventRow): EventBody {
    return toBody(row, this.book.hidden());
  }

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
    return this.db.orm.select().from(events).orderBy(events.startsAt, events.id).all().map((row) => this.body(row));
  }

  create(actor: Actor, input: EventInput): EventBody {
    const values = this.values({}, input);
    const row = this.db.sqlite.transaction(() => {
      const created = this.db.orm.insert(events).values({ ...values, createdAt: this.now(), updatedAt: this.now() }).returning().get();
      audit(this.db.orm, actor, "event.create", `event:${created.id}`, { key: created.key }, this.now());
      return created;
    })();
    this.changed();
    return this.body(row);
  }

  update(actor: Actor, id: number, input: EventInput): EventBody {
    const current = this.get(id);
    const { hidden, ...changes } = input;
    if (current.source === "agent") return this.setHidden(actor, current, changes, hidden);
    if (hidden === true) throw new HttpProblem(409, `Event ${id} was made by an admin: change its times or delete it rather than hide it.`);
    const values = this.values(this.body(current), changes);
    const row = this.db.sqlite.transaction(() => {
      const updated = this.db.orm.update(events).set({ ...values, updatedAt: this.now() }).where(eq(events.id, id)).returning().get();
      audit(this.db.orm, actor, "event.update", `event:${id}`, { ...changes }, this.now());
      return updated;
    })();
    this.changed();
    if (!row) throw new HttpProblem(404, `There is no event ${id}.`);
    return this.body(row);
  }

  /** Hides or shows an agent event; anything else about it belongs to the agents' schedule. */
  private setHidden(actor: Actor, row: EventRow, changes: Omit<EventInput, "hidden">, hidden: boolean | undefined): EventBody {
    if (Object.values(changes).some((value) => value !== undefined) || hidden === undefined) {
      throw new HttpProblem(409, `Event ${row.id} comes from the agents' schedule: only \`hidden\` can be changed; their next report replaces the rest.`);
    }
    const identity = eventIdentity(row);
    if (hidden !== this.book.hidden().has(identity)) {
      const at = this.now();
      this.db.sqlite.transaction(() => {
        if (hidden) this.db.orm.insert(hiddenEvents).values({ key: row.key, startsAt: row.startsAt, hiddenAt: at }).onConflictDoNothing().run();
        else this.db.orm.delete(hiddenEvents).where(and(eq(hiddenEvents.key, row.key), eq(hiddenEvents.startsAt, row.startsAt))).run();
        audit(this.db.orm, actor, hidden ? "event.hide" : "event.show", `event:${row.id}`, { key: row.key, startsAt: new Date(row.startsAt).toISOString() }, at);
      })();
      this.changed();
    }
    return this.body(row);
  }

  remove(actor: Actor, id: number): void {
    const row = this.get(id);
    if (row.source === "agent") throw new HttpProblem(409, `Event ${id} comes from the agents' schedule and leaves it with their next report; hide it to keep it from viewers.`);
    this.db.sqlite.transaction(() => {
      this.db.orm.delete(events).where(eq(events.id, id)).run();
      audit(this.db.orm, actor, "event.delete", `event:${id}`, null, this.now());
    })();
    this.changed();
  }
}
