/** The audit log: one row per admin change: when, who, what, and to which target. */
import type { Orm } from "./open.ts";
import { auditLog } from "./schema.ts";

export interface Actor {
  readonly userId: number | null;
  readonly name: string;
}

export const CLI_ACTOR: Actor = { userId: null, name: "cli" };
export const SYSTEM_ACTOR: Actor = { userId: null, name: "system" };

export function audit(orm: Orm, actor: Actor, action: string, target: string | null, detail: Record<string, unknown> | null, now: number): void {
  orm
    .insert(auditLog)
    .values({ at: now, actorUserId: actor.userId, actor: actor.name, action, target, detail: detail === null ? null : JSON.stringify(detail) })
    .run();
}
