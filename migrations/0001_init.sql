-- The whole schema of SPEC §5. Times are epoch milliseconds.

CREATE TABLE agents (
  id INTEGER PRIMARY KEY,
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
CREATE INDEX readings_slot_time ON readings (platform, region, measured_at);
CREATE INDEX readings_time ON readings (measured_at);
CREATE INDEX readings_agent ON readings (agent_id, measured_at);

-- The game's refresh interval last reported per (platform, region); drives %refreshTime%.
CREATE TABLE slot_state (
  platform TEXT NOT NULL,
  region TEXT NOT NULL,
  refresh_time_seconds REAL NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (platform, region)
) WITHOUT ROWID;

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
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
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE CHECK (length(key_hash) = 64),
  prefix TEXT NOT NULL,
  label TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  expires_at INTEGER
);
CREATE INDEX api_keys_user ON api_keys (user_id);

CREATE TABLE passkeys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL UNIQUE,
  public_key BLOB NOT NULL,
  counter INTEGER NOT NULL DEFAULT 0,
  transports TEXT,
  label TEXT,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX passkeys_user ON passkeys (user_id);

CREATE TABLE trusted_devices (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX trusted_devices_user ON trusted_devices (user_id);

-- Runtime settings (requireAuth, enableApiKeys, mfaEnforcedRoles, mfaPolicyChosen) as JSON values.
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
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
CREATE INDEX events_window ON events (ends_at, starts_at);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor_user_id INTEGER,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT,
  detail TEXT
);
CREATE INDEX audit_log_at ON audit_log (at);
