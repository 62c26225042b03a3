/**
 * What a push says, in the subscriber's language, from the web app's own
 * catalogues (never a second copy of the words): the region and platform,
 * the role and its bonus, and the page to open. `words` is the catalogue of
 * `lang` (share/languages.ts loads it), `lang` the tag for numbers and times.
 */
import { EVENT_ALERT_LIMIT } from "../alerts/event-rate.ts";
import { PLATFORM_LABELS, isPlatform, type Catalogue } from "../domain/catalogue.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { ForecastContent } from "../domain/forecast.ts";
import type { MessageKey, Messages } from "../web/i18n/messages/en.ts";
import type { PushMessage } from "./model.ts";
import type { AlertRole } from "../domain/alerts.ts";

function fill(words: Messages, key: MessageKey, values: Readonly<Record<string, string | number>>): string {
  const template = words[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

function number(lang: string, value: number, digits: number): string {
  try {
    return new Intl.NumberFormat(lang, { maximumFractionDigits: digits }).format(value);
  } catch {
    return value.toFixed(digits);
  }
}

const platformLabel = (platform: string): string => (isPlatform(platform) ? PLATFORM_LABELS[platform] : platform);

/** A short tag and Topic (RFC 8030 §5.4: at most 32 base64url characters) per platform, region and role. */
export function topicOf(platform: string, region: string, role: AlertRole | "event"): string {
  return new Bun.CryptoHasher("sha256").update(`${platform}\u0000${region}\u0000${role}`).digest("base64url").slice(0, 32);
}

/**
 * When the forecast expects the bonus to have fallen below half of what it is
 * now: the first forecast hour that does, or null when the forecast is unsure
 * (low confidence) or expects it to last past its horizon.
 */
export function bonusUntil(forecast: Pick<ForecastContent, "confidence" | "points">, role: AlertRole, bonus: number, now: number): number | null {
  if (forecast.confidence === "low") return null;
  const ahead = forecast.points.filter((point) => point.t > now);
  return ahead.find((point) => point[role] < bonus / 2)?.t ?? null;
}

function clock(lang: string, ms: number, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(lang, { hour: "numeric", minute: "2-digit", timeZone }).format(ms);
  } catch {
    return new Date(ms).toISOString().slice(11, 16);
  }
}

export function bonusMessage(
  lang: string,
  words: Messages,
  catalogue: Catalogue,
  origin: string,
  reading: { platform: string; region: string; role: AlertRole; bonus: number; until: number | null },
): PushMessage {
  const { platform, region, role, bonus, until } = reading;
  const entry = catalogue.region(region);
  const regionName = entry?.name ?? region;
  const roleName = words[`role.${role}`];
  const body = fill(words, "alerts.notifyBody", { role: roleName, multiplier: `×${number(lang, 1 + bonus / 100, 2)}` });
  return {
    title: fill(words, "alerts.notifyTitle", { region: `${regionName}, ${platformLabel(platform)}`, role: roleName, bonus: number(lang, bonus, 0) }),
    body: until === null ? body : `${body} ${fill(words, "push.until", { time: clock(lang, until, entry?.tz ?? "UTC") })}`,
    url: `${origin}/${platform}/${encodeURIComponent(region)}`,
    tag: topicOf(platform, region, role),
  };
}

/** An event's push; `heldBack`: how many event pushes to this subscription were held back before it (SPEC §16.3), said after the body. */
export function eventMessage(lang: string, words: Messages, origin: string, platform: string, event: PublicEvent, heldBack: number | null = null): PushMessage {
  const body = fill(words, "push.eventBody", { multiplier: number(lang, event.multiplier, 2) });
  return {
    title: fill(words, "push.eventTitle", { label: event.label, platform: platformLabel(platform) }),
    body: heldBack === null ? body : `${body} ${fill(words, "push.heldBack", { count: number(lang, heldBack, 0), limit: number(lang, EVENT_ALERT_LIMIT.count, 0) })}`,
    url: `${origin}/${platform}`,
    tag: topicOf(platform, "", "event"),
  };
}
