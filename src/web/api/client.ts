/**
 * The one client of the hub's public API used by the web app: typed by the
 * hub's own OpenAPI description (schema.d.ts, generated), every failure turned
 * into an ApiError carrying the problem detail's sentence.
 */
import type { components } from "./schema";

type Schemas = components["schemas"];
export type SiteMeta = Schemas["SiteMeta"];
export type IncentivesPayload = Schemas["IncentivesPayload"];
export type RegionIncentive = Schemas["RegionIncentive"];
export type ActiveEvent = Schemas["ActiveEvent"];
export type CoveragePayload = Schemas["CoveragePayload"];
export type HistoryRangePayload = Schemas["HistoryRangePayload"];
export type ActivityPayload = Schemas["ActivityPayload"];
export type ForecastBody = Schemas["ForecastBody"];
export type ForecastPoint = Schemas["ForecastPoint"];
export type SessionBody = Schemas["SessionBody"];
export type Problem = Schemas["Problem"];

export const PLATFORMS = ["Windows", "EGS", "GRDK"] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The store behind each platform id, as players know it. */
export const PLATFORM_LABELS: Readonly<Record<Platform, string>> = { Windows: "Steam", EGS: "Epic Games Store", GRDK: "Microsoft Store" };

export function isPlatform(value: string): value is Platform {
  return (PLATFORMS as readonly string[]).includes(value);
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

async function problemOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as Partial<Problem>;
    if (typeof body.detail === "string") return new ApiError(response.status, body.detail);
  } catch {
    // Not a problem detail (a proxy's error page): the status says enough.
  }
  return new ApiError(response.status, `${response.status} ${response.statusText}`.trim());
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: "application/json" }, credentials: "same-origin", signal });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "the hub cannot be reached");
  }
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as T;
}

const segment = encodeURIComponent;

export const api = {
  meta: (signal?: AbortSignal) => getJson<SiteMeta>("/api/v1/meta", signal),
  session: (signal?: AbortSignal) => getJson<SessionBody>("/api/v1/auth/session", signal),
  incentives: (platform: Platform, signal?: AbortSignal) => getJson<IncentivesPayload>(`/api/v1/platforms/${platform}/incentives`, signal),
  coverage: (platform: Platform, signal?: AbortSignal) => getJson<CoveragePayload>(`/api/v1/platforms/${platform}/coverage`, signal),
  history: (platform: Platform, region: string, from: number, to: number, signal?: AbortSignal) =>
    getJson<HistoryRangePayload>(`/api/v1/platforms/${platform}/regions/${segment(region)}/history?from=${Math.floor(from)}&to=${Math.floor(to)}`, signal),
  activity: (platform: Platform, region: string, signal?: AbortSignal) =>
    getJson<ActivityPayload>(`/api/v1/platforms/${platform}/regions/${segment(region)}/activity?limit=10`, signal),
  forecast: (platform: Platform, region: string, signal?: AbortSignal) => getJson<ForecastBody>(`/api/v1/platforms/${platform}/regions/${segment(region)}/forecast`, signal),
  streamUrl: (platform: Platform) => `/api/v1/platforms/${platform}/incentives/stream`,
};
