/**
 * When scheduled backups run (SPEC §25): `daily HH:MM` in the process's time
 * zone, or `every Nh`. Pure: the next run is computed from a time and a zone.
 */
import { intlOffsetMs, wallClock } from "../domain/timezone.ts";

export type BackupSchedule =
  | { readonly kind: "off" }
  | { readonly kind: "daily"; readonly hour: number; readonly minute: number }
  | { readonly kind: "every"; readonly hours: number };

export const BACKUP_SCHEDULE_ALLOWED = "off, daily HH:MM (in TZ) or every Nh (N from 1 to 168)";

/** The schedule a setting's text names, or null when it names none. */
export function parseBackupSchedule(text: string): BackupSchedule | null {
  const raw = text.trim().toLowerCase();
  if (raw === "" || raw === "off") return { kind: "off" };
  const daily = /^daily\s+(\d{1,2}):(\d{2})$/.exec(raw);
  if (daily) {
    const hour = Number(daily[1]);
    const minute = Number(daily[2]);
    if (hour > 23 || minute > 59) return null;
    return { kind: "daily", hour, minute };
  }
  const every = /^every\s+(\d{1,3})\s*h$/.exec(raw);
  if (every) {
    const hours = Number(every[1]);
    if (hours < 1 || hours > 168) return null;
    return { kind: "every", hours };
  }
  return null;
}

export function describeBackupSchedule(schedule: BackupSchedule): string {
  if (schedule.kind === "off") return "off";
  if (schedule.kind === "every") return `every ${schedule.hours}h`;
  return `daily ${String(schedule.hour).padStart(2, "0")}:${String(schedule.minute).padStart(2, "0")}`;
}

/** Seconds between two scheduled runs (a day for `daily`), 0 when off: what a monitor allows before it misses a backup. */
export function backupPeriodSeconds(schedule: BackupSchedule): number {
  if (schedule.kind === "off") return 0;
  return schedule.kind === "every" ? schedule.hours * 3600 : 86_400;
}

/** The instant at which the zone's clock shows the given date and time (the later one after a gap, the first of a repeat). */
function instantOf(year: number, month: number, day: number, hour: number, minute: number, timeZone: string | undefined): number {
  const asUtc = Date.UTC(year, month - 1, day, hour, minute);
  const guess = asUtc - intlOffsetMs(timeZone, asUtc);
  return asUtc - intlOffsetMs(timeZone, guess);
}

/**
 * The first run strictly after `now`. `every Nh` counts from `last` (the
 * last run's start, or now when there was none, so a restart does not start
 * a backup at once); `daily` is the next HH:MM on the zone's clock.
 */
export function nextBackupAt(schedule: BackupSchedule, now: number, last: number | null, timeZone?: string): number | null {
  if (schedule.kind === "off") return null;
  if (schedule.kind === "every") {
    const period = schedule.hours * 3_600_000;
    const from = last ?? now;
    return Math.max(from + period, now + 1000);
  }
  const today = wallClock(timeZone, now);
  for (let days = 0; days < 3; days += 1) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
    const at = instantOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), schedule.hour, schedule.minute, timeZone);
    if (at > now) return at;
  }
  return now + 86_400_000;
}
