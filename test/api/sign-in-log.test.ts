/**
 * Forensics (SPEC §16): every failed sign-in and every throttle refusal is
 * logged at info or warn with the client's real IP, the username tried and
 * the reason, and never with the secret that was tried.
 */
import { describe, expect, test } from "bun:test";
import * as OTPAuth from "otpauth";
import { SoftwareAuthenticator } from "../authenticator.ts";
import { Browser } from "../browser.ts";
import { memoryLog, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";
const START = Date.parse("2026-11-21T18:00:00Z");
/** Secrets tried in this file: none may reach the log. */
const WRONG = ["W1-wrong-password", "W2-wrong-password", "W3-wrong-password", "W4-wrong-current", "W5-guess"];

function code(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at });
}

/** An admin "root" with TOTP and a passkey, a plain user "bob", a disabled user "carol"; the log at info, as a server runs by default. */
async function world() {
  let now = START;
  const { log, lines } = memoryLog("info");
  const h = testHub({ log, now: () => now });
  const admin = new Browser(h, "192.0.2.1");
  await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
  await admin.session();
  const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
  expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, now) })).status).toBe(204);
  // Activation replaced the session by a full one, with its own CSRF token.
  await admin.session();
  const authenticator = new SoftwareAuthenticator("http://localhost:3000");
  const options = await admin.json<{ publicKey: { challenge: string; rp: { id: string } } }>("POST", "/api/v1/auth/mfa/passkeys/registration");
  expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: await authenticator.create(options.body) })).status).toBe(201);
  expect((await admin.json("POST", "/api/v1/admin/users", { username: "bob", role: "user", password: PASSWORD })).status).toBe(201);
  const carol = await admin.json<{ user: { id: number } }>("POST", "/api/v1/admin/users", { username: "carol", role: "user", password: PASSWORD });
  await admin.json("PATCH", `/api/v1/admin/users/${carol.body.user.id}`, { enabled: false });
  now += 30_000;
  lines.length = 0;
  return { h, lines, totpSecret: body.secret, authenticator, now: () => now };
}

const refusals = (lines: readonly Record<string, unknown>[]) => lines.filter((l) => l.msg === "sign-in refused" || l.msg === "sign-in throttled");

describe("the sign-in log", () => {
  test("every failed sign-in is logged at info with the IP, the username tried and the reason", async () => {
    const { h, lines, totpSecret, authenticator, now } = await world();
    expect((await new Browser(h, "198.51.100.1").login("bob", WRONG[0] ?? "")).status).toBe(401);
    expect((await new Browser(h, "198.51.100.2").login("mallory", WRONG[1] ?? "")).status).toBe(401);
    expect((await new Browser(h, "198.51.100.3").login("carol", PASSWORD)).status).toBe(401);

    const partial = new Browser(h, "2001:db8::4");
    expect((await partial.login("root", PASSWORD)).next).toBe("mfa");
    const right = code(totpSecret, now());
    expect((await partial.json("POST", "/api/v1/auth/mfa/totp/verification", { code: right === "123456" ? "654321" : "123456" })).status).toBe(401);
    const challenge = await partial.json<{ publicKey: { challenge: string; rpId: string } }>("POST", "/api/v1/auth/mfa/passkeys/challenge");
    const forged = await authenticator.get(challenge.body, { origin: "https://evil.example.org" });
    expect((await partial.json("POST", "/api/v1/auth/mfa/passkeys/verification", forged)).status).toBe(401);

    const bob = new Browser(h, "198.51.100.5");
    await bob.login("bob", PASSWORD);
    expect((await bob.json("POST", "/api/v1/auth/password", { currentPassword: WRONG[3], newPassword: "a brand new password" })).status).toBe(403);

    expect(refusals(lines).map(({ level, msg, ip, username, step, reason }) => ({ level, msg, ip, username, step, reason }))).toEqual([
      { level: "info", msg: "sign-in refused", ip: "198.51.100.1", username: "bob", step: "login", reason: "wrong password" },
      { level: "info", msg: "sign-in refused", ip: "198.51.100.2", username: "mallory", step: "login", reason: "unknown user" },
      { level: "info", msg: "sign-in refused", ip: "198.51.100.3", username: "carol", step: "login", reason: "disabled user" },
      { level: "info", msg: "sign-in refused", ip: "2001:db8::4", username: "root", step: "totp", reason: "wrong or reused code" },
      { level: "info", msg: "sign-in refused", ip: "2001:db8::4", username: "root", step: "passkey", reason: "passkey assertion not verified" },
      { level: "info", msg: "sign-in refused", ip: "198.51.100.5", username: "bob", step: "password change", reason: "wrong current password" },
    ]);
    const logged = JSON.stringify(lines);
    for (const secret of [...WRONG, PASSWORD]) expect(logged).not.toContain(secret);
    expect(logged).not.toContain("0.0.0.0");
  });

  test("a throttle refusal is logged at warn with the IP, the username tried, which limit and the wait", async () => {
    const { h, lines } = await world();
    for (let i = 0; i < 10; i++) expect((await new Browser(h, `198.51.100.${10 + i}`).login("Bob", `${WRONG[4]}-${i}`)).status).toBe(401);
    expect((await new Browser(h, "203.0.113.99").login("bob", PASSWORD)).status).toBe(429);
    const attacker = new Browser(h, "198.51.100.66");
    for (let i = 0; i < 50; i++) await attacker.login(`user${i}`, `${WRONG[4]}-${i}`);
    expect((await attacker.login("root", PASSWORD)).status).toBe(429);

    const throttled = lines.filter((l) => l.msg === "sign-in throttled");
    expect(throttled).toEqual([
      expect.objectContaining({ level: "warn", ip: "203.0.113.99", username: "bob", step: "login", reason: "too many failures for this username", retryAfter: 15 * 60 }),
      expect.objectContaining({ level: "warn", ip: "198.51.100.66", username: "root", step: "login", reason: "too many failures from this IP", retryAfter: 15 * 60 }),
    ]);
    expect(refusals(lines)).toHaveLength(62);
    expect(JSON.stringify(lines)).not.toContain(WRONG[4] ?? "");
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);
  }, 30_000);
});
