/**
 * Judging for push, with the alerts' judgement (alerts/rules.ts: a rule
 * fires when its bonus comes to meet the minimum). A reading that fires any
 * rule writes one small batch row in its own transaction: the value before
 * and after, so a crash loses none and the reading's transaction stays one
 * short insert however many subscriptions it reaches. The worker judges the
 * same change again when it expands the batch, in subscription order, a
 * chunk at a time, each subscription reached once (the role with the higher
 * bonus when both fire).
 */
import { becameTrue } from "../alerts/rules.ts";
import type { HubDb } from "../db/open.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { PushSubscriptions } from "./subscriptions.ts";
import type { AlertRole } from "../domain/alerts.ts";

export interface Fired {
  readonly subscriptionId: number;
  /** Null for an event. */
  readonly role: AlertRole | null;
}

export interface Values {
  readonly survivor: number;
  readonly killer: number;
}

/** `doneUpTo`: subscriptions with an id up to it have their delivery already (a batch is expanded a chunk at a time). */
export type BatchData =
  | { readonly kind: "bonus"; readonly region: string; readonly survivor: number; readonly killer: number; readonly before: Values; readonly measuredAt: number; readonly doneUpTo: number }
  | { readonly kind: "event"; readonly event: PublicEvent; readonly doneUpTo: number };

/** Whether a new value of (platform, region) fires any rule: the live path's question, answered at the first that does. */
export function firesAny(subscriptions: PushSubscriptions, platform: string, region: string, before: Values, after: Values): boolean {
  return subscriptions.rulesOn(platform).some((rule) => (rule.region === null || rule.region === region) && becameTrue(before[rule.role], after[rule.role], rule.minBonus));
}

/** The subscriptions a new value of (platform, region) fires, one entry each, by subscription id. */
export function judgeReading(subscriptions: PushSubscriptions, platform: string, region: string, before: Values, after: Values): Fired[] {
  const best = new Map<number, { role: AlertRole; bonus: number }>();
  for (const rule of subscriptions.rulesOn(platform)) {
    if (rule.region !== null && rule.region !== region) continue;
    const bonus = after[rule.role];
    if (!becameTrue(before[rule.role], bonus, rule.minBonus)) continue;
    const known = best.get(rule.subscriptionId);
    if (known === undefined || bonus > known.bonus) best.set(rule.subscriptionId, { role: rule.role, bonus });
  }
  return [...best].map(([subscriptionId, { role }]) => ({ subscriptionId, role })).sort((a, b) => a.subscriptionId - b.subscriptionId);
}

export class PushBatches {
  private readonly insert;

  constructor(db: HubDb) {
    this.insert = db.sqlite.query<unknown, [string, string, string, number]>("INSERT INTO push_batches (kind, platform, data, created_at) VALUES (?, ?, ?, ?)");
  }

  write(platform: string, data: BatchData, now: number): void {
    this.insert.run(data.kind, platform, JSON.stringify(data), now);
  }
}
