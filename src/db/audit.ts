/** The audit log: one row per admin change: when, who, how, what, and to which target; and the admin's paged view of it. */
import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import type { Orm } from "./open.ts";
import { auditLog, users } from "./schema.ts";

export const AUDIT_VIA = ["session", "api-key", "cli", "config"] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];

export interface Actor {
  readonly userId: number | null;
  readonly name: string;
  /**
   * How the change came in. Without it, an actor with a user is taken to act
   * through a session and one without a user through the configuration.
   */
  readonly via?: AuditVia;
}

export const CLI_ACTOR: Actor = { userId: null, name: "cli", via: "cli" };
export const SYSTEM_ACTOR: Actor = { userId: null, name: "system", via: "config" };

export function audit(orm: Orm, actor: Actor, action: string, target: string | null, detail: Record<string, unknown> | null, now: number): void {
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
