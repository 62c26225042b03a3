-- SPEC §18: outbound webhooks, their durable outbox, and what the hub must
-- remember so that a condition fires when it becomes true, once.
--
-- Webhook and delivery ids are AUTOINCREMENT (SPEC §11.5b): an audit row never
-- points at a stranger, and a delivery id, which receivers see as webhook-id
-- and use to drop duplicates, is never handed out twice.

CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  format TEXT NOT NULL CHECK (format IN ('json', 'discord', 'slack', 'ntfy')),
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  -- JSON arrays of platform and region ids, NULL for all
  platforms TEXT,
  regions TEXT,
  -- JSON array, a subset of ["survivor", "killer"]
  roles TEXT NOT NULL,
  -- NULL: no bonus alerts
  min_bonus INTEGER CHECK (min_bonus BETWEEN 0 AND 1000),
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

-- The outbox. A row is written in the same transaction as the change that
-- caused it, and is `delivered` only after the receiver answered 2xx.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('bonus.reached', 'status.changed', 'event.started', 'event.ended', 'test')),
  -- the message as JSON { type, timestamp, data }, fixed when written so every retry sends the same body
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  last_status_code INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  delivered_at INTEGER,
  -- set while pending
  next_attempt_at INTEGER
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_created ON webhook_deliveries (created_at);

-- Bonus conditions that hold and have fired: a row per webhook, platform,
-- region and role. A condition fires when its row is written and re-arms when
-- the row is deleted; both happen in the transaction of the reading.
CREATE TABLE webhook_conditions (
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  platform TEXT NOT NULL,
  region TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('survivor', 'killer')),
  PRIMARY KEY (webhook_id, platform, region, role)
) WITHOUT ROWID;

-- Per platform, the status and active event last turned into deliveries, so
-- a change is announced once, including one that happened while the hub was down.
CREATE TABLE alert_platform_state (
  platform TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  -- JSON of the event in force { key, label, multiplier, startsAt, endsAt }, NULL for none
  active_event TEXT,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
