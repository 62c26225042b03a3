/**
 * Login throttling: after 10 failures for one username, or 50 from one IP,
 * within 15 minutes, further attempts are refused with 429 until the oldest
 * counted failure leaves the window. Refused attempts are not failures; a
 * successful login clears the username's count.
 */
export const WINDOW_MS = 15 * 60_000;
export const MAX_PER_USERNAME = 10;
export const MAX_PER_IP = 50;
/** Bound on remembered keys, so a flood of made-up usernames cannot grow memory without end. */
const MAX_KEYS = 100_000;

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

  /** Seconds to wait, or null when the attempt may go ahead. */
  check(username: string, ip: string): number | null {
    const now = this.now();
    const user = this.byUsername.retryAfter(username.toLowerCase(), now);
    const address = this.byIp.retryAfter(ip, now);
    if (user === null && address === null) return null;
    return Math.max(user ?? 0, address ?? 0);
  }

  fail(username: string, ip: string): void {
    const now = this.now();
    this.byUsername.add(username.toLowerCase(), now);
    this.byIp.add(ip, now);
  }

  succeed(username: string): void {
    this.byUsername.clear(username.toLowerCase());
  }
}
