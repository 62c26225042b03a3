/** Which push endpoints and VAPID subjects the hub accepts (SPEC §23), and the judgement it shares with the alerts. */
import { describe, expect, test } from "bun:test";
import { becameTrue } from "../../src/alerts/rules.ts";
import { endpointProblem } from "../../src/push/endpoint.ts";
import { bonusMessage, bonusUntil } from "../../src/push/messages.ts";
import { loadMessages } from "../../src/share/languages.ts";
import { testConfig } from "../helpers.ts";
import { pushOffReason, vapidSubject } from "../../src/push/vapid.ts";

describe("push endpoints", () => {
  test("https on the browsers' push services, or a host the operator lists", () => {
    for (const endpoint of [
      "https://fcm.googleapis.com/fcm/send/abc",
      "https://updates.push.services.mozilla.com/wpush/v2/abc",
      "https://web.push.apple.com/QGx",
      "https://wns2-by3p.notify.windows.com/w/?token=abc",
    ]) {
      expect(endpointProblem(endpoint, [])).toBeNull();
    }
    expect(endpointProblem("https://push.example.org/x", ["push.example.org"])).toBeNull();
  });

  test("anything else is refused, naming the rule", () => {
    expect(endpointProblem("http://fcm.googleapis.com/fcm/send/abc", [])).toContain("https");
    expect(endpointProblem("https://notify.windows.com/x", [])).toContain("known push service");
    expect(endpointProblem("https://evil.notify.windows.com.example.org/x", [])).toContain("known push service");
    expect(endpointProblem("https://fcm.googleapis.com.evil.org/x", [])).toContain("known push service");
    expect(endpointProblem("https://user:pw@fcm.googleapis.com/x", [])).toContain("user name");
    expect(endpointProblem(`https://fcm.googleapis.com/${"a".repeat(3000)}`, [])).toContain("at most");
    expect(endpointProblem("fcm.googleapis.com/x", [])).toContain("https");
  });
});

describe("the VAPID subject", () => {
  test("mailto: the contact e-mail, else an https origin, else push is off and says what to set", () => {
    expect(vapidSubject("ops@example.org", "http://localhost:3000")).toBe("mailto:ops@example.org");
    expect(vapidSubject(null, "https://hub.example.org")).toBe("https://hub.example.org");
    expect(vapidSubject(null, "http://localhost:3000")).toBeNull();
    expect(pushOffReason(true, null)).toContain("set CONTACT_EMAIL");
    expect(pushOffReason(false, "mailto:ops@example.org")).toContain("PUSH_ENABLED=false");
    expect(pushOffReason(true, "mailto:ops@example.org")).toBeNull();
  });
});

describe("until about …", () => {
  const point = (t: number, killer: number) => ({ t, survivor: 0, survivorLo: 0, survivorHi: 0, killer, killerLo: killer, killerHi: killer });
  const HOUR = 3_600_000;
  const now = Date.UTC(2026, 10, 28, 16, 10);

  test("the first forecast hour whose bonus is under half of now's; none when unsure or lasting past the horizon", () => {
    const points = [point(now - HOUR, 100), point(now + HOUR, 90), point(now + 2 * HOUR, 40), point(now + 3 * HOUR, 0)];
    expect(bonusUntil({ confidence: "medium", points }, "killer", 100, now)).toBe(now + 2 * HOUR);
    expect(bonusUntil({ confidence: "low", points }, "killer", 100, now)).toBeNull();
    expect(bonusUntil({ confidence: "high", points: [point(now + HOUR, 100)] }, "killer", 100, now)).toBeNull();
  });

  test("the message says it in the subscriber's language and the region's time", async () => {
    const catalogue = testConfig().catalogue;
    const until = Date.UTC(2026, 10, 28, 17, 40);
    const english = bonusMessage("en", await loadMessages("en"), catalogue, "https://hub.example.org", { platform: "Windows", region: "eu-central-1", role: "killer", bonus: 100, until });
    expect(english.title).toBe("EU Central (Frankfurt), Steam: Killer bonus +100%");
    expect(english.body).toBe("Queue as Killer now for ×2 bloodpoints. Until about 6:40 PM.");
    expect(english.url).toBe("https://hub.example.org/Windows/eu-central-1");
    expect(english.tag).toHaveLength(32);
    const german = bonusMessage("de", await loadMessages("de"), catalogue, "https://hub.example.org", { platform: "Windows", region: "eu-central-1", role: "killer", bonus: 100, until: null });
    expect(german.title).toBe("EU Central (Frankfurt), Steam: Bonus als Killer +100 %");
    expect(german.body).toBe("Geh jetzt als Killer in die Warteschlange für ×2 Blutpunkte.");
    expect(german.tag).toBe(english.tag);
  });
});

describe("becoming true", () => {
  test("fires when the bonus comes to meet the minimum, not while it stays there; 0 is never a bonus", () => {
    expect(becameTrue(0, 75, 75)).toBe(true);
    expect(becameTrue(50, 100, 75)).toBe(true);
    expect(becameTrue(75, 100, 75)).toBe(false);
    expect(becameTrue(100, 50, 75)).toBe(false);
    expect(becameTrue(0, 0, 0)).toBe(false);
    expect(becameTrue(0, 25, 0)).toBe(true);
  });
});
