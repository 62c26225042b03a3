/** The event-alert budget per destination (SPEC §16.3), shared by webhooks and push subscriptions. */
import { describe, expect, test } from "bun:test";
import { EVENT_ALERT_LIMIT, eventAlertDestination, EventAlertRate } from "../../src/alerts/event-rate.ts";
import { summarize } from "../../src/alerts/formats/summary.ts";
import type { AlertMessage } from "../../src/alerts/model.ts";

const T = Date.parse("2026-11-27T12:00:00.000Z");
const MINUTE = 60_000;

function admitAt(rate: EventAlertRate, now: number, destination: string) {
  const batch = rate.begin(now);
  const verdict = batch.admit(destination);
  batch.commit();
  return verdict;
}

describe("EventAlertRate", () => {
  test("six in any hour (sliding); the rest are held back and summed up in the next one allowed", () => {
    const rate = new EventAlertRate();
    const hook = eventAlertDestination.webhook(1);
    const verdicts = Array.from({ length: 9 }, (_, i) => admitAt(rate, T + i * MINUTE, hook));
    expect(verdicts.map((v) => v.send)).toEqual([true, true, true, true, true, true, false, false, false]);
    expect(admitAt(rate, T + 60 * MINUTE - 1, hook)).toEqual({ send: false, heldBack: { count: 4, since: T + 6 * MINUTE } });
    // The first one leaves the window: one place is free, and it carries the four held back since the seventh.
    expect(admitAt(rate, T + 60 * MINUTE, hook)).toEqual({ send: true, heldBack: { count: 4, since: T + 6 * MINUTE } });
    expect(admitAt(rate, T + 61 * MINUTE, hook)).toEqual({ send: true, heldBack: null });
    expect(admitAt(rate, T + 61 * MINUTE, hook)).toEqual({ send: false, heldBack: { count: 1, since: T + 61 * MINUTE } });
  });

  test("each destination has its own budget: a webhook and a push subscription of the same id do not share one", () => {
    const rate = new EventAlertRate();
    for (let i = 0; i < EVENT_ALERT_LIMIT.count; i++) expect(admitAt(rate, T, eventAlertDestination.webhook(7)).send).toBe(true);
    expect(admitAt(rate, T, eventAlertDestination.webhook(7)).send).toBe(false);
    expect(admitAt(rate, T, eventAlertDestination.push(7)).send).toBe(true);
    expect(admitAt(rate, T, eventAlertDestination.webhook(8)).send).toBe(true);
  });

  test("a batch counts its own admissions, and costs nothing until committed", () => {
    const rate = new EventAlertRate();
    const hook = eventAlertDestination.push("abc");
    const batch = rate.begin(T);
    expect(Array.from({ length: 8 }, () => batch.admit(hook).send)).toEqual([true, true, true, true, true, true, false, false]);
    // Not committed (the write was refused): the next judgement has the whole budget.
    const again = rate.begin(T);
    expect(Array.from({ length: 6 }, () => again.admit(hook).send).every(Boolean)).toBe(true);
  });

  test("seeded sends count, so a restart grants no new budget; a forgotten destination starts afresh", () => {
    const rate = new EventAlertRate();
    const hook = eventAlertDestination.webhook(3);
    rate.seed(hook, [T - 50 * MINUTE, T - 40 * MINUTE, T - 30 * MINUTE, T - 20 * MINUTE, T - 10 * MINUTE]);
    expect(admitAt(rate, T, hook).send).toBe(true);
    expect(admitAt(rate, T, hook).send).toBe(false);
    expect(admitAt(rate, T + 10 * MINUTE, hook)).toEqual({ send: true, heldBack: { count: 1, since: T } });
    rate.forget(hook);
    expect(admitAt(rate, T + 10 * MINUTE, hook)).toEqual({ send: true, heldBack: null });
  });
});

describe("the summary of what was held back", () => {
  const started: AlertMessage = {
    type: "event.started",
    timestamp: "2026-11-27T13:00:00.000Z",
    data: { key: "bp", label: "Bloodhunt", multiplier: 2, startsAt: "2026-11-27T12:00:00.000Z", endsAt: "2026-11-28T12:00:00.000Z", platforms: ["EGS"], url: "https://hub.example/EGS" },
  };

  test("the chat formats say how many event changes were held back and since when; without any, nothing is added", () => {
    const held = summarize({ ...started, data: { ...started.data, heldBack: { count: 33, since: "2026-11-27T12:00:45.000Z" } } } as AlertMessage);
    const sentence = "33 more event changes were held back since 2026-11-27T12:00:45.000Z (at most 6 event alerts an hour).";
    expect(held.text).toEndWith(sentence);
    expect(held.fields.at(-1)).toEqual({ name: "Held back", value: sentence });
    const plain = summarize(started);
    expect(plain.fields.map((field) => field.name)).not.toContain("Held back");
    expect(plain.text).not.toContain("held back");
  });
});
