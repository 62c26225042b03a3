/** Platforms, providers and regions: the fixed vocabulary every other part speaks. */

export const PLATFORMS = ["Windows", "EGS", "GRDK"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_LABELS: Readonly<Record<Platform, string>> = {
  Windows: "Steam",
  EGS: "Epic Games Store",
  GRDK: "Microsoft Store",
};

export const PROVIDERS = ["steam", "epic", "grdk"] as const;
export type Provider = (typeof PROVIDERS)[number];

const PROVIDER_PLATFORM: Readonly<Record<Provider, Platform>> = {
  steam: "Windows",
  epic: "EGS",
  grdk: "GRDK",
};

export function isPlatform(value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value);
}

/** Why a platform id was refused, naming the ones that exist. */
export function unknownPlatform(value: string): string {
  return `Unknown platform "${value}"; use ${PLATFORMS.join(", ")}.`;
}

/** Accepts any letter case on input; the stored and returned form is lower-case. */
export function parseProvider(value: string): Provider | null {
  const lower = value.trim().toLowerCase();
  return (PROVIDERS as readonly string[]).includes(lower) ? (lower as Provider) : null;
}

export function platformOf(provider: Provider): Platform {
  return PROVIDER_PLATFORM[provider];
}

/** Everything about one matchmaking region; adding a region is one entry in BUILT_IN below. */
export interface Region {
  readonly id: string;
  readonly name: string;
  /** The name where space is short (a phone's row): the place alone, such as "Ireland"; the name itself when none is declared. */
  readonly shortName: string;
  /** The representative IANA time zone (SPEC §4): the forecast's local hours. */
  readonly tz: string;
  readonly flag: string;
  /** ISO 3166 alpha-2 code of the region's country (its flag drawing in the web app), or null. */
  readonly country: string | null;
  /**
   * Every IANA zone name, old links included, whose viewers most likely play
   * here: the board's guess of the viewer's region (SPEC §17.1). No zone
   * belongs to two regions.
   */
  readonly zones: readonly string[];
  /** Zone-name prefixes (an IANA area such as "Europe/") that fall here when no region names the zone itself. */
  readonly areas: readonly string[];
  /** The host the game's matchmaking times for this region (SPEC §17.1), probed from the browser. */
  readonly latencyHost: string;
}

export const REGION_ID_PATTERN = /^[a-z]{2}-[a-z]+-[0-9]+$/;

/** Regional-indicator pair for an ISO 3166 alpha-2 code, e.g. "IE" becomes the Irish flag. */
export function flagEmoji(countryCode: string): string {
  const upper = countryCode.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper)) return "";
  return String.fromCodePoint(...[...upper].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

/**
 * The host the game's matchmaking times for a region of the catalogue's id
 * form: its AWS GameLift endpoint. Every built-in region uses it, and so
 * does an operator's region that names no host of its own.
 */
export function gameLiftHost(regionId: string): string {
  return `gamelift.${regionId}.amazonaws.com`;
}

/** What a region is declared with; the rest is derived by `regionOf`. */
export interface RegionEntry {
  readonly id: string;
  readonly name: string;
  /** A shorter name for narrow screens, declared where the name is long. */
  readonly short?: string;
  readonly tz: string;
  /** An ISO 3166 alpha-2 code (its flag is derived), or a flag of the operator's own choosing. */
  readonly flag?: string;
  readonly zones?: readonly string[];
  readonly areas?: readonly string[];
  readonly latencyHost?: string;
}

/**
 * A full region from its declaration: the flag and country from a country
 * code, no zones or areas unless named, the GameLift host unless named.
 */
export function regionOf(entry: RegionEntry): Region {
  const code = entry.flag !== undefined && /^[A-Za-z]{2}$/.test(entry.flag) ? entry.flag.toUpperCase() : null;
  return {
    id: entry.id,
    name: entry.name,
    shortName: entry.short ?? entry.name,
    tz: entry.tz,
    flag: code ? flagEmoji(code) : (entry.flag ?? ""),
    country: code,
    zones: entry.zones ?? [],
    areas: entry.areas ?? [],
    latencyHost: entry.latencyHost ?? gameLiftHost(entry.id),
  };
}

const BUILT_IN: readonly RegionEntry[] = [
  { id: "eu-west-1", name: "EU West (Ireland)", short: "Ireland", tz: "Europe/Dublin", flag: "IE", zones: ["Europe/Dublin", "Eire", "Europe/Lisbon", "Atlantic/Reykjavik"] },
  { id: "eu-west-2", name: "EU West (London)", short: "London", tz: "Europe/London", flag: "GB", zones: ["Europe/London", "GB", "Europe/Belfast"] },
  { id: "eu-central-1", name: "EU Central (Frankfurt)", short: "Frankfurt", tz: "Europe/Berlin", flag: "DE", zones: ["Europe/Berlin", "Europe/Kyiv", "Europe/Kiev"], areas: ["Europe/", "Africa/"] },
  {
    id: "us-east-1",
    name: "US East (N. Virginia)",
    short: "N. Virginia",
    tz: "America/New_York",
    flag: "US",
    zones: ["America/New_York", "US/Eastern", "America/Detroit", "US/Michigan", "America/Kentucky/Louisville", "America/Louisville", "America/Anchorage", "US/Alaska", "America/Edmonton", "Canada/Mountain"],
    areas: ["America/"],
  },
  {
    id: "us-east-2",
    name: "US East (Ohio)",
    short: "Ohio",
    tz: "America/New_York",
    flag: "US",
    zones: ["America/Chicago", "US/Central", "America/Indiana/Indianapolis", "America/Indianapolis", "America/Fort_Wayne", "US/East-Indiana", "America/Mexico_City"],
  },
  { id: "us-west-1", name: "US West (N. California)", short: "N. California", tz: "America/Los_Angeles", flag: "US", zones: ["America/Los_Angeles", "US/Pacific"] },
  {
    id: "us-west-2",
    name: "US West (Oregon)",
    short: "Oregon",
    tz: "America/Los_Angeles",
    flag: "US",
    zones: ["America/Denver", "US/Mountain", "America/Phoenix", "US/Arizona", "America/Boise", "America/Vancouver", "Canada/Pacific"],
  },
  {
    id: "ca-central-1",
    name: "Canada (Montreal)",
    short: "Montreal",
    tz: "America/Toronto",
    flag: "CA",
    zones: ["America/Toronto", "Canada/Eastern", "America/Montreal", "America/Halifax", "Canada/Atlantic", "America/Winnipeg", "Canada/Central"],
  },
  {
    id: "sa-east-1",
    name: "South America (São Paulo)",
    short: "São Paulo",
    tz: "America/Sao_Paulo",
    flag: "BR",
    zones: [
      "America/Sao_Paulo", "Brazil/East",
      "America/Argentina/Buenos_Aires", "America/Buenos_Aires", "America/Argentina/Cordoba", "America/Cordoba", "America/Rosario",
      "America/Argentina/Catamarca", "America/Catamarca", "America/Argentina/Jujuy", "America/Jujuy", "America/Argentina/Mendoza", "America/Mendoza",
      "America/Santiago", "America/Punta_Arenas", "America/Montevideo", "America/Asuncion", "America/Lima", "America/Bogota", "America/Caracas",
      "America/La_Paz", "America/Guayaquil", "America/Fortaleza", "America/Recife", "America/Bahia", "America/Belem", "America/Manaus",
      "America/Cuiaba", "America/Campo_Grande", "America/Porto_Velho", "America/Araguaina", "America/Maceio", "America/Noronha",
      "America/Cayenne", "America/Paramaribo", "America/Guyana",
    ],
    areas: ["America/Argentina/"],
  },
  {
    id: "ap-southeast-1",
    name: "SE Asia (Singapore)",
    short: "Singapore",
    tz: "Asia/Singapore",
    flag: "SG",
    zones: [
      "Asia/Singapore", "Singapore", "Asia/Kuala_Lumpur", "Asia/Bangkok", "Asia/Jakarta", "Asia/Makassar", "Asia/Ujung_Pandang", "Asia/Manila",
      "Asia/Ho_Chi_Minh", "Asia/Saigon", "Asia/Kathmandu", "Asia/Katmandu", "Asia/Yangon", "Asia/Rangoon",
    ],
    areas: ["Asia/"],
  },
  {
    id: "ap-southeast-2",
    name: "Oceania (Sydney)",
    short: "Sydney",
    tz: "Australia/Sydney",
    flag: "AU",
    zones: [
      "Australia/Sydney", "Australia/ACT", "Australia/Canberra", "Australia/NSW", "Australia/Melbourne", "Australia/Victoria", "Australia/Brisbane",
      "Australia/Queensland", "Australia/Perth", "Australia/West", "Pacific/Auckland", "NZ", "Pacific/Honolulu", "US/Hawaii",
    ],
    areas: ["Australia/", "Pacific/"],
  },
  { id: "ap-northeast-1", name: "Asia (Tokyo)", short: "Tokyo", tz: "Asia/Tokyo", flag: "JP", zones: ["Asia/Tokyo", "Japan"] },
  { id: "ap-northeast-2", name: "Asia (Seoul)", short: "Seoul", tz: "Asia/Seoul", flag: "KR", zones: ["Asia/Seoul", "ROK"] },
  {
    id: "ap-east-1",
    name: "Asia (Hong Kong)",
    short: "Hong Kong",
    tz: "Asia/Hong_Kong",
    flag: "HK",
    zones: ["Asia/Hong_Kong", "Hongkong", "Asia/Shanghai", "Asia/Chongqing", "Asia/Harbin", "PRC", "Asia/Taipei", "ROC", "Asia/Macau", "Asia/Macao"],
  },
  { id: "ap-south-1", name: "Asia (Mumbai)", short: "Mumbai", tz: "Asia/Kolkata", flag: "IN", zones: ["Asia/Kolkata", "Asia/Calcutta", "Asia/Dubai", "Asia/Karachi", "Asia/Dhaka", "Asia/Dacca"] },
];

export const BUILT_IN_REGIONS: readonly Region[] = BUILT_IN.map(regionOf);

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const LATENCY_HOST = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Why an operator-supplied region cannot join the catalogue, or null when it can. */
export function regionProblem(region: Region, existing: readonly Region[]): string | null {
  if (!REGION_ID_PATTERN.test(region.id)) return `id "${region.id}" must match ${REGION_ID_PATTERN.source}`;
  if (existing.some((r) => r.id === region.id)) return `id "${region.id}" is already in the catalogue`;
  if (region.name.trim() === "" || region.name.length > 100) return `region "${region.id}" needs a name of 1 to 100 characters`;
  if (!isValidTimeZone(region.tz)) return `region "${region.id}" has an unknown IANA time zone "${region.tz}"`;
  if (!LATENCY_HOST.test(region.latencyHost)) return `region "${region.id}" has a latencyHost "${region.latencyHost}" that is not a lower-case DNS name such as ${gameLiftHost(region.id)}`;
  return null;
}

/**
 * The region whose viewers most likely play from an IANA time zone the
 * browser reports: the region naming the zone (or its old link) itself, else
 * the one with the longest area the zone lies in, else null.
 */
export function regionForZone(zone: string, regions: readonly Region[] = BUILT_IN_REGIONS): string | null {
  const named = regions.find((r) => r.zones.includes(zone));
  if (named) return named.id;
  let best: { id: string; length: number } | null = null;
  for (const region of regions) {
    for (const area of region.areas) if (zone.startsWith(area) && (best === null || area.length > best.length)) best = { id: region.id, length: area.length };
  }
  return best?.id ?? null;
}

/** The ordered catalogue: built-in regions first, then the operator's, with a lookup by id. */
export class Catalogue {
  readonly regions: readonly Region[];
  private readonly byId: ReadonlyMap<string, Region>;
  private readonly position: ReadonlyMap<string, number>;

  constructor(extra: readonly Region[] = []) {
    this.regions = [...BUILT_IN_REGIONS, ...extra];
    this.byId = new Map(this.regions.map((r) => [r.id, r]));
    this.position = new Map(this.regions.map((r, i) => [r.id, i]));
  }

  region(id: string): Region | undefined {
    return this.byId.get(id);
  }

  hasRegion(id: string): boolean {
    return this.byId.has(id);
  }

  /** Position of a region in display order; unknown ids sort last. */
  order(id: string): number {
    return this.position.get(id) ?? Number.MAX_SAFE_INTEGER;
  }
}
