/**
 * The words that leave the hub for other sites (titles, descriptions, badges,
 * feeds), taken from the web app's own English catalogue so a crawler reads
 * what a visitor reads. English only: a crawler or a badge has no language to
 * ask for, and one language keeps each shared URL's text stable.
 */
import { PLATFORM_LABELS, type Platform } from "../domain/catalogue.ts";
import type { RegionIncentive } from "../domain/incentives.ts";
import { en, type MessageKey } from "../web/i18n/messages/en.ts";

export const SITE_NAME = en["app.title"];

export function say(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  return en[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export type Role = "survivor" | "killer";

/** "+75 %": the sign always, a space before the percent sign, as the spec writes bonuses. */
export function bonusText(percent: number): string {
  return `+${Math.round(percent)} %`;
}

/** The role with the larger bonus, or null when neither has one. Ties go to the killer, the rarer queue. */
export function leadingRole(region: Pick<RegionIncentive, "survivor" | "killer">): Role | null {
  if (region.killer <= 0 && region.survivor <= 0) return null;
  return region.killer >= region.survivor ? "killer" : "survivor";
}

export function roleName(role: Role): string {
  return en[role === "killer" ? "role.killer" : "role.survivor"];
}

/** "Killer +75 %", or "No bonus". */
export function answerText(region: Pick<RegionIncentive, "survivor" | "killer">): string {
  const role = leadingRole(region);
  if (role === null) return en["card.noBonus"];
  return `${roleName(role)} ${bonusText(region[role])}`;
}

/** "EU Central (Frankfurt), Steam: Killer +75 % now". */
export function regionSentence(platform: Platform, region: RegionIncentive): string {
  const place = region.displayName;
  const where = { place, platform: PLATFORM_LABELS[platform] };
  if (!region.isReal) return say("share.noReading", where);
  const role = leadingRole(region);
  if (role === null) return say("share.none", where);
  const sentence = say("share.now", { ...where, role: roleName(role), bonus: bonusText(region[role]) });
  return region.stale ? `${sentence} (${say("share.stale")})` : sentence;
}

export function platformSentence(platform: Platform): string {
  return say("share.board", { platform: PLATFORM_LABELS[platform] });
}
