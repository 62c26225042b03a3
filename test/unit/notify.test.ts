import { describe, expect, test } from "bun:test";
import type { IncentivesPayload, Platform } from "../../src/web/api/client.ts";
import { crossings, notify, rules, type AlertRule } from "../../src/web/notify.ts";

function payload(killer: number, options: { stale?: boolean; isReal?: boolean; platform?: Platform } = {}): IncentivesPayload {
  return {
    platform: options.platform ?? "Windows",
    status: "ok",
    statusReason: null,
    updatedAt: null,
    version: null,
    category: null,
    activeEvent: null,
    nextEvent: null,
    generatedAt: "2026-11-23T00:00:00.000Z",
    regions: [
      { region: "eu-west-1", displayName: "EU West (Ireland)", flag: "", survivor: 0, killer, ratio: 1, isReal: options.isReal ?? true, stale: options.stale ?? false, lastUpdated: null, since: null },
    ],
  };
}

describe("browser alerts", () => {
  test("a rule fires when it becomes true, once, and again only after it stopped holding", () => {
    const rule: AlertRule = { platform: "Windows", region: "eu-west-1", role: "killer", min: 100 };
    expect(crossings(payload(50), [rule])).toEqual([]);
    expect(crossings(payload(100), [rule])).toEqual([{ rule, displayName: "EU West (Ireland)", bonus: 100 }]);
    expect(crossings(payload(150), [rule])).toEqual([]);
    expect(crossings(payload(0), [rule])).toEqual([]);
    expect(crossings(payload(125), [rule])).toEqual([{ rule, displayName: "EU West (Ireland)", bonus: 125 }]);
  });

  test("stale or unreal values, other platforms and other roles never fire", () => {
    const rule: AlertRule = { platform: "EGS", region: "eu-west-1", role: "survivor", min: 25 };
    expect(crossings(payload(150, { platform: "EGS" }), [rule])).toEqual([]);
    const killer: AlertRule = { platform: "GRDK", region: "eu-west-1", role: "killer", min: 25 };
    expect(crossings(payload(150, { platform: "GRDK", stale: true }), [killer])).toEqual([]);
    expect(crossings(payload(150, { platform: "GRDK", isReal: false }), [killer])).toEqual([]);
    expect(crossings(payload(150, { platform: "Windows" }), [killer])).toEqual([]);
    expect(crossings(payload(150, { platform: "GRDK" }), [killer]).length).toBe(1);
  });
});

describe("raising notifications from the stream", () => {
  test("the browser is asked for its permission only when a rule could fire on the payload's platform", () => {
    let asked = 0;
    let shown = 0;
    const scope = globalThis as unknown as Record<string, unknown>;
    const saved = { window: scope.window, Notification: scope.Notification };
    class FakeNotification {
      static get permission(): NotificationPermission {
        asked++;
        return "granted";
      }
      onclick: (() => void) | null = null;
      constructor() {
        shown++;
      }
    }
    scope.Notification = FakeNotification;
    scope.window = scope;
    const text = () => ({ title: "t", body: "b" });
    try {
      rules.value = [];
      notify(payload(150), text, () => undefined);
      expect(asked).toBe(0);
      rules.value = [{ platform: "EGS", region: "eu-west-1", role: "killer", min: 50 }];
      notify(payload(150), text, () => undefined);
      expect(asked).toBe(0);
      const windows: AlertRule = { platform: "Windows", region: "eu-west-1", role: "killer", min: 50 };
      // Not holding before (an earlier test left it holding): the next payload is a crossing.
      crossings(payload(0), [windows]);
      rules.value = [...rules.value, windows];
      notify(payload(150), text, () => undefined);
      expect({ asked, shown }).toEqual({ asked: 1, shown: 1 });
    } finally {
      rules.value = [];
      scope.window = saved.window;
      scope.Notification = saved.Notification;
    }
  });
});
