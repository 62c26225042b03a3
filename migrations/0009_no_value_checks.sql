-- Issue 27: the database does not repeat the application's vocabularies.
-- A CHECK listing the webhook formats, roles, audit `via` values, platforms,
-- providers, agent sources, session levels, delivery types or delivery states
-- made each new value a table rebuild; the application already validates
-- every one of them (TypeBox at the API, typed code behind it). This rebuilds
-- the seven tables that carry such a list without it, and with nothing else
-- changed: the same columns in the same order, defaults, NOT NULL, primary
-- keys, UNIQUE, foreign keys, indexes, rows and AUTOINCREMENT counters.
--
-- Decided, CHECK by CHECK:
-- - gone: agents.provider, agents.platform, agents.source, users.role,
--   sessions.auth_level, audit_log.via, webhooks.format,
--   webhook_deliveries.type, webhook_deliveries.status, webhook_conditions.role
--   (vocabularies), and webhooks.min_bonus BETWEEN 0 AND 1000: the bonus
--   range is the application's rule (MIN_BONUS_RANGE, a 400 at the API), and
--   widening it must not need a rebuild either;
-- - kept: `IN (0, 1)` on boolean columns (the stored form of a boolean, not a
--   list that can grow), length(...) = 64 on token and key hashes (the stored
--   form of a SHA-256 digest), and events' multiplier > 0 and ends_at >
--   starts_at (what an event is). None of those names a value a feature adds,
--   and they sit on tables this migration does not otherwise need to rebuild
--   (events, api_keys, trusted_devices, readings).
--
-- The runner applies migrations with foreign keys off and checks them before
-- committing (src/db/open.ts), as SQLite's table rebuild requires: so only
-- these seven tables are rebuilt, and their children (readings, events,
-- api_keys, passkeys, trusted_devices) keep their rows and references as they
-- are. As in 0002, copies are plain tables of the main database rather than
-- ALTER TABLE RENAME, which opens the connection's temp database.
--
-- Dropping an AUTOINCREMENT table forgets its counter, and refilling the new
-- table would set it to the largest id left, which is below the counter once
-- the newest rows were deleted: the counters are kept aside and put back, so
-- no id is ever handed out twice.

CREATE TABLE sequence_0009 AS
  SELECT name, seq FROM sqlite_sequence WHERE name IN ('agents', 'users', 'webhooks', 'webhook_deliveries');

CREATE TABLE agents_0009 AS SELECT * FROM agents;
CREATE TABLE users_0009 AS SELECT * FROM users;
CREATE TABLE sessions_0009 AS SELECT * FROM sessions;
CREATE TABLE audit_log_0009 AS SELECT * FROM audit_log;
CREATE TABLE webhooks_0009 AS SELECT * FROM webhooks;
CREATE TABLE webhook_deliveries_0009 AS SELECT * FROM webhook_deliveries;
CREATE TABLE webhook_conditions_0009 AS SELECT * FROM webhook_conditions;

DROP TABLE agents;
DROP TABLE users;
DROP TABLE sessions;
DROP TABLE audit_log;
DROP TABLE webhooks;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_conditions;

CREATE TABLE agents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  token_hash TEXT NOT NULL UNIQUE CHECK (length(token_hash) = 64),
  provider TEXT NOT NULL,
  platform TEXT NOT NULL,
  region TEXT NOT NULL,
  label TEXT,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  source TEXT NOT NULL DEFAULT 'manual',
  provision_id TEXT UNIQUE,
  poll_min TEXT,
  poll_max TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
INSERT INTO agents (id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at)
  SELECT id, token_hash, provider, platform, region, label, enabled, source, provision_id, poll_min, poll_max, created_at, updated_at
  FROM agents_0009;
CREATE INDEX agents_slot ON agents (platform, region);

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  username_key TEXT NOT NULL UNIQUE,
  name TEXT,
  email TEXT,
  role TEXT NOT NULL,
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
  FROM users_0009;

CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  auth_level TEXT NOT NULL,
  csrf_token TEXT NOT NULL,
  -- a pending WebAuthn or TOTP-enrolment challenge, single use
  challenge TEXT,
  challenge_kind TEXT,
  challenge_expires_at INTEGER,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  authenticated_at INTEGER NOT NULL DEFAULT 0,
  from_setup INTEGER NOT NULL DEFAULT 0 CHECK (from_setup IN (0, 1))
) WITHOUT ROWID;
INSERT INTO sessions (id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at, authenticated_at, from_setup)
  SELECT id_hash, user_id, auth_level, csrf_token, challenge, challenge_kind, challenge_expires_at, created_at, last_seen_at, expires_at, authenticated_at, from_setup
  FROM sessions_0009;
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  actor_user_id INTEGER,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  target TEXT,
  detail TEXT,
  via TEXT
);
INSERT INTO audit_log (id, at, actor_user_id, actor, action, target, detail, via)
  SELECT id, at, actor_user_id, actor, action, target, detail, via
  FROM audit_log_0009;
CREATE INDEX audit_log_at ON audit_log (at);

CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  format TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  -- JSON arrays of platform and region ids, NULL for all
  platforms TEXT,
  regions TEXT,
  -- JSON array, a subset of ["survivor", "killer"]
  roles TEXT NOT NULL,
  -- NULL: no bonus alerts
  min_bonus INTEGER,
  on_status INTEGER NOT NULL DEFAULT 0 CHECK (on_status IN (0, 1)),
  on_events INTEGER NOT NULL DEFAULT 0 CHECK (on_events IN (0, 1)),
  -- the signing secret, AES-256-GCM under a key derived from the hub's key
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_delivery_at INTEGER,
  failing_since INTEGER,
  disabled_reason TEXT
);
INSERT INTO webhooks (id, url, format, enabled, platforms, regions, roles, min_bonus, on_status, on_events, secret, created_at, updated_at, last_delivery_at, failing_since, disabled_reason)
  SELECT id, url, format, enabled, platforms, regions, roles, min_bonus, on_status, on_events, secret, created_at, updated_at, last_delivery_at, failing_since, disabled_reason
  FROM webhooks_0009;

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  -- the message as JSON { type, timestamp, data }, fixed when written so every retry sends the same body
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  -- set while pending
  next_attempt_at INTEGER,
  message_id TEXT NOT NULL DEFAULT ''
);
INSERT INTO webhook_deliveries (id, webhook_id, type, payload, status, attempts, last_status_code, last_error, created_at, delivered_at, next_attempt_at, message_id)
  SELECT id, webhook_id, type, payload, status, attempts, last_status_code, last_error, created_at, delivered_at, next_attempt_at, message_id
  FROM webhook_deliveries_0009;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);
CREATE UNIQUE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);

CREATE TABLE webhook_conditions (
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  region TEXT NOT NULL,
  role TEXT NOT NULL,
  PRIMARY KEY (webhook_id, platform, region, role)
) WITHOUT ROWID;
INSERT INTO webhook_conditions (webhook_id, platform, region, role)
  SELECT webhook_id, platform, region, role
  FROM webhook_conditions_0009;

DROP TABLE agents_0009;
DROP TABLE users_0009;
DROP TABLE sessions_0009;
DROP TABLE audit_log_0009;
DROP TABLE webhooks_0009;
DROP TABLE webhook_deliveries_0009;
DROP TABLE webhook_conditions_0009;

-- Every counter as it was: never below the largest id copied back, so putting it back only ever raises it.
DELETE FROM sqlite_sequence WHERE name IN ('agents', 'users', 'webhooks', 'webhook_deliveries');
INSERT INTO sqlite_sequence (name, seq) SELECT name, seq FROM sequence_0009;
DROP TABLE sequence_0009;
