import { clientKey } from "./presence.ts";
/**
 * Throttling of guesses at a secret (a password, a TOTP code, a passkey
 * assertion): after 10 failures for one username, or 50 from one IP, within
 * 15 minutes, further attempts are refused with 429 until the oldest counted
 * failure leaves the window. Refused attempts are not failures; a success
 * clears the username's count.
 *
 * An admitted attempt is counted as a failure at once, in the same turn as
 * the check, and given back only when it succeeds. Checking first and
 * counting after the (slow, asynchronous) verification would let any number
 * of parallel guesses through the check before the first one is counted.
 *
 * The per-IP count is kept per client identity (`clientKey`), as the stream
 * and request caps are: an IPv6 client is its /64, and an IPv4 address counts
 * once whether written plainly or as ::ffff:a.b.c.d.
 */

export const WINDOW_MS = 15 * 60_000;
export const MAX_PER_USERNAME = 10;
export const MAX_PER_IP = 50;
/** Bound on remembered keys, so a flood of made-up usernames cannot grow memory without end. */
const MAX_KEYS = 100_000;

/** What is being guessed: each has its own count per username, so failed logins cannot lock anyone out of their second factor, nor the reverse. */
export type Secret = "password" | "second-factor";

/** Which limit refused an attempt. */
export type ThrottleLimit = "username" | "ip";

/** An admitted attempt, already counted as a failure. */
export interface Attempt {
  /** The secret was right: clears the username's count and gives the IP its slot back. */
  succeed(): void;
}

export type Admission =
  | { readonly admitted: true; readonly attempt: Attempt }
  | { readonly admitted: false; readonly retryAfter: number; readonly limit: ThrottleLimit };

class FailureLog {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limit: number) {}

  private recent(key: string, now: number): number[] {
    const list = (this.failures.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
    if (list.length === 0) this.failures.delete(key);
    else this.failures.set(key, list);
    return list;
  }

  /** Seconds until another attempt is allowed, or null if one is allowed now. */
  retryAfter(key: string, now: number): number | null {
    const list = this.recent(key, now);
    if (list.length < this.limit) return null;
    const oldest = list[0] ?? now;
    return Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
  }

  add(key: string, now: number): void {
    if (this.failures.size >= MAX_KEYS) this.prune(now);
    const list = this.recent(key, now);
    list.push(now);
    this.failures.set(key, list);
  }

  /** Takes back one failure counted at `at` (any one: failures of the same instant are alike). */
  remove(key: string, at: number): void {
    const list = this.failures.get(key);
    const index = list?.indexOf(at) ?? -1;
    if (!list || index < 0) return;
    list.splice(index, 1);
    if (list.length === 0) this.failures.delete(key);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private prune(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now);
    if (this.failures.size >= MAX_KEYS) this.failures.clear();
  }
}

export class LoginThrottle {
  private readonly byUsername = new FailureLog(MAX_PER_USERNAME);
  private readonly byIp = new FailureLog(MAX_PER_IP);

  constructor(private readonly now: () => number) {}

  /** Admits one attempt at `secret` for `username` from `ip`, counting it as a failure until it succeeds, or refuses it. */
  admit(secret: Secret, username: string, ip: string): Admission {
    const now = this.now();
    const key = `${secret}:${username.toLowerCase()}`;
    const client = clientKey(ip);
    const user = this.byUsername.retryAfter(key, now);
    const address = this.byIp.retryAfter(client, now);
    if (user !== null || address !== null) {
      return { admitted: false, retryAfter: Math.max(user ?? 0, address ?? 0), limit: user !== null ? "username" : "ip" };
    }
    this.byUsername.add(key, now);
    this.byIp.add(client, now);
    return {
      admitted: true,
      attempt: {
        succeed: () => {
          this.byUsername.clear(key);
          this.byIp.remove(client, now);
        },
      },
    };
  }
}
