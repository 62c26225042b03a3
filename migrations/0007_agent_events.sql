-- SPEC §9.1 and §11.6: agents report the game's Bloodpoint-event schedule.
-- Those events live beside the admins' in `events`, told apart by `source`;
-- `agent_id` names the agent that reported one (NULL for admin events, and
-- once that agent is deleted). The whole agent schedule is replaced by each
-- report, so its rows come and go.
ALTER TABLE events ADD COLUMN source TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE events ADD COLUMN agent_id INTEGER REFERENCES agents (id) ON DELETE SET NULL;
-- An agent event seen only in a reading's activeEvent (for that reading's
-- platform), not on the schedule: kept so an admin can list and hide it; the
-- payloads still take such events from the live readings, and reports never
-- replace these rows.
ALTER TABLE events ADD COLUMN seen INTEGER NOT NULL DEFAULT 0 CHECK (seen IN (0, 1));
CREATE INDEX events_source ON events (source, key, starts_at);

-- Agent events an admin hid, by key and start: apart from the events
-- themselves, so a hidden event stays hidden however often it is reported
-- again, also after a report that left it out, and wherever it is seen (a
-- reading's activeEvent included).
CREATE TABLE hidden_events (
  key TEXT NOT NULL,
  starts_at INTEGER NOT NULL,
  hidden_at INTEGER NOT NULL,
  PRIMARY KEY (key, starts_at)
) WITHOUT ROWID;
