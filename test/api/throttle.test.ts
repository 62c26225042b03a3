/**
 * The sign-in throttle under concurrency (SPEC §10, §16): every attempt is
 * counted before its secret is checked, so a burst of parallel guesses gets
 * no more tries than a patient attacker would.
 */
import { describe, expect, spyOn, test } from "bun:test";
import * as OTPAuth from "otpauth";
import { SoftwareAuthenticator } from "../authenticator.ts";
import { Browser } from "../browser.ts";
import { expectProblem, testHub } from "../helpers.ts";

const PASSWORD = "correct horse battery";
const BURST = 200;
/** Where the right secret sits in each burst: long after the 10th guess. */
const RIGHT_AT = 180;
const START = Date.parse("2026-11-21T18:00:00Z");

function code(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at });
}

/** A hub whose admin "root" needs no second factor, and a plain user "bob". */
async function accounts() {
  const h = testHub({ env: { MFA_ENFORCED_ROLES: "" }, now: () => START });
  const admin = new Browser(h, "192.0.2.1");
  expect((await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD })).status).toBe(201);
  await admin.session();
  expect((await admin.json("POST", "/api/v1/admin/users", { username: "bob", role: "user", password: PASSWORD })).status).toBe(201);
  return h;
}

/** How many replies had each status. */
function tally(statuses: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Every reply in a burst that was refused by the throttle is a problem with a sensible Retry-After. */
function expectThrottled(responses: readonly Response[]): void {
  for (const response of responses.filter((r) => r.status === 429)) {
    expectProblem(response);
    const wait = Number(response.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(15 * 60);
  }
}

function storedHash(h: ReturnType<typeof testHub>, username: string): string | null {
  return h.ctx.db.sqlite.query<{ password_hash: string | null }, [string]>("SELECT password_hash FROM users WHERE username = ?").get(username)?.password_hash ?? null;
}

describe("parallel sign-in guesses", () => {
  test(`${BURST} parallel guesses for one username from many IPs: 10 × 401, then 429, and the right password late in the burst does not sign in`, async () => {
    const h = await accounts();
    const verify = spyOn(Bun.password, "verify");
    try {
      const browsers = Array.from({ length: BURST }, (_, i) => new Browser(h, `198.51.100.${i % 250}`));
      const responses = await Promise.all(
        browsers.map((browser, i) => browser.request("POST", "/api/v1/auth/login", { body: { username: "bob", password: i === RIGHT_AT ? PASSWORD : `guess number ${i}` } })),
      );
      expect(tally(responses.map((r) => r.status))).toEqual({ 401: 10, 429: BURST - 10 });
      expect(responses[RIGHT_AT]?.status).toBe(429);
      expect(browsers[RIGHT_AT]?.cookies.has("hub_session")).toBe(false);
      expect(verify).toHaveBeenCalledTimes(10);
      expectThrottled(responses);
    } finally {
      verify.mockRestore();
    }
    expect(h.ctx.db.sqlite.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'bob'").get()?.n).toBe(0);
  });

  test(`${BURST} parallel guesses from one IP at many usernames: 50 × 401, then 429 for every username from it`, async () => {
    const h = await accounts();
    const ip = "198.51.100.77";
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        new Browser(h, ip).request("POST", "/api/v1/auth/login", { body: i === RIGHT_AT ? { username: "bob", password: PASSWORD } : { username: `user${i}`, password: "not the password" } }),
      ),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 50, 429: BURST - 50 });
    expect(responses[RIGHT_AT]?.status).toBe(429);
    expectThrottled(responses);
    expect((await new Browser(h, ip).login("root", PASSWORD)).status).toBe(429);
    expect((await new Browser(h, "198.51.100.78").login("bob", PASSWORD)).status).toBe(200);
  });

  test("a right password among the first ten parallel guesses signs in", async () => {
    const h = await accounts();
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) => new Browser(h, `198.51.100.${i}`).request("POST", "/api/v1/auth/login", { body: { username: "bob", password: i === 2 ? PASSWORD : `guess ${i} of five` } })),
    );
    expect(responses.map((r) => r.status)).toEqual([401, 401, 200, 401, 401]);
  });
});

describe("the per-IP limit counts one client once (SPEC §16.1)", () => {
  /** Sign-in guesses from each address in turn, each at a username of its own, so no username limit is reached. */
  const guesses = (h: ReturnType<typeof testHub>, addresses: readonly string[]) =>
    Promise.all(addresses.map((ip, i) => new Browser(h, ip).request("POST", "/api/v1/auth/login", { body: { username: `nobody${i}`, password: "not the password" } })));

  test("70 guesses from 70 addresses of one IPv6 /64: 50 × 401, then 429; another /64 is not held up", async () => {
    const h = await accounts();
    const addresses = Array.from({ length: 70 }, (_, i) => `2001:db8:1:2::${(i + 1).toString(16)}`);
    const responses = await guesses(h, addresses);
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 50, 429: 20 });
    expectThrottled(responses);
    expect((await new Browser(h, "2001:db8:1:2:ffff:ffff:ffff:ffff").login("bob", PASSWORD)).status).toBe(429);
    expect((await new Browser(h, "2001:db8:1:3::1").login("bob", PASSWORD)).status).toBe(200);
  });

  test("an IPv4 address and its ::ffff: spelling share one count", async () => {
    const h = await accounts();
    const addresses = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? "198.51.100.7" : "::ffff:198.51.100.7"));
    const responses = await guesses(h, addresses);
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 50, 429: 50 });
    expect((await new Browser(h, "::ffff:198.51.100.7").login("bob", PASSWORD)).status).toBe(429);
    expect((await new Browser(h, "198.51.100.7").login("bob", PASSWORD)).status).toBe(429);
  });
});

describe("parallel second-factor guesses", () => {
  test(`${BURST} parallel TOTP codes: 10 × 401, then 429, and the right code late in the burst is refused`, async () => {
    let now = START;
    const h = testHub({ now: () => now });
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, now) })).status).toBe(204);
    now += 30_000;
    const guesser = new Browser(h, "198.51.100.9");
    expect(await guesser.login("root", PASSWORD)).toMatchObject({ status: 200, next: "mfa" });
    const right = code(body.secret, now);
    const wrong = (i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, "0");
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) => guesser.request("POST", "/api/v1/auth/mfa/totp/verification", { body: { code: i === RIGHT_AT ? right : wrong(i) } })),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 10, 429: BURST - 10 });
    expect(responses[RIGHT_AT]?.status).toBe(429);
    expectThrottled(responses);
    expect((await guesser.session()).authenticated).toBe(false);
  });

  test("parallel forged passkey assertions from many sessions: 10 × 401, then 429", async () => {
    const h = testHub({ now: () => START });
    const origin = "http://localhost:3000";
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const authenticator = new SoftwareAuthenticator(origin);
    const options = await admin.json<{ publicKey: { challenge: string; rp: { id: string } } }>("POST", "/api/v1/auth/mfa/passkeys/registration");
    expect((await admin.json("POST", "/api/v1/auth/mfa/passkeys", { response: await authenticator.create(options.body) })).status).toBe(201);
    // One pending challenge per session, so each guess needs a session of its own; they sign in one by one, since
    // logins in flight count against the username too.
    const sessions: { browser: Browser; assertion: unknown }[] = [];
    for (let i = 0; i < 14; i++) {
      const browser = new Browser(h, `198.51.100.${i}`);
      expect((await browser.login("root", PASSWORD)).next).toBe("mfa");
      const challenge = await browser.json<{ publicKey: { challenge: string; rpId: string } }>("POST", "/api/v1/auth/mfa/passkeys/challenge");
      sessions.push({ browser, assertion: await authenticator.get(challenge.body, { origin: "https://evil.example.org" }) });
    }
    const responses = await Promise.all(sessions.map(({ browser, assertion }) => browser.request("POST", "/api/v1/auth/mfa/passkeys/verification", { body: assertion })));
    expect(tally(responses.map((r) => r.status))).toEqual({ 401: 10, 429: 4 });
    expectThrottled(responses);
  });

  test("no username typed at login shares a count with a user's second factor", async () => {
    let now = START;
    const h = testHub({ now: () => now });
    const admin = new Browser(h);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, now) });
    now += 30_000;
    const partial = new Browser(h, "198.51.100.20");
    await partial.login("root", PASSWORD);
    for (const username of ["root", "mfa:root", "second-factor:root"]) {
      const guesses = Array.from({ length: 10 }, (_, i) => new Browser(h, `198.51.100.${30 + i}`).request("POST", "/api/v1/auth/login", { body: { username, password: `wrong ${i}` } }));
      expect((await Promise.all(guesses)).map((r) => r.status)).toEqual(Array<number>(10).fill(401));
    }
    expect((await new Browser(h, "198.51.100.50").login("root", PASSWORD)).status).toBe(429);
    expect((await partial.json("POST", "/api/v1/auth/mfa/totp/verification", { code: code(body.secret, now) })).status).toBe(200);
  });
});

describe("parallel current-password guesses", () => {
  test(`${BURST} parallel password changes with wrong current passwords: 10 × 403, then 429, and the right one late in the burst changes nothing`, async () => {
    const h = await accounts();
    const bob = new Browser(h, "198.51.100.60");
    await bob.login("bob", PASSWORD);
    const before = storedHash(h, "bob");
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        bob.request("POST", "/api/v1/auth/password", { body: { currentPassword: i === RIGHT_AT ? PASSWORD : `wrong current ${i}`, newPassword: "a brand new password" } }),
      ),
    );
    expect(tally(responses.map((r) => r.status))).toEqual({ 403: 10, 429: BURST - 10 });
    expect(responses[RIGHT_AT]?.status).toBe(429);
    expectThrottled(responses);
    expect(storedHash(h, "bob")).toBe(before);
  });
});
