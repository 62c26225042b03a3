/** Remembered devices: a `hub_device` cookie lets a user's later logins from that browser skip the second factor for 30 days. */
import { and, eq, gt } from "drizzle-orm";
import type { Orm } from "../db/open.ts";
import { trustedDevices } from "../db/schema.ts";
import { keyedHash } from "./sessions.ts";
import { randomToken } from "../domain/tokens.ts";

export const DEVICE_COOKIE = "hub_device";
export const DEVICE_TTL_MS = 30 * 24 * 60 * 60_000;

export class TrustedDevices {
  constructor(
    private readonly orm: Orm,
    private readonly secret: string,
    private readonly now: () => number,
  ) {}

  remember(userId: number): string {
    const raw = randomToken(32);
    const now = this.now();
    this.orm.insert(trustedDevices).values({ userId, tokenHash: keyedHash(this.secret, raw), createdAt: now, expiresAt: now + DEVICE_TTL_MS }).run();
    return raw;
  }

  isTrusted(raw: string | undefined, userId: number): boolean {
    if (!raw || raw.length > 128) return false;
    const now = this.now();
    const row = this.orm
      .select({ id: trustedDevices.id })
      .from(trustedDevices)
      .where(and(eq(trustedDevices.tokenHash, keyedHash(this.secret, raw)), eq(trustedDevices.userId, userId), gt(trustedDevices.expiresAt, now)))
      .get();
    if (!row) return false;
    this.orm.update(trustedDevices).set({ lastUsedAt: now }).where(eq(trustedDevices.id, row.id)).run();
    return true;
  }

  forgetAll(userId: number): void {
    this.orm.delete(trustedDevices).where(eq(trustedDevices.userId, userId)).run();
  }
}
