/**
 * Forecasts per (platform, region), computed on demand and kept until a new
 * hour begins (the first forecast hour moves) or a new reading arrives for
 * that region.
 */
import type { ReadingQueries } from "../db/readings.ts";
import type { Catalogue } from "../domain/catalogue.ts";
import { buildForecast, firstForecastHour, HORIZON_HOURS, type ForecastContent } from "../domain/forecast.ts";
import { DAY_MS, HOUR_MS, ZoneClock } from "../domain/timezone.ts";
import { slotKey } from "./agents.ts";

export interface ForecastBody extends ForecastContent {
  readonly platform: string;
  readonly region: string;
  readonly generatedAt: number;
  readonly horizonHours: number;
}

interface Cached {
  readonly firstHour: number;
  readonly body: ForecastBody;
}

export class Forecasts {
  private readonly cache = new Map<string, Cached>();
  private readonly clocks = new Map<string, ZoneClock>();
  private readonly windowMs: number;

  constructor(
    private readonly readings: ReadingQueries,
    private readonly catalogue: Catalogue,
    windowDays: number,
    private readonly now: () => number,
  ) {
    this.windowMs = windowDays * DAY_MS;
  }

  /** The forecast of a catalogue region, from the cache while it is still current. */
  get(platform: string, region: string): ForecastBody {
    const now = this.now();
    const key = slotKey(platform, region);
    const cached = this.cache.get(key);
    if (cached && cached.firstHour === firstForecastHour(now)) return cached.body;
    const body = this.compute(platform, region, now);
    this.cache.set(key, { firstHour: firstForecastHour(now), body });
    return body;
  }

  /** Forgets one region's forecast (a reading arrived), or all of them (readings were removed). */
  invalidate(platform?: string, region?: string): void {
    if (platform === undefined || region === undefined) this.cache.clear();
    else this.cache.delete(slotKey(platform, region));
  }

  private clockFor(region: string): ZoneClock {
    const tz = this.catalogue.region(region)?.tz ?? "UTC";
    let clock = this.clocks.get(tz);
    if (!clock) {
      clock = new ZoneClock(tz);
      this.clocks.set(tz, clock);
    }
    return clock;
  }

  private compute(platform: string, region: string, now: number): ForecastBody {
    const series = this.readings.series(platform, region, now - HORIZON_HOURS * HOUR_MS - this.windowMs, now);
    const content = buildForecast(series, now, { windowMs: this.windowMs, clock: this.clockFor(region) });
    return { platform, region, generatedAt: now, horizonHours: HORIZON_HOURS, ...content };
  }
}
