/**
 * The one client of the hub's public API used by the web app: typed by the
 * hub's own OpenAPI description (schema.d.ts, generated), every failure turned
 * into an ApiError carrying the problem detail's sentence.
 */
import type { components } from "./schema";
import { Platform } from "./vocabulary.ts";

export { Platform };

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
export type PatternsPayload = Schemas["PatternsPayload"];
export type Problem = Schemas["Problem"];

/** The store behind each platform id, as players know it: the catalogue's names, never a copy. */
export { PLATFORM_LABELS } from "../../domain/catalogue.ts";

export function isPlatform(value: string): value is Platform {
  return (Platform as readonly string[]).includes(value);
}

export interface FieldError {
  /** Where the problem is, such as body.username or query.limit. */
  readonly location: string;
  readonly message: string;
}

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly status: number,
    detail: string,
    /** Each refused field, when the hub named them. */
    readonly fields: readonly FieldError[] = [],
    /** Seconds to wait, from Retry-After (throttling), or null. */
    readonly retryAfter: number | null = null,
    /** The hub asks for the password to be confirmed before this change (a 403 with `reauth: true`). */
    readonly reauth = false,
  ) {
    super(detail);
  }

  /** The hub's message for one field (`body.label` or just `label`), if it named that field. */
  fieldMessage(field: string): string | null {
    const found = this.fields.find((f) => f.location === field || f.location === `body.${field}` || f.location.endsWith(`.${field}`));
    return found?.message ?? null;
  }
}

async function problemOf(response: Response): Promise<ApiError> {
  const retry = Number(response.headers.get("retry-after") ?? Number.NaN);
  const retryAfter = Number.isFinite(retry) && retry >= 0 ? retry : null;
  try {
    const body = (await response.json()) as Partial<Problem>;
    if (typeof body.detail === "string") {
      const fields = (body.errors ?? []).map((e) => ({ location: e.location, message: e.message }));
      return new ApiError(response.status, body.detail, fields, retryAfter, body.reauth === true);
    }
  } catch {
    // Not a problem detail (a proxy's error page): the status says enough.
  }
  return new ApiError(response.status, `${response.status} ${response.statusText}`.trim(), [], retryAfter);
}

/** Called when a request needs a signed-in session that the browser no longer has (expired, signed out elsewhere). */
let onSignedOut: (() => void) | null = null;

export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** Asks the viewer to confirm their password (SPEC §10.1 recent sign-in); resolves true once the hub accepted it, false when they declined. */
let onReauthNeeded: (() => Promise<boolean>) | null = null;

export function whenReauthNeeded(handler: () => Promise<boolean>): void {
  onReauthNeeded = handler;
}

async function request(method: string, path: string, body: unknown, signal: AbortSignal | undefined, csrf: string | null): Promise<Response> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (csrf !== null && method !== "GET") headers["x-csrf-token"] = csrf;
  try {
    return await fetch(path, { method, headers, credentials: "same-origin", signal, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "the hub cannot be reached");
  }
}

async function parsed<T>(response: Response): Promise<T> {
  if (response.status === 204 || response.status === 304) return undefined as T;
  const text = await response.text();
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

/**
 * A read answered 401 means this browser is signed out (or never was, where the hub requires sign-in): the service
 * worker drops the copies it kept of the hub's answers (SPEC §16.4). It sees the payloads' and settings' 401s itself;
 * this tells it of every other read's.
 */
function forgetKeptCopies(): void {
  navigator.serviceWorker?.controller?.postMessage({ hubForget: true });
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await request("GET", path, undefined, signal, null);
  if (response.status === 401) forgetKeptCopies();
  if (!response.ok) throw await problemOf(response);
  return await parsed<T>(response);
}

/** The session's CSRF token, read once and again after the session changes (sign-in, sign-out, a refusal). */
let csrfToken: string | null = null;
let csrfLoaded = false;

async function currentCsrf(): Promise<string | null> {
  if (!csrfLoaded) {
    const session = await getJson<SessionBody>("/api/v1/auth/session");
    csrfToken = session.csrfToken;
    csrfLoaded = true;
  }
  return csrfToken;
}

/** Forget the CSRF token, so the next change reads the new session's. */
export function sessionChanged(): void {
  csrfLoaded = false;
  csrfToken = null;
}

/**
 * A state-changing call with the session's CSRF token; a token refused
 * because the session changed underneath (signed in again, or replaced after
 * the second factor) is read again and the call retried once. A change that
 * needs a recent sign-in asks for the password in place and, once it is
 * confirmed, is retried. A 401 from a call that needs a session sends the
 * viewer to sign in.
 */
export async function send<T>(method: "POST" | "PATCH" | "PUT" | "DELETE", path: string, body?: unknown, options: { signedOutOk?: boolean } = {}): Promise<T> {
  let response = await request(method, path, body, undefined, await currentCsrf());
  const refusal = async () => (response.status === 403 && response.headers.get("content-type")?.includes("problem") ? await problemOf(response.clone()) : null);
  if ((await refusal())?.message.includes("X-CSRF-Token")) {
    sessionChanged();
    response = await request(method, path, body, undefined, await currentCsrf());
  }
  if ((await refusal())?.reauth && onReauthNeeded && (await onReauthNeeded())) {
    response = await request(method, path, body, undefined, await currentCsrf());
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    if (problem.status === 401 && !options.signedOutOk) onSignedOut?.();
    throw problem;
  }
  return await parsed<T>(response);
}

/** A read that needs a signed-in session: a 401 sends the viewer to sign in. */
export async function getPrivate<T>(path: string, signal?: AbortSignal): Promise<T> {
  try {
    return await getJson<T>(path, signal);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) onSignedOut?.();
    throw error;
  }
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
  patterns: (platform: Platform, region: string, signal?: AbortSignal) => getJson<PatternsPayload>(`/api/v1/platforms/${platform}/regions/${segment(region)}/patterns`, signal),
  streamUrl: (platform: Platform) => `/api/v1/platforms/${platform}/incentives/stream`,
};
