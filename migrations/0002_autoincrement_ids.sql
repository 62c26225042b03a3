-- SPEC §11.5b: ids of agents, users, API keys, passkeys and events are never
-- reused, even after the newest row is deleted, so an audit row or an orphaned
-- reading never points at a stranger. Only AUTOINCREMENT promises that, and
-- SQLite cannot add it to an existing table: each of those tables is rebuilt
-- with every row, and with the columns, defaults, checks, foreign keys and
-- indexes of 0001_init.sql unchanged.
--
-- Migrations run inside a transaction with foreign keys on, and PRAGMA
-- foreign_keys cannot be switched off inside a transaction: dropping a parent
-- table while its children exist would delete its rows one by one, cascading
-- into sessions, api_keys, passkeys and trusted_devices and detaching every
-- reading from its agent. So every table of the rebuild is first copied aside,
-- children are dropped before their parents, and all are created again and
-- refilled, parents first. Children that keep plain ids (sessions,
-- trusted_devices, readings) are rebuilt only because their parents are.
--
-- The copies are plain tables of the main database, not ALTER TABLE RENAME:
-- a rename opens the connection's temp database, after which a later
-- unqualified PRAGMA journal_mode switch on that connection (as the history
-- backfill makes) leaves its next WAL checkpoint locked.

-- Aside, as they are.
CREATE TABLE users_0001 AS SELECT * FROM users;
CREATE TABLE sessions_0001 AS SELECT * FROM sessions;
CREATE TABLE api_keys_0001 AS SELECT * FROM api_keys;
CREATE TABLE passkeys_0001 AS SELECT * FROM passkeys;
CREATE TABLE trusted_devices_0001 AS SELECT * FROM trusted_devices;
CREATE TABLE agents_0001 AS SELECT * FROM agents;
CREATE TABLE readings_0001 AS SELECT * FROM readings;
CREATE TABLE events_0001 AS SELECT * FROM events;

-- Children before parents, so that no drop deletes or detaches a row elsewhere.
DROP TABLE sessions;
DROP TABLE api_keys;
DROP TABLE passkeys;
DROP TABLE trusted_devices;
DROP TABLE readings;
DROP TABLE users;
DROP TABLE agents;
DROP TABLE events;

-- Again, parents first; each table's indexes after its rows.

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  name TEXT,
  email TEXT,
  role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  password_hash TEXT,
  totp_secret TEXT,
  totp_enabled INTEGER NOT NULL DEFAULT 0 CHECK (totp_enabled IN (0, 1)),
  totp_last_step INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_login_at INTEGER
);
INSERT INTO users (id, username, username_key, name, email, role, enabled, password_hash, totp_secret, totp_enabled, totp_last_step, created_at, updated_at, last_login_at)
  SELECT id, username, username_key, name, email, role, enabled, password_hash, totp_secret, totp_enabled, totp_last_step, created_at, updated_at, last_login_at
  FROM users_0001;

CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  auth_level TEXT NOT NULL CHECK (auth_level IN ('password', 'mfa')),
  csrf_token TEXT NOT NULL,
  -- a pending WebAuthn or TOTP-enrolment challenge, single use
  challenge TEXT,
  challenge_kind TEXT,
  challenge_expires_at INTEGER,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at)
  SELECT id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at
  FROM sessions_0001;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
  prefix TEXT NOT NULL,
  label TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  expires_at INTEGER
);
INSERT INTO api_keys (id, user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at)
  SELECT id, user_id, key_hash, prefix, label, enabled, created_at, last_used_at, expires_at
  FROM api_keys_0001;
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE passkeys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key BLOB NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT,
  label TEXT,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at)
  SELECT id, user_id, credential_id, public_key, counter, transports, label, created_at, last_used_at
  FROM passkeys_0001;
CREATE INDEX passkeys_user ON passkeys (user_id);

CREATE TABLE trusted_devices (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_used_at INTEGER
);
INSERT INTO trusted_devices (id, user_id, token_hash, created_at, expires_at, last_used_at)
  SELECT id, user_id, token_hash, created_at, expires_at, last_used_at
  FROM trusted_devices_0001;
CREATE INDEX trusted_devices_user ON trusted_devices (user_id);

CREATE TABLE agents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  provider TEXT NOT NULL CHECK (provider IN ('steam', 'epic', 'grdk')),
  platform TEXT NOT NULL CHECK (platform IN ('Windows', 'EGS', 'GRDK')),
  region TEXT NOT NULL,
  label TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  source TEXT NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'provisioned', 'imported')),
  provision_id TEXT UNIQUE,
  poll_min TEXT,
  poll_max TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO agents (id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at)
  SELECT id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at
  FROM agents_0001;
CREATE INDEX agents_slot ON agents (platform, region);

CREATE TABLE readings (
  id INTEGER PRIMARY KEY,
  platform TEXT NOT NULL,
  region TEXT NOT NULL,
  survivor INTEGER NOT NULL,
  killer INTEGER NOT NULL,
  ratio REAL NOT NULL,
  version TEXT,
  category TEXT,
  refresh_time_seconds REAL,
  measured_at INTEGER NOT NULL,
  received_at INTEGER NOT NULL,
  agent_id INTEGER REFERENCES agents (id) ON DELETE SET NULL,
  -- the bloodpoint event the agent saw, as JSON { key, label, multiplier, startsAt, endsAt }
  active_event TEXT
);
INSERT INTO readings (id, platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event)
  SELECT id, platform, region, survivor, killer, ratio, version, category, refresh_time_seconds, measured_at, received_at, agent_id, active_event
  FROM readings_0001;
CREATE INDEX readings_slot_time ON readings (platform, region, measured_at);
CREATE INDEX readings_time ON readings (measured_at);
CREATE INDEX readings_agent ON readings (agent_id, measured_at);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL,
  label TEXT NOT NULL,
  multiplier REAL NOT NULL CHECK (multiplier > 0),
  starts_at INTEGER NOT NULL,
  ends_at INTEGER NOT NULL CHECK (ends_at > starts_at),
  -- JSON array of platform ids, NULL for all platforms
  platforms TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO events (id, key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at)
  SELECT id, key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at
  FROM events_0001;
CREATE INDEX events_window ON events (ends_at, starts_at);

DROP TABLE users_0001;
DROP TABLE sessions_0001;
DROP TABLE api_keys_0001;
DROP TABLE passkeys_0001;
DROP TABLE trusted_devices_0001;
DROP TABLE agents_0001;
DROP TABLE readings_0001;
DROP TABLE events_0001;

-- The next id of each table is above every id it ever gave out that is still
-- known: its rows, and the targets the audit log names (a deleted newest row
-- left only its audit entry behind). Passkeys are not audited by id.
DELETE FROM sqlite_sequence WHERE name IN ('users', 'api_keys', 'passkeys', 'agents', 'events');
INSERT INTO sqlite_sequence (name, seq) VALUES
  ('users', MAX(
    (SELECT COALESCE(MAX(id), 0) FROM users),
    (SELECT COALESCE(MAX(CAST(substr(target, 6) AS INTEGER)), 0) FROM audit_log WHERE target GLOB 'user:[0-9]*'))),
  ('api_keys', MAX(
    (SELECT COALESCE(MAX(id), 0) FROM api_keys),
    (SELECT COALESCE(MAX(CAST(substr(target, 8) AS INTEGER)), 0) FROM audit_log WHERE target GLOB 'apikey:[0-9]*'))),
  ('passkeys', (SELECT COALESCE(MAX(id), 0) FROM passkeys)),
  ('agents', MAX(
    (SELECT COALESCE(MAX(id), 0) FROM agents),
    (SELECT COALESCE(MAX(CAST(substr(target, 7) AS INTEGER)), 0) FROM audit_log WHERE target GLOB 'agent:[0-9]*'))),
  ('events', MAX(
    (SELECT COALESCE(MAX(id), 0) FROM events),
    (SELECT COALESCE(MAX(CAST(substr(target, 7) AS INTEGER)), 0) FROM audit_log WHERE target GLOB 'event:[0-9]*')));
