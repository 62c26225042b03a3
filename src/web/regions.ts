/**
 * The viewer's region: preselected from the browser's time zone through a
 * small table built from the catalogue's zones (SPEC §4), changeable, and
 * remembered in the browser.
 */
const ZONES: Readonly<Record<string, string>> = {
  "Europe/Dublin": "eu-west-1",
  "Europe/Lisbon": "eu-west-1",
  "Atlantic/Reykjavik": "eu-west-1",
  "Europe/London": "eu-west-2",
  "America/New_York": "us-east-1",
  "America/Detroit": "us-east-1",
  "America/Chicago": "us-east-2",
  "America/Indiana/Indianapolis": "us-east-2",
  "America/Denver": "us-west-2",
  "America/Phoenix": "us-west-2",
  "America/Boise": "us-west-2",
  "America/Vancouver": "us-west-2",
  "America/Los_Angeles": "us-west-1",
  "America/Toronto": "ca-central-1",
  "America/Montreal": "ca-central-1",
  "America/Halifax": "ca-central-1",
  "America/Winnipeg": "ca-central-1",
  "America/Mexico_City": "us-east-2",
  "America/Sao_Paulo": "sa-east-1",
  "Asia/Singapore": "ap-southeast-1",
  "Asia/Kuala_Lumpur": "ap-southeast-1",
  "Asia/Bangkok": "ap-southeast-1",
  "Asia/Jakarta": "ap-southeast-1",
  "Asia/Manila": "ap-southeast-1",
  "Asia/Ho_Chi_Minh": "ap-southeast-1",
  "Australia/Sydney": "ap-southeast-2",
  "Pacific/Auckland": "ap-southeast-2",
  "Asia/Tokyo": "ap-northeast-1",
  "Asia/Seoul": "ap-northeast-2",
  "Asia/Hong_Kong": "ap-east-1",
  "Asia/Shanghai": "ap-east-1",
  "Asia/Taipei": "ap-east-1",
  "Asia/Macau": "ap-east-1",
  "Asia/Kolkata": "ap-south-1",
  "Asia/Calcutta": "ap-south-1",
  "Asia/Dubai": "ap-south-1",
  "Asia/Karachi": "ap-south-1",
  "Asia/Dhaka": "ap-south-1",
};

/**
 * Other names browsers report for the same places: Chromium's ICU keeps the
 * old IANA links (America/Buenos_Aires, Asia/Calcutta, Asia/Saigon…), and
 * some systems still give the legacy US/ and Canada/ names. Each maps like
 * its canonical zone.
 */
const ALIASES: Readonly<Record<string, string>> = {
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Mendoza": "America/Argentina/Mendoza",
  "America/Rosario": "America/Argentina/Cordoba",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Fort_Wayne": "America/Indiana/Indianapolis",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Montreal": "America/Toronto",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Macao": "Asia/Macau",
  "Asia/Chongqing": "Asia/Shanghai",
  "Asia/Harbin": "Asia/Shanghai",
  "Asia/Dacca": "Asia/Dhaka",
  "Asia/Ujung_Pandang": "Asia/Makassar",
  "Europe/Kiev": "Europe/Kyiv",
  "Europe/Belfast": "Europe/London",
  "GB": "Europe/London",
  "Eire": "Europe/Dublin",
  "Japan": "Asia/Tokyo",
  "ROK": "Asia/Seoul",
  "Singapore": "Asia/Singapore",
  "Hongkong": "Asia/Hong_Kong",
  "PRC": "Asia/Shanghai",
  "ROC": "Asia/Taipei",
  "US/Eastern": "America/New_York",
  "US/Michigan": "America/Detroit",
  "US/East-Indiana": "America/Indiana/Indianapolis",
  "US/Central": "America/Chicago",
  "US/Mountain": "America/Denver",
  "US/Arizona": "America/Phoenix",
  "US/Pacific": "America/Los_Angeles",
  "US/Alaska": "America/Anchorage",
  "US/Hawaii": "Pacific/Honolulu",
  "Canada/Eastern": "America/Toronto",
  "Canada/Atlantic": "America/Halifax",
  "Canada/Central": "America/Winnipeg",
  "Canada/Mountain": "America/Edmonton",
  "Canada/Pacific": "America/Vancouver",
  "Brazil/East": "America/Sao_Paulo",
  "Australia/ACT": "Australia/Sydney",
  "Australia/Canberra": "Australia/Sydney",
  "Australia/NSW": "Australia/Sydney",
  "Australia/Victoria": "Australia/Melbourne",
  "Australia/Queensland": "Australia/Brisbane",
  "Australia/West": "Australia/Perth",
  "NZ": "Pacific/Auckland",
};

/** Where a zone not in the table most likely plays, by its area. */
const AREAS: readonly [prefix: string, region: string][] = [
  ["Europe/", "eu-central-1"],
  ["Africa/", "eu-central-1"],
  ["America/Argentina/", "sa-east-1"],
  ...[
    "Santiago", "Montevideo", "Asuncion", "Lima", "Bogota", "Caracas", "La_Paz", "Guayaquil", "Fortaleza", "Recife", "Bahia", "Belem", "Manaus",
    "Cuiaba", "Campo_Grande", "Porto_Velho", "Araguaina", "Maceio", "Noronha", "Punta_Arenas", "Cayenne", "Paramaribo", "Guyana",
  ].map((city): [string, string] => [`America/${city}`, "sa-east-1"]),
  ["America/", "us-east-1"],
  ["Australia/", "ap-southeast-2"],
  ["Pacific/", "ap-southeast-2"],
  ["Asia/", "ap-southeast-1"],
];

/** The catalogue region for an IANA time zone, or null. */
export function regionForZone(reported: string): string | null {
  const zone = ALIASES[reported] ?? reported;
  const exact = ZONES[zone];
  if (exact) return exact;
  return AREAS.find(([prefix]) => zone.startsWith(prefix))?.[1] ?? null;
}

const STORAGE_KEY = "hub.region";

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

export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
