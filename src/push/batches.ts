/**
 * Judging for push, with the alerts' judgement (alerts/rules.ts: a rule
 * fires when its bonus comes to meet the minimum). A reading that fires
 * rules writes one batch row in its own transaction, naming each
 * subscription it reaches once (the role with the higher bonus when it fires
 * both), so a crash loses none and the reading's transaction stays one
 * insert however many subscriptions it reaches.
 */
import type { AlertRole } from "../alerts/model.ts";
import { becameTrue } from "../alerts/rules.ts";
import type { HubDb } from "../db/open.ts";
import type { PublicEvent } from "../domain/events.ts";
import type { PushSubscriptions } from "./subscriptions.ts";

export interface Fired {
  readonly subscriptionId: number;
  /** Null for an event. */
  readonly role: AlertRole | null;
}

export type BatchData =
  | { readonly kind: "bonus"; readonly region: string; readonly survivor: number; readonly killer: number; readonly measuredAt: number; readonly fired: readonly Fired[] }
  | { readonly kind: "event"; readonly event: PublicEvent; readonly fired: readonly Fired[] };

export interface Values {
  readonly survivor: number;
  readonly killer: number;
}

/** The subscriptions a new value of (platform, region) fires, one entry each. */
export function judgeReading(subscriptions: PushSubscriptions, platform: string, region: string, before: Values, after: Values): Fired[] {
  const best = new Map<number, { role: AlertRole; bonus: number }>();
  for (const rule of subscriptions.rulesOn(platform)) {
    if (rule.region !== null && rule.region !== region) continue;
    const bonus = after[rule.role];
    if (!becameTrue(before[rule.role], bonus, rule.minBonus)) continue;
    const known = best.get(rule.subscriptionId);
    if (known === undefined || bonus > known.bonus) best.set(rule.subscriptionId, { role: rule.role, bonus });
  }
  return [...best].map(([subscriptionId, { role }]) => ({ subscriptionId, role }));
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
