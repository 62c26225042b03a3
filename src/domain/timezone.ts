/**
 * Local wall-clock time in an IANA time zone, through Intl. The forecast and
 * the simulator both think in a region's local hours and days, so that a
 * rhythm tied to people's evenings survives daylight-saving changes.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface LocalHour {
  /** Hours since 1970-01-01T00:00 local time: one key per local (date, hour). */
  readonly key: number;
  /** 0 = Sunday … 6 = Saturday. */
  readonly dayOfWeek: number;
  /** 0–23. */
  readonly hour: number;
}

/** Day of week (0 = Sunday) of a local day counted from 1970-01-01, which was a Thursday. */
export function dayOfWeekOf(localDay: number): number {
  return (((localDay + 4) % 7) + 7) % 7;
}

export function isWeekend(dayOfWeek: number): boolean {
  return dayOfWeek === 0 || dayOfWeek === 6;
}

/** Splits a local-hour key into its day of week and hour of day. */
export function describeLocalHour(key: number): LocalHour {
  const day = Math.floor(key / 24);
  return { key, dayOfWeek: dayOfWeekOf(day), hour: key - day * 24 };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A zone's clock reader; undefined is the machine's own zone (TZ). */
function formatterFor(tz: string | undefined): Intl.DateTimeFormat {
  const key = tz ?? "";
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(key, formatter);
  }
  return formatter;
}

export interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** What the zone's clock shows at an instant (month 1–12); undefined is the machine's own zone. */
export function wallClock(tz: string | undefined, at: number): WallClock {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(tz).formatToParts(at)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  return { year: fields.year ?? 1970, month: fields.month ?? 1, day: fields.day ?? 1, hour: fields.hour ?? 0, minute: fields.minute ?? 0, second: fields.second ?? 0 };
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich), asked of Intl. */
export function intlOffsetMs(tz: string | undefined, at: number): number {
  const w = wallClock(tz, at);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(at / 1000) * 1000;
}

/**
 * Offsets of one zone, remembered per UTC hour. Intl is slow next to the
 * arithmetic around it, and zones change offset at most once in an hour, so
 * an hour whose two ends agree has one offset throughout; only the rare hour
 * that holds a transition is asked about each instant.
 */
export class ZoneClock {
  /** Enough for years of hours; a long-running hub starts over rather than growing without end. */
  static readonly MEMORY_HOURS = 200_000;
  private readonly hours = new Map<number, number | null>();
  /** Callers mostly walk time forwards, so the last hour asked about is usually asked about again. */
  private lastHour = Number.NaN;
  private lastSteady: number | null = null;

  constructor(readonly tz: string) {
    formatterFor(tz);
  }

  offsetMs(at: number): number {
    const hour = Math.floor(at / HOUR_MS);
    if (hour === this.lastHour && this.lastSteady !== null) return this.lastSteady;
    let steady = this.hours.get(hour);
    if (steady === undefined) {
      const start = intlOffsetMs(this.tz, hour * HOUR_MS);
      steady = start === intlOffsetMs(this.tz, (hour + 1) * HOUR_MS - 1) ? start : null;
      if (this.hours.size >= ZoneClock.MEMORY_HOURS) this.hours.clear();
      this.hours.set(hour, steady);
    }
    this.lastHour = hour;
    this.lastSteady = steady;
    return steady ?? intlOffsetMs(this.tz, at);
  }

  /** The local-hour key of an instant (see LocalHour.key). */
  localHourKey(at: number): number {
    return Math.floor((at + this.offsetMs(at)) / HOUR_MS);
  }

  localHour(at: number): LocalHour {
    return describeLocalHour(this.localHourKey(at));
  }

  /** Local time of day in fractional hours (0 ≤ h < 24). */
  localHourOfDay(at: number): number {
    const local = at + this.offsetMs(at);
    return (local - Math.floor(local / DAY_MS) * DAY_MS) / HOUR_MS;
  }
}
