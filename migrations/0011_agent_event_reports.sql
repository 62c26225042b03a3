-- SPEC §16.3: an admin may ignore an agent's event reports, and disabling,
-- deleting or ignoring an agent withdraws the schedule entries only it
-- reported. `event_reports` is accepted or ignored; `event_reporters` names
-- every agent whose report held an entry of the agents' schedule (an entry
-- is withdrawn when the last agent vouching for it is).
ALTER TABLE agents ADD COLUMN event_reports TEXT NOT NULL DEFAULT 'accepted';
CREATE TABLE event_reporters (
  event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  agent_id INTEGER NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  PRIMARY KEY (event_id, agent_id)
) WITHOUT ROWID;
CREATE INDEX event_reporters_agent ON event_reporters (agent_id);
-- Until now each entry named only the agent that reported it last.
INSERT INTO event_reporters (event_id, agent_id)
  SELECT id, agent_id FROM events WHERE source = 'agent' AND seen = 0 AND agent_id IS NOT NULL;
