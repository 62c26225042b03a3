/**
 * Atom 1.0 feeds of a platform's or a region's bonus changes and event starts
 * (SPEC §19), built from the stored readings so a feed reader that polls
 * hourly still sees every change, not only the live value.
 */
import type { HubDb } from "../db/open.ts";
import { oldestVisibleReading } from "../db/readings.ts";
import { PLATFORM_LABELS, type Catalogue, type Platform } from "../domain/catalogue.ts";
import { storedEvent } from "../live/store.ts";
import { escapeMarkup } from "./escape.ts";
import { bonusText, roleName, say, SITE_NAME, type Role } from "./words.ts";

export const FEED_MAX_ENTRIES = 50;
export const FEED_DEFAULT_MIN = 50;
export const FEED_MAX_MIN = 1000;

interface FeedRow {
  id: number;
  region: string;
  survivor: number;
  killer: number;
  measured_at: number;
  active_event: string | null;
}

export interface FeedEntry {
  readonly id: string;
  readonly region: string;
  readonly title: string;
  readonly at: number;
}

interface RegionTrail {
  survivor: number;
  killer: number;
  eventKey: string | null;
}

const ROLES: readonly Role[] = ["killer", "survivor"];

/** `tag:` URIs (RFC 4151) need a date; the reading's own day keeps each id the same forever. */
function tagId(host: string, row: FeedRow, platform: Platform, what: string): string {
  const day = new Date(row.measured_at).toISOString().slice(0, 10);
  return `tag:${host},${day}:${platform}/${row.region}/reading/${row.id}/${what}`;
}

export class Feeds {
  /** The last feed per (platform, region, min) with the payload revision it was built at: readings only arrive with a new revision. */
  private readonly built = new Map<string, { revision: number; body: string }>();
  private readonly platformQuery;
  private readonly regionQuery;

  constructor(
    private readonly db: HubDb,
    private readonly catalogue: Catalogue,
    private readonly origin: string,
  ) {
    const columns = "id, region, survivor, killer, measured_at, active_event";
    this.platformQuery = db.sqlite.query<FeedRow, [string, number]>(
      `SELECT ${columns} FROM readings WHERE platform = ? AND measured_at >= ? ORDER BY measured_at ASC, id ASC`,
    );
    this.regionQuery = db.sqlite.query<FeedRow, [string, string, number]>(
      `SELECT ${columns} FROM readings WHERE platform = ? AND region = ? AND measured_at >= ? ORDER BY measured_at ASC, id ASC`,
    );
  }

  /**
   * The newest entries first. A role gets an entry when its bonus first
   * reaches `min`, and again each time it changes while at or above `min`;
   * an event gets one when a region's readings first carry it.
   */
  entries(platform: Platform, region: string | null, min: number): FeedEntry[] {
    const host = new URL(this.origin).host.replace(/:\d+$/, "");
    const since = oldestVisibleReading(this.db);
    const rows = region === null ? this.platformQuery.all(platform, since) : this.regionQuery.all(platform, region, since);
    const trails = new Map<string, RegionTrail>();
    const found: FeedEntry[] = [];
    const add = (entry: FeedEntry) => {
      found.push(entry);
      if (found.length > FEED_MAX_ENTRIES * 2) found.splice(0, found.length - FEED_MAX_ENTRIES);
    };
    for (const row of rows) {
      const place = this.catalogue.region(row.region)?.name ?? row.region;
      const trail = trails.get(row.region) ?? { survivor: 0, killer: 0, eventKey: null };
      for (const role of ROLES) {
        const value = row[role];
        if (value >= min && value !== trail[role]) {
          const title = say("share.now", { place, platform: PLATFORM_LABELS[platform], role: roleName(role), bonus: bonusText(value) });
          add({ id: tagId(host, row, platform, role), region: row.region, title, at: row.measured_at });
        }
        trail[role] = value;
      }
      const event = storedEvent(row.active_event);
      if (event && event.key !== trail.eventKey) {
        const title = `${place}: ${say("share.eventStarts", { label: event.label, multiplier: event.multiplier })}`;
        add({ id: tagId(host, row, platform, `event/${event.key}`), region: row.region, title, at: row.measured_at });
      }
      trail.eventKey = event?.key ?? null;
      trails.set(row.region, trail);
    }
    return found.slice(-FEED_MAX_ENTRIES).reverse();
  }

  /** The feed as of `revision`, built again only when the revision moved. */
  atom(platform: Platform, region: string | null, min: number, now: number, revision: number): string {
    const key = `${platform}/${region ?? ""}/${min}`;
    const cached = this.built.get(key);
    if (cached && cached.revision === revision) return cached.body;
    // Bounded by the catalogue: platforms × (regions + 1) × the mins asked for, so a crawler trying every min empties it now and then.
    if (this.built.size >= 1024) this.built.clear();
    const body = this.build(platform, region, min, now);
    this.built.set(key, { revision, body });
    return body;
  }

  private build(platform: Platform, region: string | null, min: number, now: number): string {
    const entries = this.entries(platform, region, min);
    const path = region === null ? `/feeds/${platform}.atom` : `/feeds/${platform}/${region}.atom`;
    const self = `${this.origin}${path}${min === FEED_DEFAULT_MIN ? "" : `?min=${min}`}`;
    const page = `${this.origin}/${platform}${region === null ? "" : `/${region}`}`;
    const place = region === null ? null : (this.catalogue.region(region)?.name ?? region);
    const title =
      place === null
        ? say("share.feedPlatform", { platform: PLATFORM_LABELS[platform], min: bonusText(min) })
        : say("share.feedRegion", { place, platform: PLATFORM_LABELS[platform], min: bonusText(min) });
    const updated = new Date(entries[0]?.at ?? now).toISOString();
    const host = new URL(this.origin).host.replace(/:\d+$/, "");
    const lines = [
      `<?xml version="1.0" encoding="utf-8"?>`,
      `<feed xmlns="http://www.w3.org/2005/Atom">`,
      `<id>tag:${host},2026:feed${escapeMarkup(path)}?min=${min}</id>`,
      `<title>${escapeMarkup(title)}</title>`,
      `<updated>${updated}</updated>`,
      `<author><name>${escapeMarkup(SITE_NAME)}</name><uri>${escapeMarkup(this.origin)}/</uri></author>`,
      `<link rel="self" type="application/atom+xml" href="${escapeMarkup(self)}"/>`,
      `<link rel="alternate" type="text/html" href="${escapeMarkup(page)}"/>`,
    ];
    for (const entry of entries) {
      const at = new Date(entry.at).toISOString();
      lines.push(
        `<entry><id>${escapeMarkup(entry.id)}</id><title>${escapeMarkup(entry.title)}</title><updated>${at}</updated>` +
          `<link rel="alternate" type="text/html" href="${escapeMarkup(`${this.origin}/${platform}/${entry.region}`)}"/></entry>`,
      );
    }
    lines.push(`</feed>`);
    return `${lines.join("\n")}\n`;
  }
}
