/** What the board shows of a payload: filtered, sorted and paged as the URL says. Pure, so it is tested without a browser. */
import type { ActiveEvent, IncentivesPayload, RegionIncentive } from "./api/client.ts";

/**
 * Cards in the board's first render: more than a wide screen's first view holds. The rest follow right after that
 * render is painted, so the cards below the fold do not hold up the first populated paint.
 */
export const FIRST_CARDS = 12;

export const SHOW = ["all", "survivor", "killer", "bonus"] as const;
export type Show = (typeof SHOW)[number];
export const SORTS = ["name", "bonus"] as const;
export type Sort = (typeof SORTS)[number];

export interface BoardQuery {
  readonly q: string;
  readonly show: Show;
  readonly sort: Sort;
  readonly page: number;
}

export function parseBoardQuery(search: string): BoardQuery {
  const params = new URLSearchParams(search);
  const show = params.get("show");
  const sort = params.get("sort");
  const page = Number(params.get("page") ?? "1");
  return {
    q: (params.get("q") ?? "").slice(0, 100),
    show: (SHOW as readonly string[]).includes(show ?? "") ? (show as Show) : "all",
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as Sort) : "name",
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The query as URL parameters, leaving defaults out so links stay short. */
export function boardSearch(query: BoardQuery): string {
  const params = new URLSearchParams();
  if (query.q !== "") params.set("q", query.q);
  if (query.show !== "all") params.set("show", query.show);
  if (query.sort !== "name") params.set("sort", query.sort);
  if (query.page > 1) params.set("page", String(query.page));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

/** The role whose bonus is the headline (the bigger one), or null when neither has a bonus or there is no real reading. */
export function headlineRole(region: RegionIncentive): "survivor" | "killer" | null {
  if (!region.isReal || (region.survivor === 0 && region.killer === 0)) return null;
  return region.killer > region.survivor ? "killer" : "survivor";
}

export function bestBonus(region: RegionIncentive): number {
  return region.isReal ? Math.max(region.survivor, region.killer) : 0;
}

/** 0: a fresh reading, 1: a stale one, 2: none yet. A region without a reading is never called stale. */
export function freshnessRank(region: RegionIncentive): 0 | 1 | 2 {
  if (!region.isReal) return 2;
  return region.stale ? 1 : 0;
}

export function isStaleReading(region: RegionIncentive): boolean {
  return freshnessRank(region) === 1;
}

/**
 * What a queue bonus pays during a bloodpoint event (SPEC §17.1): the event
 * adds its own share on top, 1 + bonus/100 + (multiplier − 1), so +75 % in a
 * ×2 event pays ×2.75.
 */
export function totalMultiplier(bonus: number, eventMultiplier: number | null): number {
  return 1 + bonus / 100 + (eventMultiplier === null ? 0 : eventMultiplier - 1);
}

function matches(region: RegionIncentive, query: BoardQuery): boolean {
  const needle = query.q.trim().replace(/\s+/g, " ").toLowerCase();
  if (needle !== "" && !region.displayName.toLowerCase().includes(needle) && !region.region.toLowerCase().includes(needle)) return false;
  switch (query.show) {
    case "all":
      return true;
    case "survivor":
      return region.isReal && region.survivor > 0;
    case "killer":
      return region.isReal && region.killer > 0;
    case "bonus":
      return bestBonus(region) > 0;
  }
}

export interface BoardView {
  /** Every region the query keeps, in the board's order, across all pages. */
  readonly matching: readonly RegionIncentive[];
  readonly items: readonly RegionIncentive[];
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

let collator: Intl.Collator | null = null;

/** The collator the board orders names with, made once (main.tsx makes it before the first render, with the formatters). */
export function nameCollator(): Intl.Collator {
  collator ??= new Intl.Collator();
  return collator;
}

/** Names in the browser's collation order, as String#localeCompare orders them, with one collator made once rather than one per comparison. */
function byName(a: RegionIncentive, b: RegionIncentive): number {
  return nameCollator().compare(a.displayName, b.displayName);
}

export function boardView(regions: readonly RegionIncentive[], query: BoardQuery, pageSize: number): BoardView {
  const kept = regions.filter((r) => matches(r, query));
  // Freshness ranks first under every sort: an old big bonus must not outrank a current smaller one.
  const sorted =
    query.sort === "bonus"
      ? kept.sort((a, b) => freshnessRank(a) - freshnessRank(b) || bestBonus(b) - bestBonus(a) || byName(a, b))
      : kept.sort((a, b) => freshnessRank(a) - freshnessRank(b) || byName(a, b));
  const size = Math.max(1, pageSize);
  const pages = Math.max(1, Math.ceil(sorted.length / size));
  const page = Math.min(query.page, pages);
  return { matching: sorted, items: sorted.slice((page - 1) * size, page * size), total: sorted.length, page, pages };
}

/**
 * What the board lays out around the cards: it changes when the regions shown,
 * their order, the page or the banners change, and not when a region's values
 * change in place, so a stream message that only moves values leaves the board
 * as it is and only the changed regions' cards render.
 */
export interface BoardShape {
  readonly status: IncentivesPayload["status"];
  readonly event: ActiveEvent | null;
  /** The next event to start on the platform (SPEC §17.1's countdown), from the payload, so the stream brings a new one. */
  readonly next: ActiveEvent | null;
  /** Regions in the payload (all pages, before filtering). */
  readonly regionCount: number;
  /** This page's regions in the board's order, the viewer's region pinned first. */
  readonly ids: readonly string[];
  readonly yours: string | null;
  readonly page: number;
  readonly pages: number;
}

export function boardShape(payload: IncentivesPayload, query: BoardQuery, pageSize: number, yours: string | null): BoardShape {
  const view = boardView(payload.regions, query, pageSize);
  const pinned = view.page === 1 ? view.matching.find((r) => r.region === yours) : undefined;
  const items = pinned ? [pinned, ...view.items.filter((r) => r.region !== pinned.region)] : view.items;
  return {
    status: payload.status,
    event: payload.activeEvent,
    next: payload.nextEvent,
    regionCount: payload.regions.length,
    ids: items.map((r) => r.region),
    yours,
    page: view.page,
    pages: view.pages,
  };
}

/** The previous shape when the next one lays out the same board (so nothing around the cards renders again), else the next. */
export function keepShape(previous: BoardShape | null, next: BoardShape): BoardShape {
  if (previous === null) return next;
  const same =
    previous.status === next.status &&
    sameEvent(previous.event, next.event) &&
    sameEvent(previous.next, next.next) &&
    previous.regionCount === next.regionCount &&
    previous.yours === next.yours &&
    previous.page === next.page &&
    previous.pages === next.pages &&
    previous.ids.length === next.ids.length &&
    previous.ids.every((id, i) => next.ids[i] === id);
  return same ? previous : next;
}

function sameEvent(a: ActiveEvent | null, b: ActiveEvent | null): boolean {
  return a === null || b === null ? a === b : sameFields(a, b);
}

/** Two flat objects of the API (a region, an event) with equal values in every field. */
function sameFields<T extends object>(a: T, b: T): boolean {
  const keys = Object.keys(a) as (keyof T)[];
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

/**
 * The regions of a new payload, each one equal in value to the previous
 * payload's entry for its region replaced by that entry, so those regions'
 * signals stay quiet and their cards do not render again (a signal set to the
 * object it holds notifies no one). Changes the array in place and returns it.
 */
export function keepUnchanged(previous: readonly RegionIncentive[], next: RegionIncentive[]): RegionIncentive[] {
  const before = new Map(previous.map((r) => [r.region, r]));
  next.forEach((region, i) => {
    const old = before.get(region.region);
    if (old && sameFields(old, region)) next[i] = old;
  });
  return next;
}
