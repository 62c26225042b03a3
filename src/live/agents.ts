/**
 * The agents as the running hub sees them: an in-memory directory, loaded
 * from the database and reloaded whenever the agents change (here or in
 * another process), with each group's cadence assignments computed once per
 * change.
 */
import { findAgentByTokenHash, listAgents, type Agent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import { assignGroup, type Assignment, type CadenceDefaults } from "../domain/cadence.ts";
import type { Catalogue } from "../domain/catalogue.ts";

export function slotKey(platform: string, region: string): string {
  return `${platform}\u0000${region}`;
}

export class AgentDirectory {
  private byId = new Map<number, Agent>();
  private byTokenHash = new Map<string, Agent>();
  private groups = new Map<string, Agent[]>();
  private readonly assignments = new Map<string, Map<number, Assignment>>();
  private readonly refreshTimes = new Map<string, number>();
  private readonly refreshQuery;
  private readonly refreshUpsert;

  constructor(
    private readonly db: HubDb,
    private readonly catalogue: Catalogue,
    private readonly defaults: CadenceDefaults,
  ) {
    this.refreshQuery = db.sqlite.query<{ platform: string; region: string; refresh_time_seconds: number }, []>(
      "SELECT platform, region, refresh_time_seconds FROM slot_state",
    );
    this.refreshUpsert = db.sqlite.query<unknown, [string, string, number, number]>(
      "INSERT INTO slot_state (platform, region, refresh_time_seconds, updated_at) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (platform, region) DO UPDATE SET refresh_time_seconds = excluded.refresh_time_seconds, updated_at = excluded.updated_at",
    );
    this.reload();
  }

  /** Reads every agent and learned refresh time again; cached assignments are recomputed on demand. */
  reload(): void {
    const all = listAgents(this.db.orm);
    this.byId = new Map(all.map((a) => [a.id, a]));
    this.byTokenHash = new Map(all.map((a) => [a.tokenHash, a]));
    const groups = new Map<string, Agent[]>();
    for (const agent of all) {
      if (!agent.enabled || !this.catalogue.hasRegion(agent.region)) continue;
      const key = slotKey(agent.platform, agent.region);
      const group = groups.get(key) ?? [];
      group.push(agent);
      groups.set(key, group);
    }
    this.groups = groups;
    this.refreshTimes.clear();
    for (const row of this.refreshQuery.all()) this.refreshTimes.set(slotKey(row.platform, row.region), row.refresh_time_seconds);
    this.assignments.clear();
  }

  all(): Agent[] {
    return [...this.byId.values()];
  }

  get(id: number): Agent | undefined {
    return this.byId.get(id);
  }

  /** Finds an agent by token hash; a miss is checked against the database before it counts as unknown. */
  findByTokenHash(tokenHash: string): Agent | undefined {
    const cached = this.byTokenHash.get(tokenHash);
    if (cached) return cached;
    const stored = findAgentByTokenHash(this.db.orm, tokenHash);
    if (stored) this.reload();
    return stored;
  }

  /** Enabled agents of one (platform, region), ordered by id. */
  group(platform: string, region: string): readonly Agent[] {
    return this.groups.get(slotKey(platform, region)) ?? [];
  }

  /** Regions with at least one enabled agent on the platform. */
  coveredRegions(platform: string): Set<string> {
    const covered = new Set<string>();
    for (const group of this.groups.values()) {
      const first = group[0];
      if (first && first.platform === platform) covered.add(first.region);
    }
    return covered;
  }

  enabledCount(): number {
    let n = 0;
    for (const group of this.groups.values()) n += group.length;
    return n;
  }

  refreshTime(platform: string, region: string): number | null {
    return this.refreshTimes.get(slotKey(platform, region)) ?? null;
  }

  /** Records the game's refresh interval reported for a group; returns whether it changed. */
  learnRefreshTime(platform: string, region: string, seconds: number, now: number): boolean {
    const key = slotKey(platform, region);
    if (this.refreshTimes.get(key) === seconds) return false;
    this.refreshUpsert.run(platform, region, seconds, now);
    this.refreshTimes.set(key, seconds);
    this.assignments.delete(key);
    return true;
  }

  /** The current assignment of an agent (disabled agents get one computed as if alone). */
  assignment(agent: Agent): Assignment {
    const key = slotKey(agent.platform, agent.region);
    let group = this.assignments.get(key);
    if (!group) {
      group = assignGroup(agent.platform, agent.region, this.group(agent.platform, agent.region), this.defaults, this.refreshTime(agent.platform, agent.region));
      this.assignments.set(key, group);
    }
    const own = group.get(agent.id);
    if (own) return own;
    const alone = assignGroup(agent.platform, agent.region, [agent], this.defaults, this.refreshTime(agent.platform, agent.region)).get(agent.id);
    if (!alone) throw new Error(`no assignment for agent ${agent.id}`);
    return alone;
  }
}
