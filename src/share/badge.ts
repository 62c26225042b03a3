/**
 * Shields-style badges of one region's answer (SPEC §19): an SVG a site can
 * show with an <img>, and the shields.io endpoint JSON for sites that already
 * draw their badges with shields.io.
 */
import type { RegionIncentive } from "../domain/incentives.ts";
import { escapeMarkup } from "./escape.ts";
import { answerText, leadingRole, say } from "./words.ts";

export const MAX_LABEL_LENGTH = 40;

/** Hex colours without "#", as the shields.io endpoint schema takes them. */
export const BADGE_COLOURS = { killer: "b0271d", survivor: "0a5aa8", none: "555555", stale: "9f9f9f" } as const;

export interface BadgeContent {
  readonly label: string;
  readonly message: string;
  readonly color: string;
}

export function badgeContent(region: RegionIncentive, label: string | null): BadgeContent {
  const left = label ?? region.displayName;
  if (region.stale) return { label: left, message: say("share.stale"), color: BADGE_COLOURS.stale };
  const role = leadingRole(region);
  return { label: left, message: answerText(region), color: role === null ? BADGE_COLOURS.none : BADGE_COLOURS[role] };
}

/**
 * Widths are estimated, not measured: the badge names its fonts and lets the
 * viewer's browser draw them, like shields.io, so 7 px a character (11 px
 * Verdana runs 6–7.5) keeps every text inside its box, with room to spare.
 */
function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += (char.codePointAt(0) ?? 0) > 0x2e80 ? 11 : 7;
  return width;
}

export function badgeSvg(badge: BadgeContent): string {
  const leftWidth = textWidth(badge.label) + 12;
  const rightWidth = textWidth(badge.message) + 12;
  const width = leftWidth + rightWidth;
  const label = escapeMarkup(badge.label);
  const message = escapeMarkup(badge.message);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${label}: ${message}">` +
    `<title>${label}: ${message}</title>` +
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` +
    `<clipPath id="r"><rect width="${width}" height="20" rx="3" fill="#fff"/></clipPath>` +
    `<g clip-path="url(#r)"><rect width="${leftWidth}" height="20" fill="#555"/><rect x="${leftWidth}" width="${rightWidth}" height="20" fill="#${badge.color}"/>` +
    `<rect width="${width}" height="20" fill="url(#s)"/></g>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${leftWidth / 2}" y="14">${label}</text><text x="${leftWidth + rightWidth / 2}" y="14">${message}</text></g></svg>`
  );
}
