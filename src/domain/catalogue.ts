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

export interface Region {
  readonly id: string;
  readonly name: string;
  readonly tz: string;
  readonly flag: string;
}

export const REGION_ID_PATTERN = /^[a-z]{2}-[a-z]+-[0-9]+$/;

/** Regional-indicator pair for an ISO 3166 alpha-2 code, e.g. "IE" becomes the Irish flag. */
export function flagEmoji(countryCode: string): string {
  const upper = countryCode.toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper)) return "";
  return String.fromCodePoint(...[...upper].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

const BUILT_IN: ReadonlyArray<readonly [id: string, name: string, tz: string, country: string]> = [
  ["eu-west-1", "EU West (Ireland)", "Europe/Dublin", "IE"],
  ["eu-west-2", "EU West (London)", "Europe/London", "GB"],
  ["eu-central-1", "EU Central (Frankfurt)", "Europe/Berlin", "DE"],
  ["us-east-1", "US East (N. Virginia)", "America/New_York", "US"],
  ["us-east-2", "US East (Ohio)", "America/New_York", "US"],
  ["us-west-1", "US West (N. California)", "America/Los_Angeles", "US"],
  ["us-west-2", "US West (Oregon)", "America/Los_Angeles", "US"],
  ["ca-central-1", "Canada (Montreal)", "America/Toronto", "CA"],
  ["sa-east-1", "South America (São Paulo)", "America/Sao_Paulo", "BR"],
  ["ap-southeast-1", "SE Asia (Singapore)", "Asia/Singapore", "SG"],
  ["ap-southeast-2", "Oceania (Sydney)", "Australia/Sydney", "AU"],
  ["ap-northeast-1", "Asia (Tokyo)", "Asia/Tokyo", "JP"],
  ["ap-northeast-2", "Asia (Seoul)", "Asia/Seoul", "KR"],
  ["ap-east-1", "Asia (Hong Kong)", "Asia/Hong_Kong", "HK"],
  ["ap-south-1", "Asia (Mumbai)", "Asia/Kolkata", "IN"],
];

export const BUILT_IN_REGIONS: readonly Region[] = BUILT_IN.map(([id, name, tz, country]) => ({
  id,
  name,
  tz,
  flag: flagEmoji(country),
}));

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Why an operator-supplied region cannot join the catalogue, or null when it can. */
export function regionProblem(region: Region, existing: readonly Region[]): string | null {
  if (!REGION_ID_PATTERN.test(region.id)) return `id "${region.id}" must match ${REGION_ID_PATTERN.source}`;
  if (existing.some((r) => r.id === region.id)) return `id "${region.id}" is already in the catalogue`;
  if (region.name.trim() === "" || region.name.length > 100) return `region "${region.id}" needs a name of 1 to 100 characters`;
  if (!isValidTimeZone(region.tz)) return `region "${region.id}" has an unknown IANA time zone "${region.tz}"`;
  return null;
}

/** The ordered catalogue: built-in regions first, then the operator's, with a lookup by id. */
/**
 * The host the game's matchmaking times for a region (SPEC §17.1): its AWS
 * GameLift endpoint, which every region id of the catalogue's form names.
 */
export function latencyHost(regionId: string): string {
  return `gamelift.${regionId}.amazonaws.com`;
}

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
