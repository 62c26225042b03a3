/**
 * The IncentivesPayload of one platform, derived from the live values, the
 * agents covering it and the clock. Pure: the live store calls it whenever
 * something it depends on may have changed and keeps the result if the
 * content differs.
 */
import type { Catalogue } from "./catalogue.ts";
import type { PublicEvent } from "./events.ts";
import type { AcceptedReading } from "./readings.ts";

/** What a region's live value keeps of the reading that set it. */
export type LiveValue = Pick<AcceptedReading, "survivor" | "killer" | "ratio" | "measuredAt" | "version" | "category"> & {
  /** When the stored readings first showed the current survivor and killer values without a change since (epoch ms). */
  readonly since: number;
};

export interface RegionIncentive {
  readonly region: string;
  readonly displayName: string;
  readonly flag: string;
  readonly survivor: number;
  readonly killer: number;
  readonly ratio: number;
  readonly isReal: boolean;
  readonly stale: boolean;
  readonly lastUpdated: string | null;
  readonly since: string | null;
}

/** error: no enabled agent; initializing: no reading yet; ok: at least one fresh reading; degraded: all readings stale. */
export const PLATFORM_STATUSES = ["error", "initializing", "ok", "degraded"] as const;
export type PlatformStatus = (typeof PLATFORM_STATUSES)[number];

export const STATUS_REASONS = {
  error: "no agents are configured for this platform",
  degraded: "agents have not reported fresh data recently",
} as const;

/** Everything of the payload except generatedAt, which never counts as a change. */
export interface IncentivesContent {
  readonly platform: string;
  readonly status: PlatformStatus;
  readonly statusReason: string | null;
  readonly updatedAt: string | null;
  readonly version: string | null;
  readonly category: string | null;
  readonly activeEvent: PublicEvent | null;
  /** The next event to start on this platform, or null. */
  readonly nextEvent: PublicEvent | null;
  readonly regions: readonly RegionIncentive[];
}

export interface IncentivesInput {
  readonly platform: string;
  readonly catalogue: Catalogue;
  /** Live value per region id. */
  readonly live: ReadonlyMap<string, LiveValue>;
  /** Regions with at least one enabled agent on this platform. */
  readonly covered: ReadonlySet<string>;
  readonly staleAfterMs: number;
  readonly now: number;
  readonly activeEvent: PublicEvent | null;
  readonly nextEvent: PublicEvent | null;
}

export interface DerivedIncentives {
  readonly content: IncentivesContent;
  /** The next instant a region turns stale, or null if none will. */
  readonly staleAt: number | null;
}

export function isFresh(measuredAt: number, now: number, staleAfterMs: number): boolean {
  return now - measuredAt <= staleAfterMs;
}

export function deriveIncentives(input: IncentivesInput): DerivedIncentives {
  const { catalogue, live, covered, staleAfterMs, now } = input;
  const regions: RegionIncentive[] = [];
  let newest: LiveValue | null = null;
  let anyFresh = false;
  let staleAt: number | null = null;
  for (const region of catalogue.regions) {
    const value = live.get(region.id);
    if (!value && !covered.has(region.id)) continue;
    if (!value) {
      regions.push({ region: region.id, displayName: region.name, flag: region.flag, survivor: 0, killer: 0, ratio: 0, isReal: false, stale: true, lastUpdated: null, since: null });
      continue;
    }
    const fresh = isFresh(value.measuredAt, now, staleAfterMs);
    if (fresh) {
      anyFresh = true;
      const turnsStale = value.measuredAt + staleAfterMs + 1;
      if (staleAt === null || turnsStale < staleAt) staleAt = turnsStale;
    }
    if (!newest || value.measuredAt > newest.measuredAt) newest = value;
    regions.push({
      region: region.id,
      displayName: region.name,
      flag: region.flag,
      survivor: value.survivor,
      killer: value.killer,
      ratio: value.ratio,
      isReal: true,
      stale: !fresh,
      lastUpdated: new Date(value.measuredAt).toISOString(),
      since: new Date(value.since).toISOString(),
    });
  }
  let status: PlatformStatus;
  if (covered.size === 0) status = "error";
  else if (!newest) status = "initializing";
  else status = anyFresh ? "ok" : "degraded";
  const statusReason = status === "error" ? STATUS_REASONS.error : status === "degraded" ? STATUS_REASONS.degraded : null;
  return {
    content: {
      platform: input.platform,
      status,
      statusReason,
      updatedAt: newest ? new Date(newest.measuredAt).toISOString() : null,
      version: newest?.version ?? null,
      category: newest?.category ?? null,
      activeEvent: input.activeEvent,
      nextEvent: input.nextEvent,
      regions,
    },
    staleAt,
  };
}
