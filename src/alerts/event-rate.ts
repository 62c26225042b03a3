/**
 * How many event alerts one destination gets (SPEC §16.3): at most
 * EVENT_ALERT_LIMIT.count in any hour, for a webhook and for a push
 * subscription alike. An event alert over the limit is held back, not
 * sent; the next one allowed to the same destination says how many were
 * held back and since when. So an agent flooding the schedule costs each
 * receiver at most six messages an hour, and the receiver still learns
 * that it missed some.
 *
 * The judgement is made in batches: the alerts of one change are admitted
 * together, and what they used of the budget is kept only when the caller
 * commits the batch, after the transaction that wrote them committed. A
 * write that storage refused costs no budget.
 *
 * Usage, from whatever judges event alerts for a destination:
 *
 *     const batch = rate.begin(now);
 *     const verdict = batch.admit(eventAlertDestination.push(subscriptionId));
 *     if (verdict.send) write the message, with verdict.heldBack in it when not null;
 *     … after the transaction: batch.commit();
 */

export const EVENT_ALERT_LIMIT = { count: 6, windowMs: 60 * 60_000 } as const;

/** Event alerts held back since the destination's last one. */
export interface HeldBack {
  readonly count: number;
  /** When the first of them was held back (epoch ms). */
  readonly since: number;
}

/** send: the alert may go, carrying what was held back before it (or null); otherwise it is held back, counted in `heldBack`. */
export type EventAlertVerdict = { readonly send: true; readonly heldBack: HeldBack | null } | { readonly send: false; readonly heldBack: HeldBack };

/** A destination's name: its kind and id, so a webhook and a push subscription with the same id never share a budget. */
export const eventAlertDestination = {
  webhook: (id: number): string => `webhook:${id}`,
  push: (id: number | string): string => `push:${id}`,
} as const;

interface Budget {
  /** When the destination's event alerts of the last window were sent, oldest first. */
  readonly sent: readonly number[];
  readonly heldBack: HeldBack | null;
}

const EMPTY: Budget = { sent: [], heldBack: null };

export class EventAlertBatch {
  private readonly changed = new Map<string, Budget>();

  constructor(
    private readonly budgets: Map<string, Budget>,
    private readonly now: number,
  ) {}

  /** Whether one more event alert may go to this destination now; counted against it within this batch. */
  admit(destination: string): EventAlertVerdict {
    const budget = this.changed.get(destination) ?? this.budgets.get(destination) ?? EMPTY;
    const sent = budget.sent.filter((at) => at > this.now - EVENT_ALERT_LIMIT.windowMs);
    if (sent.length >= EVENT_ALERT_LIMIT.count) {
      const heldBack = budget.heldBack ? { count: budget.heldBack.count + 1, since: budget.heldBack.since } : { count: 1, since: this.now };
      this.changed.set(destination, { sent, heldBack });
      return { send: false, heldBack };
    }
    this.changed.set(destination, { sent: [...sent, this.now], heldBack: null });
    return { send: true, heldBack: budget.heldBack };
  }

  /** Keeps what this batch used; call once its messages are written. */
  commit(): void {
    for (const [destination, budget] of this.changed) this.budgets.set(destination, budget);
    this.changed.clear();
  }
}

/** How often destinations with nothing left to count are dropped. */
const PRUNE_INTERVAL_MS = 60_000;

export class EventAlertRate {
  private readonly budgets = new Map<string, Budget>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  begin(now: number): EventAlertBatch {
    if (now - this.prunedAt >= PRUNE_INTERVAL_MS) this.prune(now);
    return new EventAlertBatch(this.budgets, now);
  }

  /** What a destination was sent before (its event alerts of the last window, as the outbox holds them), so a restart grants no new budget. */
  seed(destination: string, sentAt: readonly number[]): void {
    const budget = this.budgets.get(destination) ?? EMPTY;
    this.budgets.set(destination, { sent: [...budget.sent, ...sentAt].sort((a, b) => a - b), heldBack: budget.heldBack });
  }

  /** Drops a destination that is gone (a deleted webhook or subscription). */
  forget(destination: string): void {
    this.budgets.delete(destination);
  }

  /** Destinations with nothing in the window and nothing held back are dropped, so the map stays as small as the set of busy destinations. */
  private prune(now: number): void {
    this.prunedAt = now;
    for (const [destination, budget] of this.budgets) {
      if (budget.heldBack === null && budget.sent.every((at) => at <= now - EVENT_ALERT_LIMIT.windowMs)) this.budgets.delete(destination);
    }
  }
}
