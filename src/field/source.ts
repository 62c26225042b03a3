/**
 * The field hub's SQLite file (Buco7854/bloodpoint-incentives), read only.
 * Its schema is four migrations counted by `PRAGMA user_version`: 1 the
 * baseline, 2 trusted devices, 3 `users.totp_last_step`, 4
 * `webauthn_credentials.flags`. Every time it stores is epoch milliseconds.
 */
import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";

/** The newest schema of the field's hub this importer knows. */
export const FIELD_SCHEMA_VERSION = 4;

/** The file cannot be imported; nothing was read into this hub. */
export class FieldSourceError extends Error {
  override readonly name = "FieldSourceError";
}

/** The tables and columns read here, as the field's first migration made them. */
const REQUIRED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  readings: ["id", "platform", "region", "survivor", "killer", "ratio", "version", "category", "refresh_time_seconds", "measured_at", "agent_id"],
  agents: ["id", "provision_id", "token_hash", "region", "provider", "platform", "label", "enabled", "source", "poll_min", "poll_max", "created_at", "updated_at"],
  users: ["id", "username", "email", "name", "password_hash", "role", "totp_secret", "enabled", "created_at", "updated_at", "last_login_at"],
  webauthn_credentials: ["id", "user_id", "credential_id", "public_key", "counter", "transports", "label", "created_at", "last_used_at"],
  api_keys: ["id", "user_id", "key_hash", "prefix", "label", "enabled", "created_at", "last_used_at", "expires_at"],
  app_settings: ["key", "value"],
};

export interface FieldAgent {
  readonly id: number;
  readonly provision_id: string | null;
  readonly token_hash: string;
  readonly region: string;
  readonly provider: string;
  readonly label: string | null;
  readonly enabled: number;
  readonly poll_min: string | null;
  readonly poll_max: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

export interface FieldUser {
  readonly id: number;
  readonly username: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly password_hash: string | null;
  readonly role: string;
  readonly totp_secret: string | null;
  readonly totp_last_step: number;
  readonly enabled: number;
  readonly created_at: number;
  readonly updated_at: number;
  readonly last_login_at: number | null;
}

export interface FieldPasskey {
  readonly id: number;
  readonly user_id: number;
  readonly credential_id: string;
  readonly public_key: string;
  readonly counter: number;
  readonly transports: string | null;
  readonly label: string | null;
  readonly created_at: number;
  readonly last_used_at: number | null;
  /** The authenticator data's flags byte (UP 0x01, UV 0x04, BE 0x08, BS 0x10); null for a passkey the field registered before it kept them. */
  readonly flags: number | null;
}

export interface FieldApiKey {
  readonly id: number;
  readonly user_id: number;
  readonly key_hash: string;
  readonly prefix: string;
  readonly label: string | null;
  readonly enabled: number;
  readonly created_at: number;
  readonly last_used_at: number | null;
  readonly expires_at: number | null;
}

/** One reading as a positional row, the cheapest shape to stream a million of. */
export type FieldReading = [
  id: number,
  platform: string,
  region: string,
  survivor: number,
  killer: number,
  ratio: number,
  version: string | null,
  category: string | null,
  refreshTimeSeconds: number | null,
  measuredAt: number,
  agentId: number | null,
];

/**
 * Opens an existing SQLite file to read it only. A read-write handle with
 * `query_only` is preferred: a read-only one cannot remove the `-wal` and
 * `-shm` files it makes, and would leave them beside the file. Where the
 * file or its folder cannot be written, read-only it is.
 */
export function openForReading(path: string): Database {
  let sqlite: Database;
  try {
    sqlite = new Database(path, { readwrite: true, create: false, strict: true });
  } catch {
    return new Database(path, { readonly: true, strict: true });
  }
  sqlite.exec("PRAGMA query_only = ON");
  return sqlite;
}

/**
 * Whether a file is the field hub's database (its `webauthn_credentials`
 * table and no migration list of ours), so that pointing this hub's database
 * setting at it (the field's `dbPath`) is caught before anything is written.
 */
export function isFieldDatabase(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isFile()) return false;
  let sqlite: Database | null = null;
  try {
    sqlite = openForReading(path);
    const tables = new Set(sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((t) => t.name));
    return tables.has("webauthn_credentials") && tables.has("app_settings") && !tables.has("schema_migrations");
  } catch {
    return false;
  } finally {
    sqlite?.close();
  }
}

export class FieldSource {
  private constructor(
    readonly path: string,
    private readonly sqlite: Database,
    readonly schemaVersion: number,
  ) {}

  /** Opens the file read-only and checks it is the field hub's database, of a schema this importer knows. */
  static open(path: string): FieldSource {
    if (!existsSync(path)) throw new FieldSourceError(`${path} does not exist`);
    if (!statSync(path).isFile()) throw new FieldSourceError(`${path} is not a file`);
    let sqlite: Database;
    try {
      sqlite = openForReading(path);
    } catch (error) {
      throw new FieldSourceError(`${path} cannot be opened as SQLite: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      const version = FieldSource.check(path, sqlite);
      return new FieldSource(path, sqlite, version);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }

  private static check(path: string, sqlite: Database): number {
    const notField = `${path} is not the database of the field's hub (bloodpoint-incentives)`;
    let version: number;
    try {
      version = sqlite.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
    } catch {
      throw new FieldSourceError(`${notField}: it is not a SQLite file`);
    }
    if (version > FIELD_SCHEMA_VERSION) {
      throw new FieldSourceError(
        `${path} has schema version ${version} of the field's hub, newer than the ${FIELD_SCHEMA_VERSION} this importer knows; use a newer hub, or export from a field hub of that version`,
      );
    }
    for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
      const present = new Set(sqlite.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => c.name));
      const missing = columns.filter((c) => !present.has(c));
      if (present.size === 0) throw new FieldSourceError(`${notField}: it has no ${table} table`);
      if (missing.length > 0) throw new FieldSourceError(`${notField}: its ${table} table lacks ${missing.join(", ")}`);
    }
    if (version < 1) throw new FieldSourceError(`${notField}: its user_version is 0, so the field's migrations never ran on it`);
    return version;
  }

  close(): void {
    this.sqlite.close();
  }

  agents(): FieldAgent[] {
    return this.sqlite
      .query<FieldAgent, []>("SELECT id, provision_id, token_hash, region, provider, label, enabled, poll_min, poll_max, created_at, updated_at FROM agents ORDER BY id")
      .all();
  }

  users(): FieldUser[] {
    // totp_last_step came with the field's migration 3; before it no step was recorded.
    const lastStep = this.schemaVersion >= 3 ? "totp_last_step" : "0";
    return this.sqlite
      .query<FieldUser, []>(
        `SELECT id, username, email, name, password_hash, role, totp_secret, ${lastStep} AS totp_last_step, enabled, created_at, updated_at, last_login_at FROM users ORDER BY id`,
      )
      .all();
  }

  passkeys(): FieldPasskey[] {
    // flags came with the field's migration 4; before it none were kept.
    const flags = this.schemaVersion >= 4 ? "flags" : "NULL";
    return this.sqlite
      .query<FieldPasskey, []>(`SELECT id, user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at, ${flags} AS flags FROM webauthn_credentials ORDER BY id`)
      .all();
  }

  apiKeys(): FieldApiKey[] {
    return this.sqlite
      .query<FieldApiKey, []>("SELECT id, user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at FROM api_keys ORDER BY id")
      .all();
  }

  settings(): Map<string, string> {
    return new Map(this.sqlite.query<{ key: string; value: string }, []>("SELECT key, value FROM app_settings").all().map((r) => [r.key, r.value]));
  }

  readingCount(): number {
    return this.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
  }

  /** The first and last measuring time of the readings, or null when there are none. */
  readingRange(): { min: number; max: number } | null {
    const row = this.sqlite.query<{ min: number | null; max: number | null }, []>("SELECT MIN(measured_at) AS min, MAX(measured_at) AS max FROM readings").get();
    return row && row.min !== null && row.max !== null ? { min: row.min, max: row.max } : null;
  }

  /** Each (platform, region) the readings name, to be checked against this hub's catalogue before anything is copied. */
  readingSlots(): { platform: string; region: string; n: number }[] {
    return this.sqlite.query<{ platform: string; region: string; n: number }, []>("SELECT platform, region, COUNT(*) AS n FROM readings GROUP BY platform, region").all();
  }

  /** The readings in id order, `batch` at a time, so a large file never sits in memory whole. */
  *readingBatches(batch: number): Generator<FieldReading[]> {
    const query = this.sqlite.query<FieldReading, [number, number]>(
      "SELECT id, platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, agent_id FROM readings WHERE id > ? ORDER BY id LIMIT ?",
    );
    let after = -1;
    for (;;) {
      const rows = query.values(after, batch) as FieldReading[];
      if (rows.length === 0) return;
      yield rows;
      after = rows[rows.length - 1]?.[0] ?? after;
    }
  }
}
