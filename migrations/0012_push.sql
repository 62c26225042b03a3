-- Web Push (SPEC §23). The VAPID key pair, one row, its private half sealed
-- under the hub's key; the subscriptions, each with its rules and the hash of
-- its manage token; and the push outbox: a batch row written in the
-- transaction of the reading (or the event) that fired rules, expanded later
-- into one delivery row per subscription, so the reading's transaction stays
-- one insert however many subscriptions it reaches.
CREATE TABLE push_keys (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  public_key TEXT NOT NULL,
  private_key TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE push_subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  public_id TEXT NOT NULL UNIQUE,
  endpoint TEXT NOT NULL,
  endpoint_hash TEXT NOT NULL UNIQUE,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  token_hash TEXT NOT NULL,
  lang TEXT NOT NULL,
  events INTEGER NOT NULL,
  rules TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  failing_since INTEGER,
  failure TEXT
);

CREATE TABLE push_batches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  platform TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE push_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
  message TEXT NOT NULL,
  topic TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  status_code INTEGER,
  finished_at INTEGER
);

CREATE INDEX push_deliveries_due ON push_deliveries (status, next_attempt_at);
CREATE INDEX push_deliveries_finished ON push_deliveries (finished_at);
