/**
 * A database of the field's hub (Buco7854/bloodpoint-incentives), made the
 * way it makes one: its four migrations, in order, each followed by
 * `PRAGMA user_version`, and rows in its exact formats (scrypt
 * `scrypt$N$r$p$salt$hash` in standard base64, SHA-256 hex token hashes,
 * `bpi_` API keys, plaintext base32 TOTP secrets, base64url passkey ids and
 * COSE keys, JSON transports, epoch-millisecond times).
 */
import { Database } from "bun:sqlite";
import { createHash, randomBytes, scryptSync } from "node:crypto";
import * as OTPAuth from "otpauth";
import { SoftwareAuthenticator } from "./authenticator.ts";

export const FIELD_MIGRATIONS = [
  `CREATE TABLE IF NOT EXISTS readings (
    id INTEGER PRIMARY KEY AUTOINCREMENT, platform TEXT NOT NULL, region TEXT NOT NULL,
    survivor INTEGER NOT NULL, killer INTEGER NOT NULL, ratio REAL NOT NULL,
    version TEXT, category TEXT, refresh_time_seconds INTEGER, measured_at INTEGER NOT NULL, agent_id INTEGER);
  CREATE INDEX IF NOT EXISTS readings_group_time ON readings (platform, region, measured_at);
  CREATE INDEX IF NOT EXISTS readings_agent ON readings (agent_id);
  CREATE TABLE IF NOT EXISTS agents (
    id INTEGER PRIMARY KEY AUTOINCREMENT, provision_id TEXT UNIQUE, token_hash TEXT NOT NULL UNIQUE,
    region TEXT NOT NULL, provider TEXT NOT NULL, platform TEXT NOT NULL, label TEXT,
    enabled INTEGER NOT NULL DEFAULT 1, source TEXT NOT NULL, poll_min TEXT, poll_max TEXT,
    created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS agents_token ON agents (token_hash);
  CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL UNIQUE, email TEXT, name TEXT,
    password_hash TEXT, role TEXT NOT NULL DEFAULT 'user', totp_secret TEXT,
    enabled INTEGER NOT NULL DEFAULT 1, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, last_login_at INTEGER);
  CREATE TABLE IF NOT EXISTS webauthn_credentials (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL, credential_id TEXT NOT NULL UNIQUE,
    public_key TEXT NOT NULL, counter INTEGER NOT NULL, transports TEXT, label TEXT,
    created_at INTEGER NOT NULL, last_used_at INTEGER);
  CREATE INDEX IF NOT EXISTS webauthn_by_user ON webauthn_credentials (user_id);
  CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, user_id INTEGER NOT NULL, auth_level TEXT NOT NULL, csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id);
  CREATE TABLE IF NOT EXISTS api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL, key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL, label TEXT, enabled INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL, last_used_at INTEGER, expires_at INTEGER);
  CREATE INDEX IF NOT EXISTS api_keys_by_user ON api_keys (user_id);
  CREATE TABLE IF NOT EXISTS app_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  `CREATE TABLE IF NOT EXISTS trusted_devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL, token_hash TEXT NOT NULL UNIQUE,
    label TEXT, created_at INTEGER NOT NULL, last_used_at INTEGER, expires_at INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS trusted_devices_by_user ON trusted_devices (user_id);`,
  `ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX IF NOT EXISTS readings_measured_at ON readings (measured_at);`,
  `ALTER TABLE webauthn_credentials ADD COLUMN flags INTEGER;`,
] as const;

/** The flags the field's hub stores for a synced passkey (as its own test has them): UP 0x01 | UV 0x04 | BE 0x08 | BS 0x10. */
export const FIELD_SYNCED_PASSKEY_FLAGS = 29;

/** The field's own password hash: scrypt N=16384, r=8, p=1, 64 bytes, 16-byte salt. */
export function fieldPasswordHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 64, { N: 16384, r: 8, p: 1 });
  return ["scrypt", "16384", "8", "1", salt.toString("base64"), key.toString("base64")].join("$");
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The field's token: 64 random bytes, base64url without padding. */
export function fieldToken(): string {
  return randomBytes(64).toString("base64url");
}

export interface FieldFixture {
  readonly path: string;
  readonly admin: { username: string; password: string; totp: OTPAuth.TOTP; authenticator: SoftwareAuthenticator };
  readonly user: { username: string; password: string; apiKey: string };
  readonly agents: { eu: string; us: string };
  readonly readings: number;
  /** The newest reading of Windows/eu-central-1, epoch ms. */
  readonly newestEu: number;
}

export function createFieldSchema(path: string, version: number = FIELD_MIGRATIONS.length): Database {
  const sqlite = new Database(path, { create: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  FIELD_MIGRATIONS.slice(0, version).forEach((sql, i) => {
    sqlite.transaction(() => {
      sqlite.exec(sql);
      sqlite.exec(`PRAGMA user_version = ${i + 1}`);
    })();
  });
  return sqlite;
}

/**
 * The field hub of a small community: an admin with TOTP and a passkey, a
 * user with an API key, two agents (one provisioned, one added by hand and
 * switched off), `readings` readings over the last days, and its settings.
 */
export async function createFieldDb(path: string, options: { readings?: number; origin: string }): Promise<FieldFixture> {
  const sqlite = createFieldSchema(path);
  const now = Date.now();
  // A synced passkey (a password manager's), so that its backup flags have something to carry.
  const admin = { username: "Alice", password: "correct horse battery staple", authenticator: new SoftwareAuthenticator(options.origin, { eligible: true, backedUp: true }) };
  const totpSecret = new OTPAuth.Secret({ size: 20 }).base32;
  const totp = new OTPAuth.TOTP({ algorithm: "SHA1", digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(totpSecret) });
  const user = { username: "bob", password: "bobs-old-password-123", apiKey: `bpi_${fieldToken()}` };
  const agents = { eu: fieldToken(), us: fieldToken() };
  const cose = await admin.authenticator.newCoseKey();
  const count = options.readings ?? 500;
  let newestEu = 0;
  sqlite.transaction(() => {
    const day = 86_400_000;
    const insertUser = sqlite.query(
      "INSERT INTO users (username, email, name, password_hash, role, totp_secret, enabled, created_at, updated_at, last_login_at, totp_last_step) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)",
    );
    insertUser.run(admin.username, "alice@example.org", "Alice A.", fieldPasswordHash(admin.password), "admin", totpSecret, now - 90 * day, now - 2 * day, now - day, 0);
    insertUser.run(user.username, null, "Bob", fieldPasswordHash(user.password), "user", null, now - 60 * day, now - 60 * day, null, 0);
    sqlite
      .query("INSERT INTO webauthn_credentials (user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at, flags) VALUES (1, ?, ?, 0, ?, ?, ?, NULL, ?)")
      .run(admin.authenticator.id, Buffer.from(cose).toString("base64url"), JSON.stringify(["internal"]), "laptop", now - 30 * day, FIELD_SYNCED_PASSKEY_FLAGS);
    sqlite
      .query("INSERT INTO api_keys (user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at) VALUES (2, ?, ?, 'grafana', 1, ?, NULL, NULL)")
      .run(sha256(user.apiKey), user.apiKey.slice(0, 12), now - 20 * day);
    sqlite.query("INSERT INTO sessions (id, user_id, auth_level, csrf_token, created_at, expires_at, last_seen_at) VALUES (?, 1, 'mfa', 'csrf', ?, ?, ?)").run(sha256("old-session"), now, now + day, now);
    sqlite.query("INSERT INTO trusted_devices (user_id, token_hash, label, created_at, expires_at) VALUES (1, ?, 'laptop', ?, ?)").run(sha256("old-device"), now, now + 30 * day);
    const insertAgent = sqlite.query(
      "INSERT INTO agents (provision_id, token_hash, region, provider, platform, label, enabled, source, poll_min, poll_max, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    insertAgent.run("eu-1", sha256(agents.eu), "eu-central-1", "steam", "Windows", "Frankfurt box", 1, "provisioned", "%refreshTime%", "%refreshTime% * 1.33", now - 90 * day, now - day);
    insertAgent.run(null, sha256(agents.us), "us-east-1", "epic", "EGS", null, 0, "manual", "600", null, now - 80 * day, now - day);
    const insertReading = sqlite.query(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, agent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    // Spread over the last 20 days, inside every retention window, the newest a minute ago.
    const span = 20 * day;
    for (let i = 0; i < count; i++) {
      const at = now - 60_000 - Math.floor(((count - 1 - i) * span) / Math.max(1, count - 1));
      const eu = i % 2 === 0;
      if (eu) newestEu = at;
      insertReading.run(eu ? "Windows" : "EGS", eu ? "eu-central-1" : "us-east-1", eu ? 0 : 50, eu ? 100 : 0, 1 + (i % 7) / 10, "9.2.0", "live", 180, at, eu ? 1 : 2);
    }
    const setting = sqlite.query("INSERT INTO app_settings (key, value) VALUES (?, ?)");
    setting.run("require_auth", "false");
    setting.run("enable_api_keys", "true");
    setting.run("mfa_enforced_roles", JSON.stringify(["admin"]));
    setting.run("mfa_policy_chosen", "true");
  })();
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();
  return { path, admin: { ...admin, totp }, user, agents, readings: count, newestEu };
}

/** Every key the field's hub reads from its file (its internal/config/yaml.go), with a value unlike our default. */
export const FIELD_YAML = `# the field's hub.example.yaml, every key set
logLevel: debug
tz: Europe/Berlin
port: 3123
contactEmail: \${CONTACT_EMAIL:-ops@example.org}
trustedProxies: "10.0.0.0/8"
pageSize: 12
staleAfterSeconds: 600
dbPath: \${DATA_DIR:-./data}/bloodpoint-hub.db
dataRetentionDays: 45
forecastWindowDays: 56
contributeEnabled: true
seoEnabled: true
enableApiKeys: true
agentSetupUrl: https://github.com/Buco7854/bloodpoint-incentives#running-an-agent
discordUrl: https://discord.gg/example
matrixUrl: https://matrix.to/#/#bloodpoints:example.org
corsAllowedOrigins:
  - https://dash.example.org
auth:
  sessionSecret: \${SESSION_SECRET:-a-session-secret-of-at-least-32-characters}
  origin: \${ORIGIN:-https://incentives.example.org}
  rpId: incentives.example.org
  rpName: Bloodpoint Incentives
  cookieSecure: true
  sessionTtlHours: 72
  requireAuth: true
  enableApiKeys: true
  bootstrap:
    username: admin
    password: \${ADMIN_BOOTSTRAP_PASSWORD:-first-admin-password}
    email: admin@example.org
    name: Admin
poll:
  min: "%refreshTime%"
  max: "%refreshTime% * 1.5"
provision:
  - id: eu-1
    token: \${AGENT_EU_1_TOKEN:-eu-1-token-abcdefghijklmnop}
    region: eu-central-1
    provider: steam
`;
