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

/** Where a zone not in the table most likely plays, by its area. */
const AREAS: readonly [prefix: string, region: string][] = [
  ["Europe/", "eu-central-1"],
  ["Africa/", "eu-central-1"],
  ["America/Argentina/", "sa-east-1"],
  ["America/", "us-east-1"],
  ["Australia/", "ap-southeast-2"],
  ["Pacific/", "ap-southeast-2"],
  ["Asia/", "ap-southeast-1"],
];

/** The catalogue region for an IANA time zone, or null. */
export function regionForZone(zone: string): string | null {
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

/** The viewer's region among those shown: the remembered one, else the time zone's, else none. */
export function viewerRegion(available: readonly string[], remembered: string | null, zone: string): string | null {
  if (remembered && available.includes(remembered)) return remembered;
  const guess = regionForZone(zone);
  return guess && available.includes(guess) ? guess : null;
}

export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
