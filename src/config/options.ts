/**
 * Every setting of the hub, declared once. The environment, flag and
 * config-file parsers, `hub --help` and docs/reference/settings.md are all
 * generated from this table.
 */
import { createPublicKey } from "node:crypto";
import { cadenceProblem } from "../domain/cadence-expression.ts";
import { parseProvider, PROVIDERS, type Provider } from "../domain/catalogue.ts";
import { listOr } from "../domain/lists.ts";
import { parseTrustedProxies, type TrustedProxies } from "../domain/net.ts";
import { BACKUP_SCHEDULE_ALLOWED, parseBackupSchedule, type BackupSchedule } from "./backup-schedule.ts";
import { BACKUP_TARGET_ALLOWED, parseTargetSpec, type TargetSpec } from "./backup-target.ts";

export const ROLES = ["admin", "user"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ProvisionEntry {
  readonly id: string;
  readonly token: string;
  readonly region: string;
  readonly provider: Provider;
  readonly label: string | null;
  /** Where it was configured (`PROVISION_AGENTS entry 2`, `AGENT3_*`, `provision[0] in hub.yaml`), for a line that stops start-up. */
  readonly source: string;
}

/** Sources a PUBLIC_DIR app adds to directives of the hub's CSP, by directive. */
export type CspAdditions = Readonly<Record<string, readonly string[]>>;

export type CorsOrigins = { readonly kind: "none" } | { readonly kind: "any" } | { readonly kind: "list"; readonly origins: readonly string[] };

export interface Settings {
  host: string;
  port: number;
  db: string;
  staleAfter: number;
  retentionDays: number;
  auditRetentionDays: number;
  pruneIntervalMs: number;
  minFreeMb: number;
  forecastWindowDays: number;
  pageSize: number;
  pollMin: string;
  pollMax: string | null;
  requireAuth: boolean;
  enableApiKeys: boolean;
  mfaEnforcedRoles: readonly Role[];
  sessionSecret: string | null;
  secretKey: Uint8Array | null;
  origin: string | null;
  rpId: string | null;
  rpName: string;
  cookieSecure: boolean | null;
  sessionTtlHours: number;
  adminUser: string | null;
  adminPassword: string | null;
  adminEmail: string | null;
  adminName: string | null;
  provision: readonly ProvisionEntry[];
  trustedProxies: TrustedProxies;
  corsOrigins: CorsOrigins;
  allowedHosts: readonly string[];
  contactEmail: string | null;
  discordUrl: string | null;
  matrixUrl: string | null;
  contribute: boolean;
  tz: string | null;
  publicDir: string | null;
  publicDirCsp: CspAdditions;
  latencyProbes: boolean;
  seoEnabled: boolean;
  embedAncestors: string;
  demo: boolean;
  agentSetupUrl: string | null;
  maxStreams: number;
  maxStreamsPerClient: number;
  streamStallMs: number;
  maxRequestsPerClient: number;
  bodyTimeoutMs: number;
  logLevel: LogLevel;
  metricsToken: string | null;
  webhookAllowPrivate: boolean;
  pushEnabled: boolean;
  pushServiceHosts: readonly string[];
  maxPushSubscriptions: number;
  vapidPrivateKey: string | null;
  gripUrl: readonly string[];
  gripKey: string | null;
  gripVerifyKey: string | null;
  gripVerifyIss: string | null;
  gripPublishToken: string | null;
  gripStatsUrl: readonly string[];
  backupSchedule: BackupSchedule;
  backupTarget: TargetSpec | null;
  backupKeep: number;
  backupS3Endpoint: string | null;
  backupS3Region: string | null;
  backupS3AccessKeyId: string | null;
  backupS3SecretAccessKey: string | null;
  backupEncryptionKey: string | null;
}

/** Thrown by a parser; the loader adds the setting's name, the value and what is allowed. */
export class InvalidValue extends Error {
  override readonly name = "InvalidValue";
}

/** The JSON type a public setting has in GET /api/v1/meta, as its value in the loaded configuration reads. */
export type PublicType<T> = [T] extends [boolean] ? "boolean" : [T] extends [number] ? "integer" : [T] extends [string] ? "string" : [T] extends [string | null] ? "string or null" | "string" : never;

/**
 * A setting every visitor may see: it appears in GET /api/v1/meta, reply and
 * schema, under its key (or `as`), described by its help. Nothing else is
 * needed to publish one.
 */
export interface PublicMark<T> {
  readonly type: PublicType<T>;
  /** Its field in /meta when that differs from the key. */
  readonly as?: string;
}

export interface OptionSpec<T> {
  readonly flag: string;
  readonly env: string;
  /** Placeholder shown after the flag in `--help`; absent for on/off switches. */
  readonly arg?: string;
  readonly help: string;
  readonly defaultText: string;
  readonly allowed: string;
  /** A secret is never echoed, and can be read from a file instead (see fileVariant). */
  readonly secret?: boolean;
  /**
   * The key the field's hub (bloodpoint-incentives) gives this setting in its
   * config file, where it differs from ours: a dotted path inside its `auth:`
   * or `poll:` block. Its files are read as they are (SPEC §22).
   */
  readonly fieldKey?: string;
  /** Published in GET /api/v1/meta (never for a secret). */
  readonly public?: PublicMark<T>;
  readonly default: T;
  parse(value: unknown): T;
}

export type OptionTable = { readonly [K in keyof Settings]: OptionSpec<Settings[K]> };

function text(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw new InvalidValue("not a single value");
}

function integer(min: number, max: number): (value: unknown) => number {
  return (value) => {
    const raw = text(value);
    if (!/^-?\d+$/.test(raw)) throw new InvalidValue();
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidValue();
    return n;
  };
}

const TRUE_WORDS = new Set(["true", "1", "yes", "on"]);
const FALSE_WORDS = new Set(["false", "0", "no", "off"]);

export function parseBoolean(value: unknown): boolean {
  const raw = text(value).toLowerCase();
  if (TRUE_WORDS.has(raw)) return true;
  if (FALSE_WORDS.has(raw)) return false;
  throw new InvalidValue();
}

function optionalText(maxLength: number): (value: unknown) => string | null {
  return (value) => {
    const raw = text(value);
    if (raw.length > maxLength) throw new InvalidValue();
    return raw === "" ? null : raw;
  };
}

function requiredText(maxLength: number): (value: unknown) => string {
  return (value) => {
    const raw = text(value);
    if (raw === "" || raw.length > maxLength) throw new InvalidValue();
    return raw;
  };
}

function httpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidValue();
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidValue();
  return url;
}

function optionalUrl(value: unknown): string | null {
  const raw = text(value);
  return raw === "" ? null : httpUrl(raw).toString();
}

/** An origin is scheme://host[:port] with nothing after it. */
export function parseOrigin(value: unknown): string {
  const raw = text(value);
  const url = httpUrl(raw);
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || raw.replace(/\/$/, "") !== url.origin) {
    throw new InvalidValue();
  }
  return url.origin;
}

function optionalEmail(value: unknown): string | null {
  const raw = text(value);
  if (raw === "") return null;
  if (raw.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(raw)) throw new InvalidValue();
  return raw;
}

/** A list setting: a YAML list or a comma-separated string. */
function list(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(text) : text(value).split(",");
  return items.map((s) => s.trim()).filter((s) => s !== "");
}

function cadence(value: unknown): string {
  const raw = text(value);
  const problem = cadenceProblem(raw);
  if (problem) throw new InvalidValue(problem);
  return raw;
}

const PROVISION_ID = /^[A-Za-z0-9._-]{1,64}$/;
const TOKEN = /^[\x21-\x7e]{16,512}$/;

/** A secret of visible ASCII, or null when given empty. */
function optionalToken(value: unknown): string | null {
  return optionalMatching(value, TOKEN);
}

/** An optional value that must match `pattern` whole; empty is none. */
function optionalMatching(value: unknown, pattern: RegExp): string | null {
  const raw = text(value);
  if (raw === "") return null;
  if (!pattern.test(raw)) throw new InvalidValue();
  return raw;
}

/** Up to `max` visible ASCII characters, or none. */
const optionalVisible = (max: number) => (value: unknown) => optionalMatching(value, new RegExp(`^[\\x21-\\x7e]{1,${max}}$`));

/** How a PEM public key (SPKI) begins; a GRIP_VERIFY_KEY that does is a proxy's public key, not a shared secret. */
export const PEM_PUBLIC_KEY = "-----BEGIN PUBLIC KEY-----";

export type ProvisionField = "id" | "token" | "region" | "provider" | "label";

const PROVISION_ALLOWED: Readonly<Record<ProvisionField, string>> = {
  id: '1 to 64 letters, digits, ".", "_" or "-"',
  token: "16 to 512 visible ASCII characters without spaces",
  region: "a region id of the catalogue or one added under regions in the config file",
  provider: listOr(PROVIDERS),
  label: "at most 120 characters",
};
const PROVISION_ENTRY = "id:token:region:provider";
const PROVISION_LIST = "id:token:region:provider entries separated by commas or line breaks, or a list of { id, token, region, provider, label? }";

/**
 * A bad provisioned agent. It carries where it was configured, down to the
 * variable, flag entry or file key, so that the line stopping start-up names
 * it like any other bad setting; `secret` hides a value that holds a token.
 */
export class InvalidProvision extends InvalidValue {
  constructor(
    readonly where: string,
    readonly value: unknown,
    readonly allowed: string,
    readonly secret: boolean,
    reason = "",
  ) {
    super(reason);
  }
}

/** Where one provisioned agent was configured: the entry as a whole, and each of its fields. */
export interface ProvisionPlace {
  readonly entry: string;
  field(field: ProvisionField): string;
}

/** Names a place inside a provision setting: `at(" entry 2")`, `at("[0].region")`. */
export type ProvisionAt = (path: string) => string;

/** Checks one provisioned agent, and its region against `knownRegion` when given. */
export function provisionEntry(
  fields: { id: unknown; token: unknown; region: unknown; provider: unknown; label?: unknown },
  place: ProvisionPlace,
  knownRegion?: (id: string) => boolean,
): ProvisionEntry {
  const id = typeof fields.id === "string" || typeof fields.id === "number" ? String(fields.id).trim() : "";
  // An id too long to be one may be a token put in the wrong place: it is not shown either.
  const secret = (field: ProvisionField) => field === "token" || (field === "id" && id.length > 64);
  const bad = (field: ProvisionField, reason = "") => new InvalidProvision(place.field(field), fields[field], PROVISION_ALLOWED[field], secret(field), reason);
  if (!PROVISION_ID.test(id)) throw bad("id");
  const token = typeof fields.token === "string" ? fields.token.trim() : "";
  if (!TOKEN.test(token)) throw bad("token");
  const region = typeof fields.region === "string" ? fields.region.trim() : "";
  if (region === "") throw bad("region");
  if (knownRegion && !knownRegion(region)) throw bad("region", "unknown region");
  const provider = typeof fields.provider === "string" ? parseProvider(fields.provider) : null;
  if (!provider) throw bad("provider");
  const label = fields.label === undefined || fields.label === null ? null : String(fields.label).trim();
  if (label !== null && label.length > 120) throw bad("label");
  return { id, token, region, provider, label: label === "" ? null : label, source: place.entry };
}

function commaEntries(value: unknown, at: ProvisionAt, path: string, knownRegion: ((id: string) => boolean) | undefined): ProvisionEntry[] {
  // Line breaks separate entries too, so that PROVISION_AGENTS_FILE can hold one agent per line.
  const entries = text(value).split(/[,\r\n]/).map((s) => s.trim()).filter((s) => s !== "");
  return entries.map((entry, i) => {
    const where = at(`${path} entry ${i + 1}`);
    const parts = entry.split(":");
    // The whole entry holds the token, so only its shape is told, never its text.
    if (parts.length !== 4) throw new InvalidProvision(where, entry, PROVISION_ENTRY, true, `${parts.length} ${parts.length === 1 ? "part" : "parts"} instead of 4`);
    const [id, token, region, provider] = parts;
    return provisionEntry({ id, token, region, provider }, { entry: where, field: (field) => `the ${field} of ${where}` }, knownRegion);
  });
}

/**
 * `id:token:region:provider` entries separated by commas, or a YAML list of
 * objects (or of such strings). `at` names the setting as the error line
 * should (`PROVISION_AGENTS`, `--provision`, `provision … in FILE`).
 */
export function parseProvisionList(value: unknown, at: ProvisionAt = (path) => `provision${path}`, knownRegion?: (id: string) => boolean): ProvisionEntry[] {
  if (Array.isArray(value)) {
    return value.flatMap((item: unknown, i) => {
      if (typeof item === "string") return commaEntries(item, at, `[${i}]`, knownRegion);
      if (item === null || typeof item !== "object" || Array.isArray(item)) {
        throw new InvalidProvision(at(`[${i}]`), item, "an entry with id, token, region and provider", true);
      }
      const record = item as Record<string, unknown>;
      return [
        provisionEntry(
          { id: record.id, token: record.token, region: record.region, provider: record.provider, label: record.label },
          { entry: at(`[${i}]`), field: (field) => at(`[${i}].${field}`) },
          knownRegion,
        ),
      ];
    });
  }
  if (typeof value !== "string" && typeof value !== "number") throw new InvalidProvision(at(""), value, PROVISION_LIST, true);
  return commaEntries(value, at, "", knownRegion);
}

export function parseRoles(value: unknown): Role[] {
  const roles = list(value).map((r) => r.toLowerCase());
  for (const role of roles) if (!(ROLES as readonly string[]).includes(role)) throw new InvalidValue(`unknown role "${role}"`);
  return [...new Set(roles)] as Role[];
}

const KEY_BYTES = 32;

/**
 * The hub's key: 32 bytes written as 64 hex characters (`openssl rand -hex 32`,
 * and the form of `hub.key`), or as base64 (`openssl rand -base64 32`).
 */
export function parseSecretKey(value: unknown): Uint8Array {
  const raw = text(value);
  if (/^[0-9a-fA-F]{64}$/.test(raw)) return new Uint8Array(Buffer.from(raw, "hex"));
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(raw)) {
    const bytes = Buffer.from(raw.replaceAll("-", "+").replaceAll("_", "/"), "base64");
    if (bytes.length === KEY_BYTES) return new Uint8Array(bytes);
  }
  throw new InvalidValue();
}

/** Host names as a browser puts them in Host, without a port: hub.example.org, 10.0.0.5, [fd00::5]. */
function parseHostNames(value: unknown): string[] {
  return list(value).map((name) => {
    let url: URL;
    try {
      url = new URL(`http://${name}`);
    } catch {
      throw new InvalidValue();
    }
    if (url.hostname !== name.toLowerCase() || url.port !== "") throw new InvalidValue();
    return url.hostname;
  });
}

/** The directives a PUBLIC_DIR app may widen; the others (frame-ancestors, base-uri, form-action…) stay as the hub sets them. */
export const CSP_WIDENABLE = ["default-src", "script-src", "style-src", "img-src", "font-src", "connect-src", "media-src", "worker-src", "manifest-src"] as const;

/** `script-src https://cdn.example.org; img-src https: data:`: sources added per directive, never a directive replaced or removed. */
function parseCspAdditions(value: unknown): CspAdditions {
  const additions: Record<string, string[]> = {};
  for (const part of text(value).split(";").map((p) => p.trim()).filter((p) => p !== "")) {
    const [directive = "", ...sources] = part.split(/\s+/);
    if (!(CSP_WIDENABLE as readonly string[]).includes(directive.toLowerCase())) throw new InvalidValue(`"${directive}" cannot be widened`);
    if (sources.length === 0) throw new InvalidValue(`"${directive}" has no source`);
    if (sources.some((s) => /[,;"\\]/.test(s) || /^'(unsafe-eval|unsafe-hashes)'$/i.test(s))) throw new InvalidValue(`a source of "${directive}" is not allowed`);
    (additions[directive.toLowerCase()] ??= []).push(...sources);
  }
  return additions;
}

/** The source list of a CSP frame-ancestors directive: * or origins. */
function parseEmbedAncestors(value: unknown): string {
  const text = String(value).trim();
  if (text === "*") return "*";
  const items = text.split(",").map((item) => item.trim()).filter((item) => item !== "");
  if (items.length === 0) throw new InvalidValue("expected * or at least one origin");
  return items.map((item) => parseOrigin(item)).join(" ");
}

function parseCors(value: unknown): CorsOrigins {
  const items = list(value);
  if (items.length === 0) return { kind: "none" };
  if (items.length === 1 && items[0] === "*") return { kind: "any" };
  return { kind: "list", origins: items.map((o) => parseOrigin(o)) };
}

export const OPTIONS: OptionTable = {
  host: {
    flag: "--host", env: "HOST", arg: "ADDR", help: "Listen address, or a Unix socket (unix:/run/hub/hub.sock)", defaultText: "0.0.0.0",
    allowed: "an IP address, a host name, or unix: and an absolute path", default: "0.0.0.0", parse: requiredText(253),
  },
  port: {
    flag: "--port", env: "PORT", arg: "N", help: "Listen port", defaultText: "3000",
    allowed: "an integer from 1 to 65535", default: 3000, parse: integer(1, 65535),
  },
  db: {
    flag: "--db", env: "DB_PATH", arg: "FILE", help: "SQLite database file (its directory is created)", defaultText: "./data/hub.db",
    allowed: "a file path", default: "./data/hub.db", fieldKey: "dbPath", parse: requiredText(4096),
  },
  staleAfter: {
    flag: "--stale-after", env: "STALE_AFTER_SECONDS", arg: "SECONDS", help: "A live reading older than this is stale", defaultText: "900",
    allowed: "an integer number of seconds, at least 60", default: 900, fieldKey: "staleAfterSeconds", parse: integer(60, 31_536_000),
  },
  retentionDays: {
    flag: "--retention-days", env: "DATA_RETENTION_DAYS", arg: "DAYS", help: "Readings older than this are pruned", defaultText: "31",
    allowed: "an integer number of days, at least 1", default: 31, fieldKey: "dataRetentionDays", parse: integer(1, 36_500),
  },
  auditRetentionDays: {
    flag: "--audit-retention-days", env: "AUDIT_RETENTION_DAYS", arg: "DAYS", help: "Audit log rows older than this are pruned", defaultText: "365",
    allowed: "an integer number of days, at least 1", default: 365, parse: integer(1, 36_500),
  },
  pruneIntervalMs: {
    flag: "--prune-interval-ms", env: "PRUNE_INTERVAL_MS", arg: "MS", help: "How often old readings and audit rows are pruned and expired sessions removed", defaultText: "3600000",
    allowed: "an integer number of milliseconds from 1000 to 86400000", default: 3_600_000, parse: integer(1000, 86_400_000),
  },
  minFreeMb: {
    flag: "--min-free-mb", env: "MIN_FREE_MB", arg: "MB", help: "Below this much free space on the database's volume, /healthz reports storage \"full\"", defaultText: "64",
    allowed: "an integer number of megabytes, 0 or more", default: 64, parse: integer(0, 1_048_576),
  },
  forecastWindowDays: {
    flag: "--forecast-window-days", env: "FORECAST_WINDOW_DAYS", arg: "DAYS", help: "Days of readings the forecast learns from", defaultText: "84",
    allowed: "an integer number of days, at least 1", default: 84, parse: integer(1, 3650),
  },
  pageSize: {
    flag: "--page-size", env: "PAGE_SIZE", arg: "N", help: "Page size for region lists in clients", defaultText: "20",
    allowed: "an integer from 1 to 1000", default: 20, public: { type: "integer" }, parse: integer(1, 1000),
  },
  pollMin: {
    flag: "--poll-min", env: "POLL_MIN_SECONDS", arg: "EXPR", help: "Default agent poll minimum: seconds or a cadence expression", defaultText: "%refreshTime%",
    allowed: "seconds or an expression over numbers, + - * / ( ) and %refreshTime% / %auto%", default: "%refreshTime%", fieldKey: "poll.min", parse: cadence,
  },
  pollMax: {
    flag: "--poll-max", env: "POLL_MAX_SECONDS", arg: "EXPR", help: "Default agent poll maximum: seconds or a cadence expression", defaultText: "min × 1.33",
    allowed: "seconds or an expression over numbers, + - * / ( ) and %refreshTime% / %auto%", default: null,
    fieldKey: "poll.max", parse: (value) => (text(value) === "" ? null : cadence(value)),
  },
  requireAuth: {
    flag: "--require-auth", env: "REQUIRE_AUTH", help: "Require login (session or API key) for reads; kept in the database: once given, it stays after the flag is removed, until an admin changes it", defaultText: "false",
    allowed: "true or false", default: false, fieldKey: "auth.requireAuth", parse: parseBoolean,
  },
  enableApiKeys: {
    flag: "--enable-api-keys", env: "ENABLE_API_KEYS", help: "Allow users to mint and use API keys; kept in the database: once given, it stays after the flag is removed, until an admin changes it", defaultText: "false",
    allowed: "true or false", default: false, fieldKey: "auth.enableApiKeys", parse: parseBoolean,
  },
  mfaEnforcedRoles: {
    flag: "--mfa-enforced-roles", env: "MFA_ENFORCED_ROLES", arg: "ROLES", help: "Roles that must use a second factor (comma list; empty for none); kept in the database: once given, it stays after the flag is removed, until an admin changes it", defaultText: "admin",
    allowed: `a comma list of ${ROLES.join(", ")} (or empty)`, default: ["admin"], parse: parseRoles,
  },
  sessionSecret: {
    flag: "--session-secret", env: "SESSION_SECRET", arg: "SECRET", help: "Secret mixed into session and device token hashes", defaultText: "derived from the hub's key",
    allowed: "at least 32 characters", secret: true, default: null,
    fieldKey: "auth.sessionSecret", parse: (value) => {
      const raw = text(value);
      if (raw.length < 32 || raw.length > 1024) throw new InvalidValue();
      return raw;
    },
  },
  secretKey: {
    flag: "--secret-key", env: "SECRET_KEY", arg: "KEY", help: "The hub's key: sessions and the encryption of stored TOTP secrets derive from it",
    defaultText: "hub.key beside the database, made at first start",
    allowed: "64 hex characters, or 32 bytes in base64", secret: true, default: null, parse: parseSecretKey,
  },
  origin: {
    flag: "--origin", env: "ORIGIN", arg: "URL", help: "Public origin of the hub (scheme://host[:port])", defaultText: "http://localhost:<port>",
    allowed: "an http or https origin such as https://hub.example.org", default: null, fieldKey: "auth.origin", parse: parseOrigin,
  },
  rpId: {
    flag: "--rp-id", env: "RP_ID", arg: "HOST", help: "WebAuthn relying-party id", defaultText: "the origin's host",
    allowed: "a host name", default: null, fieldKey: "auth.rpId", parse: requiredText(253),
  },
  rpName: {
    flag: "--rp-name", env: "RP_NAME", arg: "NAME", help: "WebAuthn relying-party name shown by authenticators", defaultText: "Incentives Hub",
    allowed: "1 to 100 characters", default: "Incentives Hub", fieldKey: "auth.rpName", parse: requiredText(100),
  },
  cookieSecure: {
    flag: "--cookie-secure", env: "COOKIE_SECURE", help: "Mark cookies Secure", defaultText: "true when the origin is https",
    allowed: "true or false", default: null, fieldKey: "auth.cookieSecure", parse: parseBoolean,
  },
  sessionTtlHours: {
    flag: "--session-ttl-hours", env: "SESSION_TTL_HOURS", arg: "HOURS", help: "Session lifetime, sliding", defaultText: "168",
    allowed: "an integer number of hours, at least 1", default: 168, fieldKey: "auth.sessionTtlHours", parse: integer(1, 87_600),
  },
  adminUser: {
    flag: "--admin-user", env: "ADMIN_BOOTSTRAP_USER", arg: "NAME", help: "First admin's username, created when no admin exists", defaultText: "none",
    allowed: "1 to 64 letters, digits, '.', '_' or '-'", default: null,
    fieldKey: "auth.bootstrap.username", parse: (value) => {
      const raw = text(value);
      if (raw !== "" && !/^[\p{L}\p{N}._-]{1,64}$/u.test(raw)) throw new InvalidValue();
      return raw === "" ? null : raw;
    },
  },
  adminPassword: {
    flag: "--admin-password", env: "ADMIN_BOOTSTRAP_PASSWORD", arg: "PASSWORD", help: "First admin's password", defaultText: "none",
    allowed: "10 to 1024 characters", secret: true, default: null,
    fieldKey: "auth.bootstrap.password", parse: (value) => {
      const raw = typeof value === "string" ? value : text(value);
      if (raw !== "" && (raw.length < 10 || raw.length > 1024)) throw new InvalidValue();
      return raw === "" ? null : raw;
    },
  },
  adminEmail: {
    flag: "--admin-email", env: "ADMIN_BOOTSTRAP_EMAIL", arg: "EMAIL", help: "First admin's e-mail", defaultText: "none",
    allowed: "an e-mail address", default: null, fieldKey: "auth.bootstrap.email", parse: optionalEmail,
  },
  adminName: {
    flag: "--admin-name", env: "ADMIN_BOOTSTRAP_NAME", arg: "NAME", help: "First admin's display name", defaultText: "none",
    allowed: "up to 120 characters", default: null, fieldKey: "auth.bootstrap.name", parse: optionalText(120),
  },
  provision: {
    flag: "--provision", env: "PROVISION_AGENTS", arg: "LIST", help: "Agents to provision at boot: id:token:region:provider,… (also AGENTn_* variables)", defaultText: "none",
    allowed: "id:token:region:provider entries separated by commas (or line breaks)", secret: true, default: [], parse: parseProvisionList,
  },
  trustedProxies: {
    flag: "--trusted-proxies", env: "TRUSTED_PROXIES", arg: "RULE", help: "Proxies whose X-Forwarded-For is believed", defaultText: "false",
    allowed: "false, true, a hop count or a comma list of IPs/CIDRs", default: { kind: "none" },
    parse: (value) => {
      const rule = parseTrustedProxies(Array.isArray(value) ? list(value).join(",") : text(value));
      if (!rule) throw new InvalidValue();
      return rule;
    },
  },
  corsOrigins: {
    flag: "--cors-origins", env: "CORS_ALLOWED_ORIGINS", arg: "ORIGINS", help: "Origins allowed to call the API from a browser", defaultText: "none (same origin only)",
    allowed: "* or a comma list of origins such as https://app.example.org", default: { kind: "none" }, fieldKey: "corsAllowedOrigins", parse: parseCors,
  },
  allowedHosts: {
    flag: "--allowed-hosts", env: "ALLOWED_HOSTS", arg: "HOSTS", help: "Host names besides the origin's at which the hub takes changes", defaultText: "none",
    allowed: "a comma list of host names or addresses without a port, such as 10.0.0.5,hub.lan", default: [], parse: parseHostNames,
  },
  contactEmail: {
    flag: "--contact-email", env: "CONTACT_EMAIL", arg: "EMAIL", help: "Contact e-mail shown to visitors", defaultText: "none",
    allowed: "an e-mail address", default: null, public: { type: "string or null" }, parse: optionalEmail,
  },
  discordUrl: {
    flag: "--discord-url", env: "DISCORD_URL", arg: "URL", help: "Discord invite shown to visitors", defaultText: "none",
    allowed: "an http or https URL", default: null, public: { type: "string or null" }, parse: optionalUrl,
  },
  matrixUrl: {
    flag: "--matrix-url", env: "MATRIX_URL", arg: "URL", help: "Matrix room shown to visitors", defaultText: "none",
    allowed: "an http or https URL", default: null, public: { type: "string or null" }, parse: optionalUrl,
  },
  contribute: {
    flag: "--contribute", env: "CONTRIBUTE_ENABLED", help: "Show the contribute page in clients", defaultText: "false",
    allowed: "true or false", default: false, fieldKey: "contributeEnabled", public: { type: "boolean", as: "contributeEnabled" }, parse: parseBoolean,
  },
  tz: {
    flag: "--tz", env: "TZ", arg: "ZONE", help: "Time zone of the process; the hub writes every time in UTC, so nothing it shows changes (the field's hub reads it too)", defaultText: "the system's",
    allowed: "a time zone such as Europe/Berlin", default: null, parse: optionalText(200),
  },
  publicDir: {
    flag: "--public-dir", env: "PUBLIC_DIR", arg: "DIR", help: "Serve this folder instead of the embedded web app (index.html for every page path), e.g. a customised dashboard of the field's hub", defaultText: "none (the embedded app)",
    allowed: "an existing folder", default: null, parse: optionalText(4096),
  },
  publicDirCsp: {
    flag: "--public-dir-csp", env: "PUBLIC_DIR_CSP", arg: "SOURCES", help: "Sources the PUBLIC_DIR app adds to the hub's Content-Security-Policy, as 'script-src https://cdn.example.org; img-src https:'", defaultText: "none",
    allowed: `directives (${CSP_WIDENABLE.join(", ")}) each with sources, separated by ";"`, default: {}, parse: parseCspAdditions,
  },
  latencyProbes: {
    flag: "--latency-probes", env: "LATENCY_PROBES", help: "Let the board time the game's regional servers from the browser to find the viewer's closest region (the page's CSP allows exactly those hosts)", defaultText: "true",
    allowed: "true or false", default: true, parse: parseBoolean,
  },
  seoEnabled: {
    flag: "--seo-enabled", env: "SEO_ENABLED", help: "Ask search engines to index the board: canonical links, a sitemap and robots.txt allowing the public pages (off: robots.txt refuses all, pages say noindex)", defaultText: "false",
    allowed: "true or false", default: false, parse: parseBoolean,
  },
  embedAncestors: {
    flag: "--embed-ancestors", env: "EMBED_ANCESTORS", arg: "ORIGINS", help: "Sites that may show the embeds (/embed/…) in an iframe; every other page refuses to be framed", defaultText: "*",
    allowed: "* or a comma list of origins such as https://clan.example.org", default: "*", parse: parseEmbedAncestors,
  },
  demo: {
    flag: "--demo", env: "HUB_DEMO", help: "Demo mode: a throw-away database with 14 days of simulated history and simulated agents (ignores --db)", defaultText: "false",
    allowed: "true or false", default: false, parse: parseBoolean,
  },
  agentSetupUrl: {
    flag: "--agent-setup-url", env: "AGENT_SETUP_URL", arg: "URL", help: "Where volunteers learn to run an agent", defaultText: "<origin>/contribute/agents",
    allowed: "an http or https URL", default: null, public: { type: "string" }, parse: optionalUrl,
  },
  maxStreams: {
    flag: "--max-streams", env: "MAX_STREAMS", arg: "N", help: "Most concurrent event streams before 503", defaultText: "10000",
    allowed: "an integer from 1 to 1000000", default: 10_000, parse: integer(1, 1_000_000),
  },
  maxStreamsPerClient: {
    flag: "--max-streams-per-client", env: "MAX_STREAMS_PER_CLIENT", arg: "N", help: "Most concurrent event streams one client IP may hold before 503", defaultText: "32",
    allowed: "an integer from 1 to 1000000", default: 32, parse: integer(1, 1_000_000),
  },
  streamStallMs: {
    flag: "--stream-stall-ms", env: "STREAM_STALL_MS", arg: "MS", help: "Time an event stream's socket may go without draining before the client is dropped", defaultText: "60000",
    allowed: "an integer number of milliseconds from 1000 to 3600000", default: 60_000, parse: integer(1000, 3_600_000),
  },
  maxRequestsPerClient: {
    flag: "--max-requests-per-client", env: "MAX_REQUESTS_PER_CLIENT", arg: "N", help: "Most requests one client IP may have in progress at once before 503 (streams not counted)", defaultText: "64",
    allowed: "an integer from 1 to 1000000", default: 64, parse: integer(1, 1_000_000),
  },
  bodyTimeoutMs: {
    flag: "--body-timeout-ms", env: "BODY_TIMEOUT_MS", arg: "MS", help: "Time a request body has to arrive in full before 408", defaultText: "10000",
    allowed: "an integer number of milliseconds from 100 to 600000", default: 10_000, parse: integer(100, 600_000),
  },
  logLevel: {
    flag: "--log-level", env: "LOG_LEVEL", arg: "LEVEL", help: "Log level", defaultText: "info",
    allowed: "debug, info, warn or error", default: "info",
    parse: (value) => {
      const raw = text(value).toLowerCase();
      if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new InvalidValue();
      return raw as LogLevel;
    },
  },
  metricsToken: {
    flag: "--metrics-token", env: "METRICS_TOKEN", arg: "TOKEN", help: "Bearer token that may read /metrics", defaultText: "none (admins only)",
    allowed: "16 to 512 visible ASCII characters", secret: true, default: null, parse: optionalToken,
  },
  webhookAllowPrivate: {
    flag: "--webhook-allow-private", env: "WEBHOOK_ALLOW_PRIVATE", help: "Allow webhooks to loopback, private and link-local addresses", defaultText: "false",
    allowed: "true or false", default: false, parse: parseBoolean,
  },
  pushEnabled: {
    flag: "--push-enabled", env: "PUSH_ENABLED", help: "Offer Web Push: notifications for a region's bonus while every page of the hub is closed (needs CONTACT_EMAIL or an https ORIGIN)", defaultText: "true",
    allowed: "true or false", default: true, public: { type: "boolean" }, parse: parseBoolean,
  },
  pushServiceHosts: {
    flag: "--push-service-hosts", env: "PUSH_SERVICE_HOSTS", arg: "HOSTS", help: "Push services accepted besides the browsers' own (fcm.googleapis.com, updates.push.services.mozilla.com, web.push.apple.com, *.notify.windows.com)", defaultText: "none",
    allowed: "a comma list of host names or addresses without a port, such as push.example.org", default: [], parse: parseHostNames,
  },
  maxPushSubscriptions: {
    flag: "--max-push-subscriptions", env: "MAX_PUSH_SUBSCRIPTIONS", arg: "N", help: "Most push subscriptions the hub keeps; past it new ones get 503", defaultText: "100000",
    allowed: "an integer from 1 to 10000000", default: 100_000, parse: integer(1, 10_000_000),
  },
  vapidPrivateKey: {
    flag: "--vapid-private-key", env: "VAPID_PRIVATE_KEY", arg: "KEY", help: "The push (VAPID) private key, when it is not to be made and kept in the database", defaultText: "made on first start and kept sealed in the database",
    allowed: "a P-256 private key as 43 base64url characters (32 bytes)", secret: true, default: null,
    parse: (value) => {
      const raw = text(value);
      if (raw === "") return null;
      if (!/^[A-Za-z0-9_-]{43}$/.test(raw) || Buffer.from(raw, "base64url").length !== 32) throw new InvalidValue();
      return raw;
    },
  },
  gripUrl: {
    flag: "--grip-url", env: "GRIP_URL", arg: "URLS", help: "Publish endpoints of GRIP proxies (Pushpin, Fastly Fanout) that hold the streams; needs GRIP_KEY, or GRIP_VERIFY_KEY and GRIP_PUBLISH_TOKEN", defaultText: "none (the hub serves every stream itself)",
    allowed: "a comma list of http(s) URLs such as http://127.0.0.1:5561", default: [], parse: (value) => list(value).map((raw) => httpUrl(raw).toString()),
  },
  gripKey: {
    flag: "--grip-key", env: "GRIP_KEY", arg: "KEY", help: "Key the GRIP proxies sign Grip-Sig with (Pushpin's sig_key) and the hub signs its publishes with", defaultText: "none",
    allowed: "16 to 512 visible ASCII characters (base64:… for binary keys)", secret: true, default: null,
    parse: optionalToken,
  },
  gripVerifyKey: {
    flag: "--grip-verify-key", env: "GRIP_VERIFY_KEY", arg: "KEY", help: "Key Grip-Sig is checked with when the proxy signs with a key of its own (Fastly Fanout's public key); needs GRIP_VERIFY_ISS when it is a public key", defaultText: "GRIP_KEY",
    allowed: `a PEM public key (${PEM_PUBLIC_KEY}…) or 16 to 512 visible ASCII characters`, secret: true, default: null,
    parse: (value) => {
      const raw = text(value);
      if (raw === "") return null;
      if (raw.startsWith(PEM_PUBLIC_KEY)) {
        try {
          createPublicKey(raw);
        } catch {
          throw new InvalidValue("not a readable public key");
        }
        return raw;
      }
      if (!TOKEN.test(raw)) throw new InvalidValue();
      return raw;
    },
  },
  gripVerifyIss: {
    flag: "--grip-verify-iss", env: "GRIP_VERIFY_ISS", arg: "ISSUER", help: "Issuer (iss) a Grip-Sig must name: Fastly Fanout signs as fastly:SERVICE_ID", defaultText: "any",
    allowed: "1 to 256 visible ASCII characters", default: null,
    parse: optionalVisible(256),
  },
  gripPublishToken: {
    flag: "--grip-publish-token", env: "GRIP_PUBLISH_TOKEN", arg: "TOKEN", help: "Bearer token the hub's publishes carry instead of a JWT signed with GRIP_KEY (Fastly Fanout: an API token allowed to publish)", defaultText: "none (publishes are signed with GRIP_KEY)",
    allowed: "16 to 512 visible ASCII characters", secret: true, default: null,
    parse: optionalToken,
  },
  gripStatsUrl: {
    flag: "--grip-stats-url", env: "GRIP_STATS_URL", arg: "URLS", help: "Prometheus endpoint of each GRIP_URL node, in the same order (Pushpin's prometheus_port), read every 5 s so that presence counts the viewers the nodes hold", defaultText: "none (presence counts only the hub's own viewers)",
    allowed: "a comma list of http(s) URLs, one per GRIP_URL entry, such as http://127.0.0.1:9100/metrics", default: [], parse: (value) => list(value).map((raw) => httpUrl(raw).toString()),
  },
  backupSchedule: {
    flag: "--backup-schedule", env: "BACKUP_SCHEDULE", arg: "WHEN", help: "When the serving hub backs up to BACKUP_TARGET: daily HH:MM (in TZ) or every Nh", defaultText: "off",
    allowed: BACKUP_SCHEDULE_ALLOWED, default: { kind: "off" },
    parse: (value) => {
      const schedule = parseBackupSchedule(text(value));
      if (!schedule) throw new InvalidValue();
      return schedule;
    },
  },
  backupTarget: {
    flag: "--backup-target", env: "BACKUP_TARGET", arg: "TARGET", help: "Where backups go: a folder, or s3://bucket/prefix on S3-compatible storage", defaultText: "none",
    allowed: BACKUP_TARGET_ALLOWED, default: null,
    parse: (value) => {
      const raw = text(value);
      if (raw === "") return null;
      const spec = parseTargetSpec(raw);
      if (!spec) throw new InvalidValue();
      return spec;
    },
  },
  backupKeep: {
    flag: "--backup-keep", env: "BACKUP_KEEP", arg: "N", help: "Backups kept at the target; older ones are deleted only after a new one is checked", defaultText: "14",
    allowed: "an integer from 1 to 10000", default: 14, parse: integer(1, 10_000),
  },
  backupS3Endpoint: {
    flag: "--backup-s3-endpoint", env: "BACKUP_S3_ENDPOINT", arg: "URL", help: "Endpoint of the S3-compatible storage (R2, B2, MinIO, …)", defaultText: "AWS S3",
    allowed: "an http or https URL", default: null, parse: optionalUrl,
  },
  backupS3Region: {
    flag: "--backup-s3-region", env: "BACKUP_S3_REGION", arg: "REGION", help: "Region of the S3 bucket", defaultText: "none (Bun's S3 client then signs for AWS's default region; most S3-compatible stores ignore it)",
    allowed: "1 to 64 letters, digits and hyphens", default: null,
    parse: (value) => optionalMatching(value, /^[A-Za-z0-9-]{1,64}$/),
  },
  backupS3AccessKeyId: {
    flag: "--backup-s3-access-key-id", env: "BACKUP_S3_ACCESS_KEY_ID", arg: "ID", help: "Access key id for the S3 bucket", defaultText: "none",
    allowed: "1 to 256 visible ASCII characters", default: null,
    parse: optionalVisible(256),
  },
  backupS3SecretAccessKey: {
    flag: "--backup-s3-secret-access-key", env: "BACKUP_S3_SECRET_ACCESS_KEY", arg: "SECRET", help: "Secret access key for the S3 bucket", defaultText: "none",
    allowed: "1 to 512 visible ASCII characters", secret: true, default: null,
    parse: optionalVisible(512),
  },
  backupEncryptionKey: {
    flag: "--backup-encryption-key", env: "BACKUP_ENCRYPTION_KEY", arg: "PASSPHRASE", help: "Encrypt backups (AES-256-GCM, key derived with PBKDF2-SHA256); the same passphrase restores them", defaultText: "none (backups are not encrypted)",
    allowed: "16 to 1024 characters", secret: true, default: null,
    parse: (value) => {
      const raw = typeof value === "string" ? value.replace(/[\r\n]+$/, "") : text(value);
      if (raw === "") return null;
      if (raw.length < 16 || raw.length > 1024) throw new InvalidValue();
      return raw;
    },
  },
};

export const OPTION_KEYS = Object.keys(OPTIONS) as (keyof Settings)[];

/** Why every secret can come from a file, as `--help` and the settings reference say next to it. */
export const FILE_VARIANT_REASON = "a command line is visible to every local user in ps";

/** The `_FILE` spelling of a secret setting: a flag, a variable and a config key that each name a file holding the value. */
export interface FileVariant {
  readonly flag: string;
  readonly env: string;
  readonly key: string;
}

/** Every secret has one, so that no secret ever needs to sit on a command line or in the environment. */
export function fileVariant(key: keyof Settings): FileVariant | null {
  const option = OPTIONS[key];
  if (!option.secret) return null;
  return { flag: `${option.flag}-file`, env: `${option.env}_FILE`, key: `${key}File` };
}

/** The config-file path option, which cannot itself live in a config file. */
export const CONFIG_OPTION = {
  flag: "--config",
  env: "HUB_CONFIG",
  arg: "FILE",
  help: "YAML or JSON config file (keys are the flag names in camelCase)",
  defaultText: "none",
} as const;
