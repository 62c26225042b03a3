/**
 * The enabled webhooks as the live path sees them, with the bonus conditions
 * that currently hold. Kept in memory and reloaded whenever a webhook
 * changes, so judging a reading is a few comparisons and touches the
 * database only when a condition turns.
 */
import type { HubDb } from "../db/open.ts";
import { ALERT_ROLES, type AlertRole } from "../domain/alerts.ts";

export interface Rule {
  readonly id: number;
  /** Null: every platform. */
  readonly platforms: ReadonlySet<string> | null;
  /** Null: every region. */
  readonly regions: ReadonlySet<string> | null;
  readonly roles: readonly AlertRole[];
  /** Null: no bonus alerts. */
  readonly minBonus: number | null;
  readonly onStatus: boolean;
  readonly onEvents: boolean;
  /** Conditions that hold and have fired, as conditionKey(platform, region, role). */
  readonly held: Set<string>;
}

/** A bonus condition that turned: it fires when it becomes true and re-arms when it becomes false. */
export interface Turn {
  readonly rule: Rule;
  readonly role: AlertRole;
  readonly bonus: number;
  readonly holds: boolean;
}

function conditionKey(platform: string, region: string, role: AlertRole): string {
  return `${platform}\u0000${region}\u0000${role}`;
}

/**
 * Whether a bonus meets a webhook's minimum. A bonus of 0 is no bonus, so a
 * minimum of 0 means "any bonus" rather than "always".
 */
export function bonusHolds(bonus: number, minBonus: number): boolean {
  return bonus > 0 && bonus >= minBonus;
}

/**
 * The one judgement every way out shares (webhooks, push): a rule fires when
 * a bonus that did not meet the minimum comes to meet it, not on each reading
 * while it keeps meeting it.
 */
export function becameTrue(before: number, after: number, minBonus: number): boolean {
  return bonusHolds(after, minBonus) && !bonusHolds(before, minBonus);
}

export function follows(rule: Pick<Rule, "platforms">, platform: string): boolean {
  return rule.platforms === null || rule.platforms.has(platform);
}

interface RuleRow {
  id: number;
  platforms: string | null;
  regions: string | null;
  roles: string;
  min_bonus: number | null;
  on_status: number;
  on_events: number;
}

/** A (platform, region) value judged to turn nothing: the same value turns nothing again until the rules or what they hold change. */
interface Unturned {
  readonly survivor: number;
  readonly killer: number;
}

export class AlertRules {
  private list: Rule[] = [];
  /**
   * The last value of each (platform, region) that turned nothing. A reading
   * repeats its slot's value almost always (a bonus lasts hours), and judging
   * it against every webhook is the live path's costliest step per reading
   * with a hundred of them, so the answer is kept until the rules or their
   * held conditions change.
   */
  private readonly unturned = new Map<string, Unturned>();
  private readonly rulesQuery;
  private readonly heldQuery;
  private readonly insertHeld;
  private readonly deleteHeld;
  private readonly clearHeld;

  constructor(db: HubDb) {
    this.rulesQuery = db.sqlite.query<RuleRow, []>(
      "SELECT id, platforms, regions, roles, min_bonus, on_status, on_events FROM webhooks WHERE enabled = 1 ORDER BY id",
    );
    this.heldQuery = db.sqlite.query<{ webhook_id: number; platform: string; region: string; role: AlertRole }, []>(
      "SELECT c.webhook_id, c.platform, c.region, c.role FROM webhook_conditions c JOIN webhooks w ON w.id = c.webhook_id WHERE w.enabled = 1",
    );
    this.insertHeld = db.sqlite.query<unknown, [number, string, string, string]>(
      "INSERT OR IGNORE INTO webhook_conditions (webhook_id, platform, region, role) VALUES (?, ?, ?, ?)",
    );
    this.deleteHeld = db.sqlite.query<unknown, [number, string, string, string]>(
      "DELETE FROM webhook_conditions WHERE webhook_id = ? AND platform = ? AND region = ? AND role = ?",
    );
    this.clearHeld = db.sqlite.query<unknown, [number]>("DELETE FROM webhook_conditions WHERE webhook_id = ?");
    this.reload();
  }

  /** Re-reads the enabled webhooks and their held conditions (after any change to a webhook). */
  reload(): void {
    const byId = new Map<number, Rule>();
    for (const row of this.rulesQuery.all()) {
      const roles = JSON.parse(row.roles) as AlertRole[];
      byId.set(row.id, {
        id: row.id,
        platforms: row.platforms === null ? null : new Set(JSON.parse(row.platforms) as string[]),
        regions: row.regions === null ? null : new Set(JSON.parse(row.regions) as string[]),
        roles: ALERT_ROLES.filter((role) => roles.includes(role)),
        minBonus: row.min_bonus,
        onStatus: row.on_status === 1,
        onEvents: row.on_events === 1,
        held: new Set(),
      });
    }
    for (const row of this.heldQuery.all()) byId.get(row.webhook_id)?.held.add(conditionKey(row.platform, row.region, row.role));
    this.list = [...byId.values()];
    this.unturned.clear();
  }

  all(): readonly Rule[] {
    return this.list;
  }

  /** The bonus conditions a new live value of (platform, region) turns, or null when none does (the common case). */
  turns(platform: string, region: string, survivor: number, killer: number): Turn[] | null {
    const slot = `${platform}\u0000${region}`;
    const known = this.unturned.get(slot);
    if (known !== undefined && known.survivor === survivor && known.killer === killer) return null;
    let turns: Turn[] | null = null;
    let keys: Record<AlertRole, string> | null = null;
    for (const rule of this.list) {
      if (rule.minBonus === null || !follows(rule, platform) || (rule.regions !== null && !rule.regions.has(region))) continue;
      keys ??= { survivor: conditionKey(platform, region, "survivor"), killer: conditionKey(platform, region, "killer") };
      for (const role of rule.roles) {
        const bonus = role === "survivor" ? survivor : killer;
        const holds = bonusHolds(bonus, rule.minBonus);
        if (holds !== rule.held.has(keys[role])) (turns ??= []).push({ rule, role, bonus, holds });
      }
    }
    if (turns === null) this.unturned.set(slot, { survivor, killer });
    return turns;
  }

  /** Writes turns to disk; call inside the transaction of the reading that turned them. */
  store(platform: string, region: string, turns: readonly Turn[]): void {
    for (const turn of turns) {
      if (turn.holds) this.insertHeld.run(turn.rule.id, platform, region, turn.role);
      else this.deleteHeld.run(turn.rule.id, platform, region, turn.role);
    }
  }

  /** Replaces a webhook's held conditions (when it is made or its conditions change); call inside a transaction, then reload. */
  reseed(webhookId: number, holding: readonly { platform: string; region: string; role: AlertRole }[]): void {
    this.clearHeld.run(webhookId);
    for (const c of holding) this.insertHeld.run(webhookId, c.platform, c.region, c.role);
  }

  /** Takes turns into memory once they are on disk. */
  remember(platform: string, region: string, turns: readonly Turn[]): void {
    for (const turn of turns) {
      const key = conditionKey(platform, region, turn.role);
      if (turn.holds) turn.rule.held.add(key);
      else turn.rule.held.delete(key);
    }
    if (turns.length > 0) this.unturned.clear();
  }
}
