/**
 * The live path's judgement of a reading against the webhooks (AlertRules):
 * a value that turned nothing is not judged again while nothing changed, and
 * the kept answer is dropped whenever a condition turns or the rules change.
 */
import { describe, expect, test } from "bun:test";
import { AlertRules } from "../../src/alerts/rules.ts";
import { migrate, openDatabase, type HubDb } from "../../src/db/open.ts";

function withWebhook(minBonus: number): { db: HubDb; id: number } {
  const db = openDatabase(":memory:");
  migrate(db);
  db.sqlite
    .query(
      "INSERT INTO webhooks (url, format, enabled, platforms, regions, roles, min_bonus, on_status, on_events, secret, created_at, updated_at) " +
        "VALUES ('http://192.0.2.1/hook', 'json', 1, NULL, NULL, '[\"killer\"]', ?, 0, 0, '', 0, 0)",
    )
    .run(minBonus);
  const id = db.sqlite.query<{ id: number }, []>("SELECT id FROM webhooks").get()?.id ?? 0;
  return { db, id };
}

/** What the live path does with a reading that becomes live: judge it, then take what turned into memory. */
function offer(rules: AlertRules, killer: number, region = "eu-west-1"): boolean[] | null {
  const turns = rules.turns("Windows", region, 0, killer);
  if (turns) rules.remember("Windows", region, turns);
  return turns?.map((turn) => turn.holds) ?? null;
}

describe("AlertRules.turns", () => {
  test("the same value turns again after a condition turned in between: fires, stays quiet, re-arms, fires again", () => {
    const { db } = withWebhook(50);
    const rules = new AlertRules(db);
    expect(offer(rules, 75)).toEqual([true]);
    expect(offer(rules, 75)).toBeNull();
    expect(offer(rules, 0)).toEqual([false]);
    expect(offer(rules, 75)).toEqual([true]);
    expect(offer(rules, 75)).toBeNull();
    expect(offer(rules, 0)).toEqual([false]);
    expect(offer(rules, 0)).toBeNull();
  });

  test("a value kept as turning nothing is judged afresh once the rules are reloaded", () => {
    const { db, id } = withWebhook(100);
    const rules = new AlertRules(db);
    expect(offer(rules, 75)).toBeNull();
    db.sqlite.query("UPDATE webhooks SET min_bonus = 50 WHERE id = ?").run(id);
    rules.reload();
    expect(offer(rules, 75)).toEqual([true]);
  });

  test("each (platform, region) keeps its own answer", () => {
    const { db } = withWebhook(50);
    const rules = new AlertRules(db);
    expect(offer(rules, 0, "eu-west-1")).toBeNull();
    expect(offer(rules, 75, "eu-west-2")).toEqual([true]);
    expect(offer(rules, 75, "eu-west-1")).toEqual([true]);
    expect(offer(rules, 0, "eu-west-2")).toEqual([false]);
  });
});
