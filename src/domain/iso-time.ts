/**
 * Strict ISO-8601 date-times with a zone. `Date.parse` rolls impossible
 * dates over (30 February becomes 2 March) or guesses at loose forms, so the
 * fields are checked one by one before the instant is computed.
 */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/** Epoch ms of a strict ISO-8601 date-time with a zone (`Z` or ±hh:mm), or null for anything else, impossible dates included. */
export function parseIsoTime(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const match = ISO_8601.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    const zoneHours = Number(digits.slice(0, 2));
    const zoneMinutes = Number(digits.slice(2));
    if (zoneHours > 23 || zoneMinutes > 59) return null;
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
  }
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const instant = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  // Date.UTC reads years 0–99 as 1900–1999; setting the year afterwards does not.
  instant.setUTCFullYear(year);
  return instant.getTime() - offsetMinutes * 60_000;
}
