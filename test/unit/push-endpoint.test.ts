/** Which push endpoints and VAPID subjects the hub accepts (SPEC §23), and the judgement it shares with the alerts. */
import { describe, expect, test } from "bun:test";
import { becameTrue } from "../../src/alerts/rules.ts";
import { endpointProblem } from "../../src/push/endpoint.ts";
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
