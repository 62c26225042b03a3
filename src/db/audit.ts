/**
 * The audit log: one row per change an investigation needs (SPEC §16.1):
 * when, who, how, what, and to which target; and the admin's paged view of
 * it. Cosmetic edits (a key's label) are not written at all.
 *
 * A user who is not an admin can cause at most AUDIT_RATE_LIMIT rows in any
 * minute: beyond that, their further changes are counted into one
 * `audit.suppressed` row per minute instead of a row each, so a plain account
 * cannot flood the log (or the disk), and an investigation still sees that,
 * how often and what was done. Everyone without an account (refused
 * sign-ins) shares one such allowance, ANONYMOUS_ACTOR: an attacker with
 * many addresses could otherwise get round any per-address one. Admins are
 * not capped: they can change anything anyway, and capping them would let a
 * stolen admin session hide what it did behind a burst of noise.
 */
import { and, desc, eq, gt, lt, sql, type SQL } from "drizzle-orm";
import type { AuditVia } from "../domain/provenance.ts";
import type { HubDb, Orm } from "./open.ts";
import { auditLog, users } from "./schema.ts";


export interface Actor {
  readonly userId: number | null;
  readonly name: string;
  /**
   * How the change came in. Without it, an actor with a user is taken to act
   * through a session and one without a user through the configuration.
   */
  readonly via?: AuditVia;
  /** Rows caused by this actor are capped per minute: true for a user who is not an admin. */
  readonly capped?: boolean;
}

/** Rows one capped actor can cause in any 60 s, the `audit.suppressed` summary included. */
export const AUDIT_RATE_LIMIT = 60;
export const AUDIT_RATE_WINDOW_MS = 60_000;
export const AUDIT_SUPPRESSED = "audit.suppressed";

export const CLI_ACTOR: Actor = { userId: null, name: "cli", via: "cli" };
/** Whoever tried to sign in and was refused: no account is known to be theirs. */
export const ANONYMOUS_ACTOR: Actor = { userId: null, name: "anonymous", via: "session", capped: true };
export const SYSTEM_ACTOR: Actor = { userId: null, name: "system", via: "config" };

/** The summary of a capped actor's changes beyond the limit in one window: how many, of which actions, until when. */
interface SuppressedDetail {
  suppressed: number;
  actions: Record<string, number>;
  lastAt: number;
}

/** The rows counted against a capped actor: a user's, or, for an actor without one, those of the same name and no user. */
function rowsOf(actor: Actor): SQL {
  return actor.userId === null ? sql`${auditLog.actorUserId} IS NULL AND ${auditLog.actor} = ${actor.name}` : eq(auditLog.actorUserId, actor.userId);
}

/**
 * Counts a change into the actor's summary row of the current window, or
 * writes that row. Its `at` stays the first suppressed change's time, so a
 * new summary starts once it leaves the window, and no 60 s ever hold more
 * than AUDIT_RATE_LIMIT rows of the actor.
 */
function suppress(orm: Orm, actor: Actor, action: string, since: number, now: number): void {
  const summary = orm
    .select({ id: auditLog.id, detail: auditLog.detail })
    .from(auditLog)
    .where(and(rowsOf(actor), eq(auditLog.action, AUDIT_SUPPRESSED), gt(auditLog.at, since)))
    .orderBy(desc(auditLog.id))
    .limit(1)
    .get();
  if (summary) {
    const detail = parseDetail(summary.detail) as SuppressedDetail | null;
    const actions = detail?.actions ?? {};
    const next: SuppressedDetail = { suppressed: (detail?.suppressed ?? 0) + 1, actions: { ...actions, [action]: (actions[action] ?? 0) + 1 }, lastAt: now };
    orm.update(auditLog).set({ detail: JSON.stringify(next) }).where(eq(auditLog.id, summary.id)).run();
    return;
  }
  const detail: SuppressedDetail = { suppressed: 1, actions: { [action]: 1 }, lastAt: now };
  insertRow(orm, actor, AUDIT_SUPPRESSED, actor.userId === null ? actor.name : `user:${actor.userId}`, detail, now);
}

/** Writes an audit row; for a capped actor past the limit, counts it into the window's summary row instead. Call inside the change's transaction. */
export function audit(orm: Orm, actor: Actor, action: string, target: string | null, detail: Record<string, unknown> | null, now: number): void {
  if (actor.capped === true) {
    const since = now - AUDIT_RATE_WINDOW_MS;
    const recent =
      orm
        .select({ n: sql<number>`count(*)` })
        .from(auditLog)
        .where(and(rowsOf(actor), gt(auditLog.at, since)))
        .get()?.n ?? 0;
    // One row of the limit is kept for the summary, so the summary itself never goes past it.
    if (recent >= AUDIT_RATE_LIMIT - 1) {
      suppress(orm, actor, action, since, now);
      return;
    }
  }
  insertRow(orm, actor, action, target, detail, now);
}

function insertRow(orm: Orm, actor: Actor, action: string, target: string | null, detail: object | null, now: number): void {
  orm
    .insert(auditLog)
    .values({
      at: now,
      actorUserId: actor.userId,
      actor: actor.name,
      via: actor.via ?? (actor.userId === null ? "config" : "session"),
      action,
      target,
      detail: detail === null ? null : JSON.stringify(detail),
    })
    .run();
}

export interface AuditEntry {
  readonly id: number;
  readonly at: number;
  readonly actorId: number | null;
  readonly actorName: string | null;
  readonly via: AuditVia | null;
  readonly action: string;
  readonly target: string | null;
  readonly detail: Record<string, unknown> | null;
}

export interface AuditFilter {
  readonly limit: number;
  /** Only entries with a smaller id: the `next` of the previous page. */
  readonly before: number | null;
  /** Only actions starting with this. */
  readonly action: string | null;
  readonly actorId: number | null;
}

export interface AuditPage {
  readonly entries: AuditEntry[];
  /** The `before` of the next page, or null when this one holds the oldest entry. */
  readonly next: number | null;
}

function parseDetail(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Removes up to `limit` of the rows written before `before`, oldest first; returns how many. */
export function pruneAuditBatch(db: HubDb, before: number, limit: number): number {
  return db.sqlite.query<unknown, [number, number]>("DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)").run(before, limit).changes;
}

/** Newest first. One row beyond the page is read to learn whether another page follows. */
export function listAudit(orm: Orm, filter: AuditFilter): AuditPage {
  const conditions: SQL[] = [];
  if (filter.before !== null) conditions.push(lt(auditLog.id, filter.before));
  // substr and length count characters the same way, so a prefix beyond ASCII still matches exactly.
  if (filter.action !== null) conditions.push(sql`substr(${auditLog.action}, 1, length(${filter.action})) = ${filter.action}`);
  if (filter.actorId !== null) conditions.push(eq(auditLog.actorUserId, filter.actorId));
  const rows = orm
    .select({
      id: auditLog.id,
      at: auditLog.at,
      actorId: auditLog.actorUserId,
      // The user's name today; the name recorded at the time once the user is gone; none for the command line or the configuration.
      actorName: sql<string | null>`CASE WHEN ${auditLog.actorUserId} IS NULL THEN NULL ELSE COALESCE(${users.username}, ${auditLog.actor}) END`,
      via: auditLog.via,
      action: auditLog.action,
      target: auditLog.target,
      detail: auditLog.detail,
    })
    .from(auditLog)
    .leftJoin(users, eq(users.id, auditLog.actorUserId))
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(filter.limit + 1)
    .all();
  const page = rows.slice(0, filter.limit);
  return {
    entries: page.map((row) => ({ ...row, detail: parseDetail(row.detail) })),
    next: rows.length > filter.limit ? (page.at(-1)?.id ?? null) : null,
  };
}
