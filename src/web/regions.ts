/**
 * The viewer's region: preselected from the browser's time zone through the
 * zones and areas each catalogue entry names (SPEC §4, §17.1; old IANA links
 * such as America/Buenos_Aires included), changeable, and remembered in the
 * browser. The catalogue is the pure domain module, bundled with the app.
 */
import { BUILT_IN_REGIONS, regionForZone } from "../domain/catalogue.ts";

const STORAGE_KEY = "hub.region";

const SHORT_NAMES = new Map(BUILT_IN_REGIONS.map((r) => [r.id, r.shortName]));

/** The catalogue's short form of a region's name (SPEC §4) for a phone's row, or the name itself (an operator's region). */
export function shortRegionName(id: string, name: string): string {
  return SHORT_NAMES.get(id) ?? name;
}

export function rememberedRegion(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function rememberRegion(region: string | null): void {
  try {
    if (region === null) localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, region);
  } catch {
    // Without storage the choice lasts for this page.
  }
}

/**
 * The viewer's region among those shown: their own choice always wins, then
 * the closest region measured by latency, then the time zone's guess.
 */
export function viewerRegion(available: readonly string[], remembered: string | null, zone: string, closest: string | null = null): string | null {
  if (remembered && available.includes(remembered)) return remembered;
  return automaticRegion(available, zone, closest)?.region ?? null;
}

/** What the picker's "automatic" choice stands for: the closest region measured by latency, else the time zone's guess, and which of the two decided. */
export type AutomaticRegion = { readonly region: string; readonly by: "latency" | "zone" } | null;

export function automaticRegion(available: readonly string[], zone: string, closest: string | null): AutomaticRegion {
  if (closest && available.includes(closest)) return { region: closest, by: "latency" };
  const guess = regionForZone(zone);
  return guess && available.includes(guess) ? { region: guess, by: "zone" } : null;
}

let zone: string | null = null;

/** The browser's IANA time zone, read once: asking Intl is costly the first time in a page (main.tsx asks before the first render). */
export function browserZone(): string {
  zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone;
}
