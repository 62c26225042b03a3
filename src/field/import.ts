/**
 * The mapping from the field hub's database to ours (SPEC §22). Everything is
 * checked before the first write, and written in one transaction, so a refusal
 * or a failure changes nothing. What was copied is listed in `field_import`
 * (field id beside ours), which is what makes a second import copy nothing
 * twice, even after a user has signed in and their password hash was replaced.
 */
import type { Database, Statement } from "bun:sqlite";
import { judgeImportedHash, type HashVerdict } from "../auth/passwords.ts";
import type { TotpSecrets } from "../auth/totp.ts";
import { ROLES, type Role } from "../config/options.ts";
import { cadenceProblem } from "../domain/cadence-expression.ts";
import { isPlatform, parseProvider, platformOf, type Catalogue, type Provider } from "../domain/catalogue.ts";
import { keptRefreshTime, storedReadingProblem } from "../domain/readings.ts";
import { cutToCharacters, EMAIL_PATTERN, TEXT_LIMITS } from "../domain/text-limits.ts";
import { characters } from "../domain/characters.ts";
import { USERNAME_PATTERN, usernameKey } from "../db/users.ts";
import type { FieldAgent, FieldApiKey, FieldPasskey, FieldReading, FieldSource, FieldUser } from "./source.ts";

/** The import is refused; nothing was written. */
export class FieldImportRefusal extends Error {
  override readonly name = "FieldImportRefusal";
}

export const IMPORT_TABLES = ["readings", "agents", "users", "passkeys", "apiKeys", "settings"] as const;
export type ImportTable = (typeof IMPORT_TABLES)[number];

/** Per table: rows to copy, and rows already here (from an earlier import, or the same row made here). */
export type ImportCounts = Record<ImportTable, { copy: number; present: number }>;

/** A user whose password hash was not kept, and why: too weak to keep, or costlier to check than a sign-in can afford. */
export interface PasswordToReset {
  readonly username: string;
  readonly reason: Exclude<HashVerdict, "kept">;
}

/**
 * What an import copies, and what it leaves behind: readings an agent's post
 * would have had refused, counted per reason; users whose password hash was
 * not kept, who sign in only after a reset; and text longer than the hub's
 * own API takes, cut or left out, counted per kind.
 */
export interface ImportOutcome {
  readonly counts: ImportCounts;
  readonly refusedReadings: Readonly<Record<string, number>>;
  readonly passwordsToReset: readonly PasswordToReset[];
  readonly shortened: Readonly<Record<string, number>>;
}

/** What a passkey's fields may hold here, as the registration API takes them. */
const PASSKEY_LIMITS = { credentialId: 1024, publicKey: 65_536, transports: 16, transport: 32 } as const;
/** A TOTP secret in base32, at most this long (this hub makes 32 characters). */
const TOTP_SECRET = /^[A-Z2-7]{16,128}=*$/i;
/** A cadence expression as the admin API takes it. */
const CADENCE_MAX_LENGTH = 200;
/** This hub shows the first 12 characters of a key (`hub_` and 8 more). */
const API_KEY_PREFIX_LENGTH = 12;
/** A provisioned agent's id, as the configuration takes it. */
const PROVISION_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Text from the field's file, bounded as this hub's API bounds it: what
 * people read (names, labels) is cut to the limit; a value that cannot be
 * cut (an e-mail address, a cadence, an id) is left out. Each is counted by
 * kind, but only for rows this import writes.
 */
class Bounds {
  readonly shortened: Record<string, number> = {};

  private note(what: string, counted: boolean): void {
    if (counted) this.shortened[what] = (this.shortened[what] ?? 0) + 1;
  }

  text(value: unknown, max: number, what: string, counted: boolean): string | null {
    if (value === null || value === undefined || value === "") return null;
    if (typeof value !== "string") {
      this.note(`${what} left out (not text)`, counted);
      return null;
    }
    if (characters(value) <= max) return value;
    this.note(`${what} cut to ${max} characters`, counted);
    return cutToCharacters(value, max);
  }

  /** A value kept whole or not at all. */
  whole(value: unknown, fits: (text: string) => boolean, what: string, counted: boolean): string | null {
    if (value === null || value === undefined || (typeof value === "string" && value.trim() === "")) return null;
    if (typeof value === "string" && fits(value)) return value;
    this.note(what, counted);
    return null;
  }
}

type Kind = "user" | "agent" | "passkey" | "apiKey";

/** How the field's runtime settings are named and written here (settings.ts keeps JSON values). */
const SETTINGS: readonly { field: string; hub: string; value: (raw: string) => string | null }[] = [
  { field: "require_auth", hub: "requireAuth", value: (raw) => JSON.stringify(raw === "true") },
  { field: "enable_api_keys", hub: "enableApiKeys", value: (raw) => JSON.stringify(raw === "true") },
  {
    field: "mfa_enforced_roles",
    hub: "mfaEnforcedRoles",
    value: (raw) => {
      try {
        const parsed: unknown = JSON.parse(raw);
        return Array.isArray(parsed) ? JSON.stringify(parsed.filter((r): r is Role => (ROLES as readonly unknown[]).includes(r))) : null;
      } catch {
        return null;
      }
    },
  },
  { field: "mfa_policy_chosen", hub: "mfaPolicyChosen", value: (raw) => (raw === "true" ? "true" : null) },
];

/**
 * The field names an agent provisioned by `AGENTn_TOKEN` without `AGENTn_ID`
 * `agent-n`; this hub names it `agentn`. Imported under our name, the same
 * variables provision the same agent here instead of clashing with it.
 */
function provisionId(fieldId: string | null): string | null {
  const numbered = fieldId === null ? null : /^agent-(\d+)$/.exec(fieldId);
  return numbered ? `agent${numbered[1]}` : fieldId;
}

/** Readings checked and written per step; progress is told between steps. */
const READING_BATCH = 50_000;

export interface ImportOptions {
  readonly catalogue: Catalogue;
  readonly now: number;
  /** Null on a dry run, which seals nothing. */
  readonly totpSecrets: TotpSecrets | null;
  readonly dryRun: boolean;
  readonly progress: (done: number, total: number) => void;
}

interface Checked {
  readonly users: readonly { row: FieldUser; role: Role; passwordHash: string | null; reset: PasswordToReset["reason"] | null; name: string | null; email: string | null; hubId: number | null }[];
  readonly agents: readonly { row: FieldAgent; provider: Provider; label: string | null; provisionId: string | null; pollMin: string | null; pollMax: string | null; hubId: number | null }[];
  readonly passkeys: readonly { row: FieldPasskey; publicKey: Buffer; label: string | null; transports: string | null; hubId: number | null }[];
  readonly apiKeys: readonly { row: FieldApiKey; label: string | null; prefix: string; hubId: number | null }[];
  readonly settings: readonly { key: string; value: string; present: boolean }[];
}

function refuse(message: string): never {
  throw new FieldImportRefusal(message);
}

function base64url(text: string): Buffer | null {
  return /^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, "base64url") : null;
}

/** The field stores an absent transport list as JSON `null`; a list longer than the registration API takes is left out. */
function transports(raw: string): string | null {
  try {
    const parsed: unknown = JSON.parse(raw);
    const fits = Array.isArray(parsed) && parsed.length <= PASSKEY_LIMITS.transports && parsed.every((t) => typeof t === "string" && t.length <= PASSKEY_LIMITS.transport);
    return fits ? JSON.stringify(parsed) : null;
  } catch {
    return null;
  }
}

function isCadence(raw: string): boolean {
  return raw.length <= CADENCE_MAX_LENGTH && cadenceProblem(raw.trim()) === null;
}

class Target {
  private readonly mapped = new Map<string, number>();

  constructor(readonly sqlite: Database) {
    const hasMap = sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'field_import'").get()?.n === 1;
    if (hasMap) {
      for (const row of sqlite.query<{ kind: string; field_id: number; hub_id: number }, []>("SELECT kind, field_id, hub_id FROM field_import").all()) {
        this.mapped.set(`${row.kind}:${row.field_id}`, row.hub_id);
      }
    }
  }

  /** Our id of a field row an earlier import copied. */
  imported(kind: Kind, fieldId: number): number | null {
    return this.mapped.get(`${kind}:${fieldId}`) ?? null;
  }

  one<T>(sql: string, ...params: (string | number | null)[]): T | null {
    return this.sqlite.query<T, (string | number | null)[]>(sql).get(...params);
  }
}

/** Every check, before anything is written: what is new, what is already here, and any conflict (a refusal). */
function check(source: FieldSource, target: Target, catalogue: Catalogue, bounds: Bounds): Checked {
  for (const slot of source.readingSlots()) {
    if (!isPlatform(slot.platform)) refuse(`${slot.n} readings have the platform "${slot.platform}", which this hub does not know (Windows, EGS, GRDK)`);
    if (!catalogue.hasRegion(slot.region)) {
      refuse(`${slot.n} readings are of the region "${slot.region}", which is not in this hub's catalogue; add it under regions in the config file, then import again`);
    }
  }

  const seenNames = new Map<string, string>();
  const users = source.users().map((row) => {
    if (!USERNAME_PATTERN.test(row.username)) refuse(`the field's user ${row.id} is named "${row.username}", which is not a valid username here (1 to 64 letters, digits, ".", "_" or "-")`);
    const key = usernameKey(row.username);
    const twin = seenNames.get(key);
    if (twin !== undefined) refuse(`the field's users "${twin}" and "${row.username}" differ only in case, and usernames here are unique whatever the case; rename one in the field's hub first`);
    seenNames.set(key, row.username);
    const role = (ROLES as readonly string[]).includes(row.role) ? (row.role as Role) : refuse(`the field's user "${row.username}" has the role "${row.role}", which this hub does not know`);
    const passwordHash = row.password_hash === null || row.password_hash === "" ? null : row.password_hash;
    const verdict = passwordHash === null ? null : judgeImportedHash(passwordHash);
    const kept = verdict === "kept" ? passwordHash : null;
    const reset = verdict === null || verdict === "kept" ? null : verdict;
    if (row.totp_secret && !TOTP_SECRET.test(row.totp_secret)) refuse(`the field's user "${row.username}" has a TOTP secret that is not base32 of 16 to 128 characters`);
    const imported = target.imported("user", row.id);
    const here = imported !== null ? null : target.one<{ id: number; password_hash: string | null }>("SELECT id, password_hash FROM users WHERE username_key = ?", key);
    if (here && (here.password_hash === null || here.password_hash !== row.password_hash)) {
      refuse(`the username "${row.username}" already exists here (user ${here.id}) with other data; rename or delete it here first, then import again`);
    }
    const hubId = imported ?? here?.id ?? null;
    const copied = hubId === null;
    const name = bounds.text(row.name, TEXT_LIMITS.name, "user names", copied);
    const email = bounds.whole(row.email, (e) => e.length <= TEXT_LIMITS.email && EMAIL_PATTERN.test(e), `e-mail addresses left out (not an address of at most ${TEXT_LIMITS.email} characters)`, copied);
    return { row, role, passwordHash: kept, reset, name, email, hubId };
  });
  const userIds = new Set(users.map((u) => u.row.id));

  const agents = source.agents().map((row) => {
    const provider = parseProvider(row.provider) ?? refuse(`the field's agent ${row.id} has the provider "${row.provider}", which this hub does not know (steam, epic, grdk)`);
    if (!catalogue.hasRegion(row.region)) refuse(`the field's agent ${row.id} is in the region "${row.region}", which is not in this hub's catalogue; add it under regions in the config file`);
    if (!/^[0-9a-f]{64}$/i.test(row.token_hash)) refuse(`the field's agent ${row.id} has a token hash that is not 64 hexadecimal characters`);
    const imported = target.imported("agent", row.id);
    const bounded = (copied: boolean) => ({
      label: bounds.text(row.label, TEXT_LIMITS.label, "agent labels", copied),
      provisionId: bounds.whole(provisionId(row.provision_id), (id) => PROVISION_ID.test(id), "agents' provisioned ids left out (not 1 to 64 letters, digits, '.', '_' or '-')", copied),
      pollMin: bounds.whole(row.poll_min, isCadence, `agent cadences left out (not a cadence of at most ${CADENCE_MAX_LENGTH} characters)`, copied),
      pollMax: bounds.whole(row.poll_max, isCadence, `agent cadences left out (not a cadence of at most ${CADENCE_MAX_LENGTH} characters)`, copied),
    });
    if (imported !== null) return { row, provider, ...bounded(false), hubId: imported };
    const ownId = provisionId(row.provision_id);
    const name = row.provision_id ? `"${row.provision_id}"` : String(row.id);
    const here = target.one<{ id: number; region: string; provider: string; provision_id: string | null }>(
      "SELECT id, region, provider, provision_id FROM agents WHERE token_hash = ?",
      row.token_hash.toLowerCase(),
    );
    if (here && (here.region !== row.region || here.provider !== provider || (here.provision_id !== null && here.provision_id !== ownId))) {
      refuse(`the token of the field's agent ${name} is already used here by agent ${here.id} with other data (region, provider or id); remove that agent here first, then import again`);
    }
    if (!here && ownId !== null) {
      const holder = target.one<{ id: number }>("SELECT id FROM agents WHERE provision_id = ?", ownId);
      if (holder) refuse(`the provisioned id "${row.provision_id}" of the field's agent ${row.id} is already used here by agent ${holder.id} with another token; remove or rename it here first`);
    }
    return { row, provider, ...bounded(here === null), hubId: here?.id ?? null };
  });

  const passkeys = source.passkeys().flatMap((row): Checked["passkeys"][number][] => {
    if (!userIds.has(row.user_id)) return [];
    if (row.public_key.length > PASSKEY_LIMITS.publicKey) refuse(`the public key of the field's passkey ${row.id} is longer than ${PASSKEY_LIMITS.publicKey} characters`);
    if (row.credential_id.length > PASSKEY_LIMITS.credentialId) refuse(`the credential id of the field's passkey ${row.id} is longer than ${PASSKEY_LIMITS.credentialId} characters`);
    const publicKey = base64url(row.public_key) ?? refuse(`the public key of the field's passkey ${row.id} is not base64url`);
    if (base64url(row.credential_id) === null) refuse(`the credential id of the field's passkey ${row.id} is not base64url`);
    if (row.flags !== null && !(Number.isInteger(row.flags) && row.flags >= 0 && row.flags <= 0xff)) refuse(`the flags of the field's passkey ${row.id} are not one byte (0 to 255)`);
    const imported = target.imported("passkey", row.id);
    const copied = imported === null;
    const label = bounds.text(row.label, TEXT_LIMITS.label, "passkey labels", copied);
    const kept = bounds.whole(row.transports === "null" ? null : row.transports, (raw) => transports(raw) !== null, `passkey transport lists left out (not a list of at most ${PASSKEY_LIMITS.transports} names)`, copied);
    const listed = kept === null ? null : transports(kept);
    if (imported !== null) return [{ row, publicKey, label, transports: listed, hubId: imported }];
    const here = target.one<{ id: number }>("SELECT id FROM passkeys WHERE credential_id = ?", row.credential_id);
    if (here) refuse(`the field's passkey ${row.id} (credential ${row.credential_id.slice(0, 12)}…) is already registered here (passkey ${here.id}); remove it here first`);
    return [{ row, publicKey, label, transports: listed, hubId: null }];
  });

  const apiKeys = source.apiKeys().flatMap((row): Checked["apiKeys"][number][] => {
    if (!userIds.has(row.user_id)) return [];
    if (!/^[0-9a-f]{64}$/i.test(row.key_hash)) refuse(`the field's API key ${row.id} has a hash that is not 64 hexadecimal characters`);
    const imported = target.imported("apiKey", row.id);
    const copied = imported === null;
    const label = bounds.text(row.label, TEXT_LIMITS.label, "API key labels", copied);
    const prefix = bounds.text(row.prefix, API_KEY_PREFIX_LENGTH, "API key prefixes", copied) ?? "";
    if (imported !== null) return [{ row, label, prefix, hubId: imported }];
    const here = target.one<{ id: number }>("SELECT id FROM api_keys WHERE key_hash = ?", row.key_hash.toLowerCase());
    if (here) refuse(`the field's API key ${row.id} (${prefix}…) is already here (key ${here.id}) with another owner or row; remove it here first`);
    return [{ row, label, prefix, hubId: null }];
  });

  // The field's settings are copied once: after that, what an admin changes here is theirs.
  const alreadyCopied = target.one<{ value: string }>("SELECT value FROM settings WHERE key = 'fieldSettingsImportedAt'") !== null;
  const fieldSettings = source.settings();
  const settings = SETTINGS.flatMap(({ field, hub, value }) => {
    const raw = fieldSettings.get(field);
    const mapped = raw === undefined ? null : value(raw);
    return mapped === null ? [] : [{ key: hub, value: mapped, present: alreadyCopied }];
  });

  return { users, agents, passkeys, apiKeys, settings };
}

function emptyCounts(): ImportCounts {
  return Object.fromEntries(IMPORT_TABLES.map((t) => [t, { copy: 0, present: 0 }])) as ImportCounts;
}

function tally<T extends { hubId: number | null }>(items: readonly T[]): { copy: number; present: number } {
  const present = items.filter((i) => i.hubId !== null).length;
  return { copy: items.length - present, present };
}

/**
 * Checks, then (unless a dry run) copies, in one immediate transaction on
 * `target`. Returns what was (or would be) copied per table, and what was not.
 */
export function importField(source: FieldSource, targetDb: Database, options: ImportOptions): ImportOutcome {
  const target = new Target(targetDb);
  const bounds = new Bounds();
  const checked = check(source, target, options.catalogue, bounds);
  const counts = emptyCounts();
  counts.users = tally(checked.users);
  counts.agents = tally(checked.agents);
  counts.passkeys = tally(checked.passkeys);
  counts.apiKeys = tally(checked.apiKeys);
  counts.settings = { copy: checked.settings.filter((s) => !s.present).length, present: checked.settings.filter((s) => s.present).length };
  const refusedReadings: Record<string, number> = {};
  const passwordsToReset = checked.users.flatMap((u) => (u.hubId === null && u.reset !== null ? [{ username: u.row.username, reason: u.reset }] : []));
  const outcome: ImportOutcome = { counts, refusedReadings, passwordsToReset, shortened: bounds.shortened };

  const total = source.readingCount();
  const exists = targetDb.query<{ one: number }, [string, string, number, number, number]>(
    "SELECT 1 AS one FROM readings WHERE platform = ? AND region = ? AND measured_at = ? AND survivor = ? AND killer = ? LIMIT 1",
  );
  // With no stored reading inside the field's time range, none can be a copy: the per-reading look-up is skipped.
  const range = source.readingRange();
  const overlap =
    range !== null &&
    (targetDb.query<{ n: number }, [number, number]>("SELECT COUNT(*) AS n FROM (SELECT 1 FROM readings WHERE measured_at BETWEEN ? AND ? LIMIT 1)").get(range.min, range.max)?.n ?? 0) > 0;

  const copyReadings = (write: ((row: FieldReading) => void) | null): void => {
    let done = 0;
    for (const batch of source.readingBatches(READING_BATCH)) {
      for (const reading of batch) {
        const [, platform, region, survivor, killer, ratio, version, category, , measuredAt] = reading;
        // SQLite keeps whatever a column was given: each value is checked as an agent's post would be.
        const problem = storedReadingProblem({ survivor, killer, ratio, version, category, measuredAt }, options.now);
        if (problem !== null) refusedReadings[problem] = (refusedReadings[problem] ?? 0) + 1;
        else if (overlap && exists.get(platform, region, measuredAt, survivor, killer)) counts.readings.present++;
        else {
          counts.readings.copy++;
          write?.(reading);
        }
      }
      done += batch.length;
      options.progress(done, total);
    }
  };

  if (options.dryRun) {
    copyReadings(null);
    return outcome;
  }

  const write = targetDb.transaction(() => {
    const remember = targetDb.query<unknown, [Kind, number, number, number]>("INSERT INTO field_import (kind, field_id, hub_id, imported_at) VALUES (?, ?, ?, ?)");
    const userIds = new Map<number, number>();
    for (const { row, role, passwordHash, name, email, hubId } of checked.users) {
      if (hubId !== null) {
        userIds.set(row.id, hubId);
        if (target.imported("user", row.id) === null) remember.run("user", row.id, hubId, options.now);
        continue;
      }
      const created = targetDb
        .query<{ id: number }, (string | number | null)[]>(
          "INSERT INTO users (username, username_key, name, email, role, enabled, password_hash, totp_enabled, totp_last_step, created_at, updated_at, last_login_at) " +
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(
          row.username,
          usernameKey(row.username),
          name,
          email,
          role,
          row.enabled ? 1 : 0,
          passwordHash,
          row.totp_secret ? 1 : 0,
          row.totp_secret && row.totp_last_step > 0 ? row.totp_last_step : null,
          row.created_at,
          row.updated_at,
          row.last_login_at,
        );
      const id = created?.id ?? refuse(`could not insert the field's user "${row.username}"`);
      if (row.totp_secret && options.totpSecrets) {
        // Sealed as this hub seals every TOTP secret: bound to the new row's id, under the hub's key.
        targetDb.query("UPDATE users SET totp_secret = ? WHERE id = ?").run(options.totpSecrets.seal(id, row.totp_secret), id);
      }
      userIds.set(row.id, id);
      remember.run("user", row.id, id, options.now);
    }

    const agentIds = new Map<number, number>();
    for (const { row, provider, label, provisionId: ownId, pollMin, pollMax, hubId } of checked.agents) {
      if (hubId !== null) {
        agentIds.set(row.id, hubId);
        if (target.imported("agent", row.id) === null) remember.run("agent", row.id, hubId, options.now);
        continue;
      }
      const created = targetDb
        .query<{ id: number }, (string | number | null)[]>(
          "INSERT INTO agents (token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at) " +
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(
          row.token_hash.toLowerCase(),
          provider,
          platformOf(provider),
          row.region,
          label,
          row.enabled ? 1 : 0,
          ownId === null ? "imported" : "provisioned",
          ownId,
          pollMin === null ? null : pollMin.trim(),
          pollMax === null ? null : pollMax.trim(),
          row.created_at,
          row.updated_at,
        );
      const id = created?.id ?? refuse(`could not insert the field's agent ${row.id}`);
      agentIds.set(row.id, id);
      remember.run("agent", row.id, id, options.now);
    }

    for (const { row, publicKey, label, transports: listed, hubId } of checked.passkeys) {
      const userId = userIds.get(row.user_id);
      if (hubId !== null || userId === undefined) continue;
      const created = targetDb
        .query<{ id: number }, (string | number | Buffer | null)[]>(
          "INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(userId, row.credential_id, publicKey, row.counter, listed, label, row.created_at, row.last_used_at, row.flags);
      if (created) remember.run("passkey", row.id, created.id, options.now);
    }

    for (const { row, label, prefix, hubId } of checked.apiKeys) {
      const userId = userIds.get(row.user_id);
      if (hubId !== null || userId === undefined) continue;
      const created = targetDb
        .query<{ id: number }, (string | number | null)[]>(
          "INSERT INTO api_keys (user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .get(userId, row.key_hash.toLowerCase(), prefix, label, row.enabled ? 1 : 0, row.created_at, row.last_used_at, row.expires_at);
      if (created) remember.run("apiKey", row.id, created.id, options.now);
    }

    const setting = targetDb.query<unknown, [string, string, number]>(
      "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    );
    for (const { key, value, present } of checked.settings) if (!present) setting.run(key, value, options.now);
    if (checked.settings.some((s) => !s.present)) setting.run("fieldSettingsImportedAt", JSON.stringify(options.now), options.now);

    const reading = targetDb.query<unknown, (string | number | null)[]>(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    copyReadings((row) => insertReading(reading, row, agentIds));

    // The newest refresh time of each slot, so %refreshTime% cadences have a value before the first new reading.
    targetDb.exec(
      "INSERT INTO slot_state (platform, region, refresh_time_seconds, updated_at) " +
        "SELECT r.platform, r.region, r.refresh_time_seconds, r.measured_at FROM readings r " +
        "JOIN (SELECT platform, region, MAX(measured_at) AS at FROM readings WHERE refresh_time_seconds IS NOT NULL GROUP BY platform, region) newest " +
        "ON r.platform = newest.platform AND r.region = newest.region AND r.measured_at = newest.at WHERE r.refresh_time_seconds IS NOT NULL " +
        "ON CONFLICT (platform, region) DO NOTHING",
    );

    targetDb
      .query("INSERT INTO audit_log (at, actor_user_id, actor, action, target, detail, via) VALUES (?, NULL, 'cli', 'field.import', ?, ?, 'cli')")
      .run(options.now, source.path, JSON.stringify(Object.fromEntries(IMPORT_TABLES.map((t) => [t, counts[t].copy]))));
  });
  write.immediate();
  return outcome;
}

function insertReading(
  statement: Statement<unknown, (string | number | null)[]>,
  row: FieldReading,
  agentIds: ReadonlyMap<number, number>,
): void {
  const [, platform, region, survivor, killer, ratio, version, category, refresh, measuredAt, agentId] = row;
  // The field does not record when a reading arrived; its measuring time is the nearest known.
  statement.run(platform, region, survivor, killer, ratio, version, category, keptRefreshTime(refresh), measuredAt, measuredAt, agentId === null ? null : (agentIds.get(agentId) ?? null));
}
