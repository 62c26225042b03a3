/**
 * Withdrawing an agent's word on the schedule (SPEC §16.3): when an agent is
 * disabled, deleted or its event reports ignored, the entries of the agents'
 * schedule that only it reported go; an entry another agent also reported
 * stays (now in that agent's name). Admin events stay, and so do the rows
 * of events seen in readings: those stop counting in the live store while
 * their agent does not vouch for them (src/live/store.ts).
 */
import type { HubDb } from "../db/open.ts";

/**
 * Runs inside the caller's transaction, beside the change to the agent; the
 * caller reloads the event book and the payloads after it commits. Returns
 * how many entries were withdrawn.
 */
export function withdrawAgentEvents(db: HubDb, agentId: number): number {
  const { sqlite } = db;
  const alone = sqlite
    .query<{ id: number }, [number]>(
      "SELECT r.event_id AS id FROM event_reporters r JOIN events e ON e.id = r.event_id " +
        "WHERE r.agent_id = ? AND e.source = 'agent' AND e.seen = 0 " +
        "AND NOT EXISTS (SELECT 1 FROM event_reporters o WHERE o.event_id = r.event_id AND o.agent_id <> r.agent_id)",
    )
    .all(agentId)
    .map((row) => row.id);
  const remove = sqlite.query<unknown, [number]>("DELETE FROM events WHERE id = ?");
  for (const id of alone) remove.run(id);
  sqlite
    .query<unknown, [number, number]>(
      "UPDATE events SET agent_id = (SELECT min(o.agent_id) FROM event_reporters o WHERE o.event_id = events.id AND o.agent_id <> ?) " +
        "WHERE agent_id = ? AND source = 'agent' AND seen = 0",
    )
    .run(agentId, agentId);
  // The agent no longer vouches for what stayed: the entry goes with the last agent that does.
  sqlite.query<unknown, [number]>("DELETE FROM event_reporters WHERE agent_id = ?").run(agentId);
  return alone.length;
}
