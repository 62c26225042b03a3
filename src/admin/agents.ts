/**
 * Admin management of agents and their readings. Every change re-derives
 * what depends on agents (groups and assignments, live values, coverage) and
 * lets the live store push any payload that changed.
 */
import { and, eq, gte, isNull, lte, sql, type SQL } from "drizzle-orm";
import { newAgentToken, sha256Hex } from "../domain/tokens.ts";
import { audit, type Actor } from "../db/audit.ts";
import { insertAgent, type Agent } from "../db/agents.ts";
import type { HubDb } from "../db/open.ts";
import { oldestVisibleReading } from "../db/readings.ts";
import { agents, readings } from "../db/schema.ts";
import { cadenceProblem } from "../domain/cadence-expression.ts";
import { isPlatform, parseProvider, platformOf, type Catalogue, type Platform, type Provider } from "../domain/catalogue.ts";
import { characters } from "../domain/characters.ts";
import type { EventReportMode } from "../domain/events.ts";
import { isAgentSource, type AgentSource } from "../domain/provenance.ts";
import { withdrawAgentEvents } from "../events/withdraw.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { AgentDirectory } from "../live/agents.ts";
import type { EventBook } from "../live/events.ts";
import type { Ingest } from "../live/ingest.ts";
import type { LiveStore } from "../live/store.ts";

export type DataMode = "keep" | "orphan" | "delete";

export interface AgentBody {
  readonly id: number;
  readonly enabled: boolean;
  readonly label: string | null;
  readonly platform: Platform;
  readonly region: string;
  readonly provider: Provider;
  readonly provisionId: string | null;
  readonly source: Agent["source"];
  readonly pollMin: string | null;
  readonly pollMax: string | null;
  readonly eventReports: EventReportMode;
  readonly readings: number;
  readonly lastReadingAt: number | null;
}

export interface ExportedAgent {
  readonly provisionId: string | null;
  readonly tokenHash: string;
  readonly region: string;
  readonly provider: Provider;
  readonly platform: Platform;
  readonly label: string | null;
  readonly enabled: boolean;
  readonly source: Agent["source"];
  readonly pollMin: string | null;
  readonly pollMax: string | null;
}

export interface AgentPatch {
  readonly label?: string | null;
  readonly provider?: string;
  readonly region?: string;
  readonly pollMin?: string | number | null;
  readonly pollMax?: string | number | null;
  readonly enabled?: boolean;
  readonly eventReports?: EventReportMode;
  readonly dataMode?: DataMode;
}

export interface ReadingFilter {
  readonly region?: string;
  readonly platform?: string;
  readonly from?: number;
  readonly to?: number;
  readonly survivorMin?: number;
  readonly survivorMax?: number;
  readonly killerMin?: number;
  readonly killerMax?: number;
}

interface Stats {
  readonly readings: number;
  readonly lastReadingAt: number | null;
}

const NO_STATS: Stats = { readings: 0, lastReadingAt: null };

/** Rows changed by the connection's latest statement. */
function changes(db: HubDb): number {
  return db.sqlite.query<{ n: number }, []>("SELECT changes() AS n").get()?.n ?? 0;
}

/** A cadence value from the API: an expression string, a number of seconds, or null to clear. */
export function cadenceValue(value: string | number | null | undefined, field: string): string | null | undefined {
  if (value === undefined || value === null) return value;
  const text = String(value).trim();
  const problem = cadenceProblem(text);
  if (problem) throw new HttpProblem(400, `Invalid ${field}: ${problem}.`, { errors: [{ location: `body.${field}`, message: problem, value: text }] });
  return text;
}

export function labelValue(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const text = value.trim();
  return text === "" ? null : text;
}

export class AgentAdmin {
  constructor(
    private readonly db: HubDb,
    private readonly catalogue: Catalogue,
    private readonly directory: AgentDirectory,
    private readonly live: LiveStore,
    private readonly ingest: Ingest,
    private readonly now: () => number,
    private readonly events: EventBook,
  ) {}

  /** Reading counts and newest reading of every agent, in one grouped query. */
  private stats(): Map<number, Stats> {
    const rows = this.db.orm
      .select({ agentId: readings.agentId, n: sql<number>`count(*)`, last: sql<number | null>`max(${readings.measuredAt})` })
      .from(readings)
      .where(sql`${readings.agentId} IS NOT NULL`)
      .groupBy(readings.agentId)
      .all();
    return new Map(rows.map((r) => [r.agentId ?? 0, { readings: r.n, lastReadingAt: r.last }]));
  }

  private statsOf(id: number): Stats {
    const row = this.db.orm
      .select({ n: sql<number>`count(*)`, last: sql<number | null>`max(${readings.measuredAt})` })
      .from(readings)
      .where(eq(readings.agentId, id))
      .get();
    return row ? { readings: row.n, lastReadingAt: row.last } : NO_STATS;
  }

  private body(agent: Agent, stats: Stats): AgentBody {
    return {
      id: agent.id,
      enabled: agent.enabled,
      label: agent.label,
      platform: agent.platform,
      region: agent.region,
      provider: agent.provider,
      provisionId: agent.provisionId,
      source: agent.source,
      pollMin: agent.pollMin,
      pollMax: agent.pollMax,
      eventReports: agent.eventReports,
      readings: stats.readings,
      lastReadingAt: stats.lastReadingAt,
    };
  }

  private get(id: number): Agent {
    const agent = this.db.orm.select().from(agents).where(eq(agents.id, id)).get();
    if (!agent) throw new HttpProblem(404, `There is no agent ${id}.`);
    return agent;
  }

  private region(value: string, location: string): string {
    if (!this.catalogue.hasRegion(value)) throw new HttpProblem(400, `Unknown region "${value}".`, { errors: [{ location, message: "unknown region", value }] });
    return value;
  }

  private provider(value: string, location: string): Provider {
    const provider = parseProvider(value);
    if (!provider) throw new HttpProblem(400, `Unknown provider "${value}"; use steam, epic or grdk.`, { errors: [{ location, message: "unknown provider", value }] });
    return provider;
  }

  /** The (platform, region) slots where an agent has readings. */
  private slotsOf(id: number): { platform: Platform; region: string }[] {
    return this.db.orm
      .selectDistinct({ platform: readings.platform, region: readings.region })
      .from(readings)
      .where(eq(readings.agentId, id))
      .all()
      .filter((slot): slot is { platform: Platform; region: string } => isPlatform(slot.platform));
  }

  /** After any change: agents, assignments and live values again; every changed payload is pushed. */
  private refresh(slots: readonly { platform: Platform; region: string }[] = []): void {
    this.directory.reload();
    this.events.reload();
    for (const slot of slots) this.live.rebuildSlot(slot.platform, slot.region);
    this.live.rebuildAgentFreshness();
    this.live.invalidate();
  }

  list(): AgentBody[] {
    const stats = this.stats();
    return this.db.orm
      .select()
      .from(agents)
      .orderBy(agents.id)
      .all()
      .map((agent) => this.body(agent, stats.get(agent.id) ?? NO_STATS));
  }

  create(actor: Actor, input: { region: string; provider: string; label?: string | null }): { agent: AgentBody; token: string } {
    const region = this.region(input.region, "body.region");
    const provider = this.provider(input.provider, "body.provider");
    const token = newAgentToken();
    const agent = this.db.sqlite.transaction(() => {
      const created = insertAgent(this.db.orm, { tokenHash: sha256Hex(token), provider, region, label: labelValue(input.label) ?? null, source: "manual" }, this.now());
      audit(this.db.orm, actor, "agent.create", `agent:${created.id}`, { region, provider }, this.now());
      return created;
    })();
    this.refresh();
    return { agent: this.body(agent, NO_STATS), token };
  }

  update(actor: Actor, id: number, patch: AgentPatch): AgentBody {
    const agent = this.get(id);
    const region = patch.region === undefined ? agent.region : this.region(patch.region, "body.region");
    const provider = patch.provider === undefined ? agent.provider : this.provider(patch.provider, "body.provider");
    const platform = platformOf(provider);
    const pollMin = cadenceValue(patch.pollMin, "pollMin");
    const pollMax = cadenceValue(patch.pollMax, "pollMax");
    const moved = region !== agent.region || platform !== agent.platform;
    const mode = patch.dataMode ?? "keep";
    const touched = moved && mode !== "keep" ? this.slotsOf(id) : [];
    // Disabled or ignored, the agent no longer vouches for the events it reported (SPEC §16.3).
    const withdraws = (agent.enabled && patch.enabled === false) || (agent.eventReports === "accepted" && patch.eventReports === "ignored");
    this.db.sqlite.transaction(() => {
      const withdrawnEvents = withdraws ? withdrawAgentEvents(this.db, id) : 0;
      if (moved && mode === "orphan") this.db.orm.update(readings).set({ agentId: null }).where(eq(readings.agentId, id)).run();
      if (moved && mode === "delete") this.db.orm.delete(readings).where(eq(readings.agentId, id)).run();
      this.db.orm
        .update(agents)
        .set({
          region,
          provider,
          platform,
          ...(patch.label === undefined ? {} : { label: labelValue(patch.label) }),
          ...(pollMin === undefined ? {} : { pollMin }),
          ...(pollMax === undefined ? {} : { pollMax }),
          ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
          ...(patch.eventReports === undefined ? {} : { eventReports: patch.eventReports }),
          updatedAt: this.now(),
        })
        .where(eq(agents.id, id))
        .run();
      // A new label alone is cosmetic and not audited (SPEC §16.1); with any other change it is recorded beside it.
      const cosmetic = Object.entries(patch).every(([key, value]) => key === "label" || value === undefined);
      if (!cosmetic) audit(this.db.orm, actor, "agent.update", `agent:${id}`, { ...patch, moved, ...(withdraws ? { withdrawnEvents } : {}) }, this.now());
    })();
    if (moved && mode !== "keep") this.ingest.forget(id);
    this.refresh(touched);
    return this.body(this.get(id), this.statsOf(id));
  }

  remove(actor: Actor, id: number, mode: "orphan" | "delete"): void {
    this.get(id);
    const touched = this.slotsOf(id);
    this.db.sqlite.transaction(() => {
      if (mode === "delete") this.db.orm.delete(readings).where(eq(readings.agentId, id)).run();
      const withdrawnEvents = withdrawAgentEvents(this.db, id);
      this.db.orm.delete(agents).where(eq(agents.id, id)).run();
      audit(this.db.orm, actor, "agent.delete", `agent:${id}`, { dataMode: mode, withdrawnEvents }, this.now());
    })();
    this.ingest.forget(id);
    this.refresh(touched);
  }

  rotateToken(actor: Actor, id: number): string {
    this.get(id);
    const token = newAgentToken();
    this.db.sqlite.transaction(() => {
      this.db.orm.update(agents).set({ tokenHash: sha256Hex(token), updatedAt: this.now() }).where(eq(agents.id, id)).run();
      audit(this.db.orm, actor, "agent.rotateToken", `agent:${id}`, null, this.now());
    })();
    this.refresh();
    return token;
  }

  exportAll(): ExportedAgent[] {
    return this.db.orm
      .select()
      .from(agents)
      .orderBy(agents.id)
      .all()
      .map((a) => ({
        provisionId: a.provisionId,
        tokenHash: a.tokenHash,
        region: a.region,
        provider: a.provider,
        platform: a.platform,
        label: a.label,
        enabled: a.enabled,
        source: a.source,
        pollMin: a.pollMin,
        pollMax: a.pollMax,
      }));
  }

  /** Why an import row cannot be used, or the values to upsert. */
  private importRow(row: unknown): { ok: false; reason: string } | { ok: true; values: Omit<ExportedAgent, "platform"> & { platform: Platform; provider: Provider } } {
    if (row === null || typeof row !== "object" || Array.isArray(row)) return { ok: false, reason: "not an object" };
    const r = row as Record<string, unknown>;
    if (typeof r.tokenHash !== "string" || !/^[0-9a-fA-F]{64}$/.test(r.tokenHash)) return { ok: false, reason: "tokenHash must be 64 hexadecimal characters" };
    if (typeof r.region !== "string" || !this.catalogue.hasRegion(r.region)) return { ok: false, reason: `unknown region ${JSON.stringify(r.region ?? null)}` };
    const provider = typeof r.provider === "string" ? parseProvider(r.provider) : null;
    if (!provider) return { ok: false, reason: "provider must be steam, epic or grdk" };
    const platform = platformOf(provider);
    if (r.platform !== undefined && r.platform !== null && r.platform !== platform) return { ok: false, reason: `platform ${JSON.stringify(r.platform)} does not match provider ${provider}` };
    if (r.label !== undefined && r.label !== null && (typeof r.label !== "string" || characters(r.label) > 120)) return { ok: false, reason: "label must be a string of at most 120 characters" };
    if (r.enabled !== undefined && typeof r.enabled !== "boolean") return { ok: false, reason: "enabled must be true or false" };
    if (r.provisionId !== undefined && r.provisionId !== null && (typeof r.provisionId !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(r.provisionId))) {
      return { ok: false, reason: "provisionId must be 1 to 64 letters, digits, '.', '_' or '-'" };
    }
    for (const field of ["pollMin", "pollMax"] as const) {
      const value = r[field];
      if (value === undefined || value === null) continue;
      if (typeof value !== "string" && typeof value !== "number") return { ok: false, reason: `${field} must be a string or null` };
      const problem = cadenceProblem(String(value));
      if (problem) return { ok: false, reason: `${field}: ${problem}` };
    }
    const source: AgentSource = typeof r.source === "string" && isAgentSource(r.source) ? r.source : "imported";
    return {
      ok: true,
      values: {
        tokenHash: r.tokenHash.toLowerCase(),
        region: r.region,
        provider,
        platform,
        label: typeof r.label === "string" ? labelValue(r.label) ?? null : null,
        enabled: r.enabled === undefined ? true : r.enabled,
        provisionId: typeof r.provisionId === "string" ? r.provisionId : null,
        source,
        pollMin: r.pollMin === undefined || r.pollMin === null ? null : String(r.pollMin),
        pollMax: r.pollMax === undefined || r.pollMax === null ? null : String(r.pollMax),
      },
    };
  }

  /** Upserts agents by tokenHash in one transaction; rows that cannot be used are skipped with their reason. */
  importAll(actor: Actor, rows: readonly unknown[]): { imported: number; skipped: { index: number; provisionId: string | null; reason: string }[] } {
    const skipped: { index: number; provisionId: string | null; reason: string }[] = [];
    let imported = 0;
    this.db.sqlite.transaction(() => {
      rows.forEach((row, index) => {
        const parsed = this.importRow(row);
        const provisionId = row !== null && typeof row === "object" && typeof (row as Record<string, unknown>).provisionId === "string" ? ((row as Record<string, unknown>).provisionId as string) : null;
        if (!parsed.ok) {
          skipped.push({ index, provisionId, reason: parsed.reason });
          return;
        }
        const values = parsed.values;
        const existing = this.db.orm.select({ id: agents.id }).from(agents).where(eq(agents.tokenHash, values.tokenHash)).get();
        if (values.provisionId !== null) {
          const holder = this.db.orm.select({ id: agents.id }).from(agents).where(eq(agents.provisionId, values.provisionId)).get();
          if (holder && holder.id !== existing?.id) {
            skipped.push({ index, provisionId, reason: `provisionId "${values.provisionId}" belongs to agent ${holder.id}` });
            return;
          }
        }
        if (existing) {
          if (!values.enabled) withdrawAgentEvents(this.db, existing.id);
          this.db.orm.update(agents).set({ ...values, updatedAt: this.now() }).where(eq(agents.id, existing.id)).run();
        } else {
          this.db.orm.insert(agents).values({ ...values, createdAt: this.now(), updatedAt: this.now() }).run();
        }
        imported++;
      });
      audit(this.db.orm, actor, "agent.import", "agents", { imported, skipped: skipped.length }, this.now());
    })();
    this.refresh();
    return { imported, skipped };
  }

  /** Per-agent reading counts and extent in one region, inside the retention window (agentId null for orphans). */
  attribution(platform: Platform, region: string): { agentId: number | null; readings: number; firstAt: number; lastAt: number }[] {
    return this.db.orm
      .select({
        agentId: readings.agentId,
        readings: sql<number>`count(*)`,
        firstAt: sql<number>`min(${readings.measuredAt})`,
        lastAt: sql<number>`max(${readings.measuredAt})`,
      })
      .from(readings)
      .where(and(eq(readings.platform, platform), eq(readings.region, region), gte(readings.measuredAt, oldestVisibleReading(this.db))))
      .groupBy(readings.agentId)
      .orderBy(readings.agentId)
      .all();
  }

  /** Deletes one agent's readings matching every given filter; returns how many (with `dryRun`, how many would go, deleting nothing). */
  deleteReadings(actor: Actor, id: number, filter: ReadingFilter, dryRun = false): number {
    this.get(id);
    const conditions: SQL[] = [eq(readings.agentId, id)];
    if (filter.region !== undefined) conditions.push(eq(readings.region, filter.region));
    if (filter.platform !== undefined) conditions.push(eq(readings.platform, filter.platform));
    if (filter.from !== undefined) conditions.push(gte(readings.measuredAt, filter.from));
    if (filter.to !== undefined) conditions.push(lte(readings.measuredAt, filter.to));
    if (filter.survivorMin !== undefined) conditions.push(gte(readings.survivor, filter.survivorMin));
    if (filter.survivorMax !== undefined) conditions.push(lte(readings.survivor, filter.survivorMax));
    if (filter.killerMin !== undefined) conditions.push(gte(readings.killer, filter.killerMin));
    if (filter.killerMax !== undefined) conditions.push(lte(readings.killer, filter.killerMax));
    if (dryRun) return this.db.orm.select({ n: sql<number>`count(*)` }).from(readings).where(and(...conditions)).get()?.n ?? 0;
    const touched = this.slotsOf(id);
    const removed = this.db.sqlite.transaction(() => {
      this.db.orm.delete(readings).where(and(...conditions)).run();
      const count = changes(this.db);
      audit(this.db.orm, actor, "readings.delete", `agent:${id}`, { ...filter, removed: count }, this.now());
      return count;
    })();
    this.ingest.forget(id);
    this.refresh(touched);
    return removed;
  }

  deleteOrphans(actor: Actor, dryRun = false): number {
    if (dryRun) return this.db.orm.select({ n: sql<number>`count(*)` }).from(readings).where(isNull(readings.agentId)).get()?.n ?? 0;
    const touched = this.db.orm
      .selectDistinct({ platform: readings.platform, region: readings.region })
      .from(readings)
      .where(isNull(readings.agentId))
      .all()
      .filter((slot): slot is { platform: Platform; region: string } => isPlatform(slot.platform));
    const removed = this.db.sqlite.transaction(() => {
      this.db.orm.delete(readings).where(isNull(readings.agentId)).run();
      const count = changes(this.db);
      audit(this.db.orm, actor, "readings.deleteOrphans", "readings", { removed: count }, this.now());
      return count;
    })();
    this.refresh(touched);
    return removed;
  }
}
