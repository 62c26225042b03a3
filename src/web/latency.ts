/**
 * The viewer's closest region by latency (SPEC §17.1): the browser times a
 * few small HTTPS requests to each host the game's matchmaking times (the
 * hub lists them in /meta; the page's CSP allows exactly those), keeps the
 * best round trip per region, and remembers the winner. A new winner replaces
 * the remembered region only when clearly faster, so the board does not
 * flip between two close regions. Nothing about the viewer goes to the hub.
 */
import type { SiteMeta } from "./api/client.ts";

export type LatencyHosts = SiteMeta["latencyHosts"];

/** The measured closest region, as remembered in the browser. */
export interface Closest {
  readonly region: string;
  readonly ms: number;
  readonly at: number;
}

export const REMEASURE_MS = 24 * 3_600_000;
/** "Clearly faster": at least 15 % and 10 ms quicker than the remembered region measured now. */
export const CLEARLY_FASTER = { share: 0.15, ms: 10 } as const;
const WARM_UPS = 1;
const ROUNDS = 3;
const TIMEOUT_MS = 3000;
const STORAGE_KEY = "hub.closest";

export function clearlyFaster(candidateMs: number, rememberedMs: number): boolean {
  return candidateMs <= rememberedMs * (1 - CLEARLY_FASTER.share) && rememberedMs - candidateMs >= CLEARLY_FASTER.ms;
}

/** The region to remember after a measurement: the fastest, unless the remembered one is about as fast. */
export function chooseClosest(results: ReadonlyMap<string, number | null>, remembered: Closest | null, now: number): Closest | null {
  let best: { region: string; ms: number } | null = null;
  for (const [region, ms] of results) if (ms !== null && (best === null || ms < best.ms)) best = { region, ms };
  if (best === null) return remembered;
  const rememberedNow = remembered ? results.get(remembered.region) : undefined;
  if (remembered && rememberedNow != null && remembered.region !== best.region && !clearlyFaster(best.ms, rememberedNow)) {
    return { region: remembered.region, ms: rememberedNow, at: now };
  }
  return { ...best, at: now };
}

export function measurementDue(remembered: Closest | null, now: number): boolean {
  return remembered === null || now - remembered.at >= REMEASURE_MS;
}

/** One round trip to a host, or null when it failed or took too long. */
async function roundTrip(host: string): Promise<number | null> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  const started = performance.now();
  try {
    // Opaque (no-cors) and anonymous: only the timing is wanted, and no cookie or referrer goes along.
    await fetch(`https://${host}/`, { mode: "no-cors", cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer", signal: controller.signal });
    return performance.now() - started;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The best of a few round trips to one host, after a warm-up that pays for DNS, TCP and TLS. */
async function bestRoundTrip(host: string): Promise<number | null> {
  for (let i = 0; i < WARM_UPS; i++) if ((await roundTrip(host)) === null) return null;
  let best: number | null = null;
  for (let i = 0; i < ROUNDS; i++) {
    const ms = await roundTrip(host);
    if (ms !== null && (best === null || ms < best)) best = ms;
  }
  return best;
}

export async function measureAll(hosts: LatencyHosts): Promise<Map<string, number | null>> {
  const results = await Promise.all(hosts.map(async ({ region, host }) => [region, await bestRoundTrip(host)] as const));
  return new Map(results);
}

export function rememberedClosest(): Closest | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Closest>;
    return typeof value.region === "string" && typeof value.ms === "number" && typeof value.at === "number" ? { region: value.region, ms: value.ms, at: value.at } : null;
  } catch {
    return null;
  }
}

export function rememberClosest(closest: Closest): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(closest));
  } catch {
    // Without storage the measurement lasts for this page.
  }
}
