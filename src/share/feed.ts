/**
 * Atom 1.0 feeds of a platform's or a region's bonus changes and event starts
 * (SPEC §19), built from the stored readings so a feed reader that polls
 * hourly still sees every change, not only the live value.
 *
 * A query costs a filter, not a build (SPEC §16.3): each platform's changes
 * are read once, in slices that leave the event loop to other requests, then
 * brought forward with the readings stored since, once per payload revision;
 * every `min` and every region of the platform is a filter over that one
 * view. The views are one per platform, each holding only the changes some
 * `min` can still show, so the memory is bounded by the catalogue.
 */
import type { HubDb } from "../db/open.ts";
import { oldestVisibleReading } from "../db/readings.ts";
import { PLATFORM_LABELS, type Catalogue, type Platform } from "../domain/catalogue.ts";
import { eventIdentity, type ReportedEvent } from "../domain/events.ts";
import { MAX_BONUS } from "../domain/readings.ts";
import type { EventBook } from "../live/events.ts";
import { storedEvent, type LiveStore } from "../live/store.ts";
import { escapeMarkup } from "./escape.ts";
import { bonusText, roleName, say, SITE_NAME, type Role } from "./words.ts";

export const FEED_MAX_ENTRIES = 50;
export const FEED_DEFAULT_MIN = 50;
export const FEED_MAX_MIN = 1000;

/** Rows read between two yields to the event loop while a platform is read in full (a few ms each). */
const SCAN_SLICE = 4000;

interface FeedRow {
  id: number;
  region: string;
  survivor: number;
  killer: number;
  measured_at: number;
  active_event: string | null;
}

/** A role's bonus changing: an entry of every feed whose `min` is at or below its value. */
interface Change {
  readonly at: number;
  readonly readingId: number;
  readonly role: Role;
  readonly value: number;
}

interface RegionTrail {
  survivor: number;
  killer: number;
  lastAt: number;
  lastEventJson: string | null;
  /** Oldest first. */
  changes: Change[];
  /** The length after the last pruning, so pruning runs again only once the list has doubled. */
  prunedLength: number;
}

interface PlatformView {
  /** LiveStore.storedGeneration when the view was read in full. */
  readonly generation: number;
  revision: number;
  /** The highest reading id taken in. */
  cursor: number;
  readonly regions: Map<string, RegionTrail>;
  /** Events that readings carried, by eventIdentity. */
  readonly seen: Map<string, ReportedEvent>;
}

export interface FeedAnswer {
  readonly body: string;
  /** Whether this request brought the platform's changes up to its revision; false when it only filtered them. */
  readonly built: boolean;
}

interface Picked {
  readonly at: number;
  /** Orders entries of the same instant: the reading and role they came from, events first. */
  readonly order: number;
  readonly xml: () => string;
}

const ROLES: readonly Role[] = ["killer", "survivor"];

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How many counted values are at or above a value of 0…MAX_BONUS (a Fenwick tree over the values, highest first). */
class ValueTally {
  private readonly tree = new Int32Array(MAX_BONUS + 2);

  private static slot(value: number): number {
    return MAX_BONUS + 1 - Math.min(MAX_BONUS, Math.max(0, value));
  }

  add(value: number): void {
    for (let i = ValueTally.slot(value); i < this.tree.length; i += i & -i) this.tree[i] = (this.tree[i] ?? 0) + 1;
  }

  atLeast(value: number): number {
    let sum = 0;
    for (let i = ValueTally.slot(value); i > 0; i -= i & -i) sum += this.tree[i] ?? 0;
    return sum;
  }
}

/**
 * The changes some `min` can still show: a change of value v appears for
 * min ≤ v only while fewer than FEED_MAX_ENTRIES newer changes of the region
 * are at or above min, so once that many newer ones are at or above v, no
 * feed of the region (nor of the platform, which adds other regions' entries
 * in front) lists it again.
 */
export function reachableChanges<T extends { readonly value: number }>(changes: readonly T[]): T[] {
  const newer = new ValueTally();
  const kept: T[] = [];
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i];
    if (change === undefined) continue;
    if (newer.atLeast(change.value) < FEED_MAX_ENTRIES) kept.push(change);
    newer.add(change.value);
  }
  return kept.reverse();
}

function newTrail(): RegionTrail {
  return { survivor: 0, killer: 0, lastAt: Number.NEGATIVE_INFINITY, lastEventJson: null, changes: [], prunedLength: 0 };
}

/** `tag:` URIs (RFC 4151) need a date; the thing's own day keeps each id the same forever. */
function tagDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

export class Feeds {
  private readonly views = new Map<Platform, PlatformView>();
  private readonly reading = new Map<Platform, Promise<PlatformView>>();
  private readonly host: string;
  private readonly sliceQuery;
  private readonly newerQuery;
  private readonly maxIdQuery;

  constructor(
    private readonly db: HubDb,
    private readonly catalogue: Catalogue,
    private readonly origin: string,
    private readonly live: LiveStore,
    private readonly book: EventBook,
    private readonly now: () => number,
  ) {
    this.host = new URL(origin).host.replace(/:\d+$/, "");
    const columns = "id, region, survivor, killer, measured_at, active_event";
    this.sliceQuery = db.sqlite.query<FeedRow, [string, string, number, number, number, number]>(
      `SELECT ${columns} FROM readings WHERE platform = ?1 AND region = ?2 AND id <= ?3 AND (measured_at, id) > (?4, ?5) ORDER BY measured_at ASC, id ASC LIMIT ?6`,
    );
    this.newerQuery = db.sqlite.query<FeedRow, [string, number, number]>(
      `SELECT ${columns} FROM readings WHERE id > ?2 AND platform = ?1 ORDER BY measured_at ASC, id ASC LIMIT ?3`,
    );
    this.maxIdQuery = db.sqlite.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM readings");
  }

  /** The feed of a platform or one of its regions, listing changes that reach `min`. */
  async atom(platform: Platform, region: string | null, min: number): Promise<FeedAnswer> {
    const { view, built } = await this.upToDate(platform);
    return { body: this.render(view, platform, region, min), built };
  }

  /** The platform's view at its current revision: read in full the first time and after deletions, else brought forward. */
  private async upToDate(platform: Platform): Promise<{ view: PlatformView; built: boolean }> {
    let built = false;
    for (;;) {
      const pending = this.reading.get(platform);
      if (pending) {
        await pending;
        continue;
      }
      const view = this.views.get(platform);
      if (view === undefined || view.generation !== this.live.storedGeneration) {
        built = true;
        await this.readInFull(platform);
        continue;
      }
      const revision = this.live.current(platform).revision;
      if (view.revision !== revision) {
        built = true;
        if (!this.bringForward(view, platform)) {
          this.views.delete(platform);
          continue;
        }
        view.revision = revision;
      }
      return { view, built };
    }
  }

  /** One full read per platform at a time; those who ask meanwhile wait for it. */
  private readInFull(platform: Platform): Promise<PlatformView> {
    // The entry is removed in a later tick, after it is set, even when the read finishes without waiting.
    const work = this.readAll(platform).finally(() => this.reading.delete(platform));
    this.reading.set(platform, work);
    return work;
  }

  private async readAll(platform: Platform): Promise<PlatformView> {
    const revision = this.live.current(platform).revision;
    const view: PlatformView = { generation: this.live.storedGeneration, revision, cursor: this.maxIdQuery.get()?.id ?? 0, regions: new Map(), seen: new Map() };
    const since = oldestVisibleReading(this.db);
    let sinceYield = 0;
    for (const { id: region } of this.catalogue.regions) {
      const trail = newTrail();
      let after = { at: since, id: 0 };
      for (;;) {
        const rows = this.sliceQuery.all(platform, region, view.cursor, after.at, after.id, SCAN_SLICE);
        for (const row of rows) this.take(view, trail, row);
        const last = rows.at(-1);
        sinceYield += rows.length;
        if (sinceYield >= SCAN_SLICE) {
          sinceYield = 0;
          await yieldToLoop();
        }
        if (last === undefined || rows.length < SCAN_SLICE) break;
        after = { at: last.measured_at, id: last.id };
      }
      trail.changes = reachableChanges(trail.changes);
      trail.prunedLength = trail.changes.length;
      view.regions.set(region, trail);
    }
    this.views.set(platform, view);
    return view;
  }

  /**
   * Takes in the readings stored since the view was last brought forward.
   * False when they cannot simply follow it (one measured before the newest
   * already taken in its region, or too many at once): then it is read again in full.
   */
  private bringForward(view: PlatformView, platform: Platform): boolean {
    const rows = this.newerQuery.all(platform, view.cursor, SCAN_SLICE + 1);
    if (rows.length > SCAN_SLICE) return false;
    for (const row of rows) {
      view.cursor = Math.max(view.cursor, row.id);
      const trail = view.regions.get(row.region);
      if (trail === undefined) continue;
      if (row.measured_at < trail.lastAt) return false;
      this.take(view, trail, row);
      if (trail.changes.length >= 2 * Math.max(trail.prunedLength, FEED_MAX_ENTRIES)) {
        trail.changes = reachableChanges(trail.changes);
        trail.prunedLength = trail.changes.length;
      }
    }
    return true;
  }

  /** A role gets a change when its bonus differs from the region's reading before. */
  private take(view: PlatformView, trail: RegionTrail, row: FeedRow): void {
    for (const role of ROLES) {
      const value = row[role];
      if (value !== trail[role] && value >= 0) trail.changes.push({ at: row.measured_at, readingId: row.id, role, value });
      trail[role] = value;
    }
    if (row.active_event !== null && row.active_event !== trail.lastEventJson) {
      const event = storedEvent(row.active_event);
      if (event && !view.seen.has(eventIdentity(event))) view.seen.set(eventIdentity(event), event);
    }
    trail.lastEventJson = row.active_event;
    trail.lastAt = row.measured_at;
  }

  /** Events of the platform that have started, once each: the schedule (admins, agents) and what readings carried, less the hidden. */
  private startedEvents(view: PlatformView, platform: Platform, now: number, since: number): ReportedEvent[] {
    const found = new Map<string, ReportedEvent>();
    for (const candidate of this.live.visibleEvents(platform)) {
      if (candidate.platforms !== null && !candidate.platforms.includes(platform)) continue;
      const identity = eventIdentity(candidate.event);
      if (!found.has(identity)) found.set(identity, candidate.event);
    }
    const hidden = this.book.hidden();
    for (const [identity, event] of view.seen) if (!hidden.has(identity) && !found.has(identity)) found.set(identity, event);
    return [...found.values()].filter((event) => event.startsAt <= now && event.endsAt > since);
  }

  private render(view: PlatformView, platform: Platform, region: string | null, min: number): string {
    const now = this.now();
    const since = oldestVisibleReading(this.db);
    const regionPage = (id: string) => `${this.origin}/${platform}/${id}`;
    const page = region === null ? `${this.origin}/${platform}` : regionPage(region);
    const picked: Picked[] = [];
    for (const [id, trail] of view.regions) {
      if (region !== null && id !== region) continue;
      const place = this.catalogue.region(id)?.name ?? id;
      let taken = 0;
      for (let i = trail.changes.length - 1; i >= 0 && taken < FEED_MAX_ENTRIES; i--) {
        const change = trail.changes[i];
        if (change === undefined || change.at < since) break;
        if (change.value < min) continue;
        taken++;
        picked.push({
          at: change.at,
          order: change.readingId * 2 + (change.role === "survivor" ? 1 : 0),
          xml: () =>
            entryXml(
              `tag:${this.host},${tagDay(change.at)}:${platform}/${id}/reading/${change.readingId}/${change.role}`,
              say("share.now", { place, platform: PLATFORM_LABELS[platform], role: roleName(change.role), bonus: bonusText(change.value) }),
              change.at,
              regionPage(id),
            ),
        });
      }
    }
    for (const event of this.startedEvents(view, platform, now, since)) {
      picked.push({
        at: event.startsAt,
        order: Number.MAX_SAFE_INTEGER,
        xml: () =>
          entryXml(
            `tag:${this.host},${tagDay(event.startsAt)}:${platform}/event/${encodeURIComponent(event.key)}/${event.startsAt}`,
            `${PLATFORM_LABELS[platform]}: ${say("share.eventStarts", { label: event.label, multiplier: event.multiplier })}`,
            event.startsAt,
            page,
          ),
      });
    }
    const entries = picked.sort((a, b) => b.at - a.at || b.order - a.order).slice(0, FEED_MAX_ENTRIES);

    const path = region === null ? `/feeds/${platform}.atom` : `/feeds/${platform}/${region}.atom`;
    const self = `${this.origin}${path}${min === FEED_DEFAULT_MIN ? "" : `?min=${min}`}`;
    const place = region === null ? null : (this.catalogue.region(region)?.name ?? region);
    const title =
      place === null
        ? say("share.feedPlatform", { platform: PLATFORM_LABELS[platform], min: bonusText(min) })
        : say("share.feedRegion", { place, platform: PLATFORM_LABELS[platform], min: bonusText(min) });
    const lines = [
      `<?xml version="1.0" encoding="utf-8"?>`,
      `<feed xmlns="http://www.w3.org/2005/Atom">`,
      `<id>tag:${this.host},2026:feed${escapeMarkup(path)}?min=${min}</id>`,
      `<title>${escapeMarkup(title)}</title>`,
      `<updated>${new Date(entries[0]?.at ?? now).toISOString()}</updated>`,
      `<author><name>${escapeMarkup(SITE_NAME)}</name><uri>${escapeMarkup(this.origin)}/</uri></author>`,
      `<link rel="self" type="application/atom+xml" href="${escapeMarkup(self)}"/>`,
      `<link rel="alternate" type="text/html" href="${escapeMarkup(page)}"/>`,
      ...entries.map((entry) => entry.xml()),
      `</feed>`,
    ];
    return `${lines.join("\n")}\n`;
  }
}

function entryXml(id: string, title: string, at: number, link: string): string {
  return (
    `<entry><id>${escapeMarkup(id)}</id><title>${escapeMarkup(title)}</title><updated>${new Date(at).toISOString()}</updated>` +
    `<link rel="alternate" type="text/html" href="${escapeMarkup(link)}"/></entry>`
  );
}
