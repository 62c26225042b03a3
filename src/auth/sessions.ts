/**
 * Browser sessions. The cookie holds a random id; the database holds only
 * its HMAC-SHA-256 under SESSION_SECRET. Sessions slide: each use within the
 * lifetime pushes the expiry out again (written at most once a minute), but
 * never past 30 days after sign-in, so a stolen cookie kept busy does not
 * live for ever. A session that changes level is replaced by a new one (new
 * id, new CSRF token) and the old id revoked, so an id that was seen before
 * the second factor (or planted in a browser) is worth nothing after it.
 */
import { and, eq, lt, lte, ne, or } from "drizzle-orm";
import type { Orm } from "../db/open.ts";
import { sessions } from "../db/schema.ts";
import { writeIfPossible } from "../db/storage.ts";
import type { AuthLevel } from "../domain/auth-levels.ts";
import { randomToken } from "../domain/tokens.ts";

export const SESSION_COOKIE = "hub_session";
/** The name on an https origin: browsers keep a __Host- cookie only if it is Secure, for Path=/ and without Domain, so no sibling host can set or shadow it. */
export const HOST_SESSION_COOKIE = "__Host-hub_session";
export type Session = typeof sessions.$inferSelect;
export type ChallengeKind = "webauthn-register" | "webauthn-authenticate";

const TOUCH_INTERVAL_MS = 60_000;
/** The absolute lifetime of a session, however often it is used. */
export const SESSION_MAX_AGE_MS = 30 * 86_400_000;

export function keyedHash(secret: string, value: string): string {
  return new Bun.CryptoHasher("sha256", secret).update(value).digest("hex");
}

export class SessionStore {
  constructor(
    private readonly orm: Orm,
    private readonly secret: string,
    readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  hash(raw: string): string {
    return keyedHash(this.secret, raw);
  }

  /** A new session for a user who has just proven who they are (`fromSetup` for the one setup issues). */
  create(userId: number, level: AuthLevel, options: { fromSetup?: boolean } = {}): { raw: string; session: Session } {
    return this.insert(userId, level, this.now(), options.fromSetup ?? false);
  }

  private insert(userId: number, level: AuthLevel, createdAt: number, fromSetup: boolean): { raw: string; session: Session } {
    const raw = randomToken(32);
    const now = this.now();
    const session = this.orm
      .insert(sessions)
      .values({
        idHash: this.hash(raw),
        userId,
        authLevel: level,
        csrfToken: randomToken(32),
        createdAt,
        lastSeenAt: now,
        expiresAt: this.expiryAt(createdAt, now),
        authenticatedAt: now,
        fromSetup,
      })
      .returning()
      .get();
    return { raw, session };
  }

  /**
   * Replaces a session whose level changes: a new id and CSRF token at
   * `level`, checked just now, and the old id revoked in the same
   * transaction. The sign-in time is kept, so rotating never stretches the
   * 30-day lifetime.
   */
  rotate(old: Session, level: AuthLevel): { raw: string; session: Session } {
    return this.orm.transaction(
      () => {
        this.destroy(old.idHash);
        return this.insert(old.userId, level, old.createdAt, old.fromSetup);
      },
      { behavior: "immediate" },
    );
  }

  /** Records a password or second-factor check made by this session's holder just now. */
  markAuthenticated(idHash: string): void {
    this.orm.update(sessions).set({ authenticatedAt: this.now() }).where(eq(sessions.idHash, idHash)).run();
  }

  /** The sliding expiry after a use at `now`, capped by the absolute lifetime. */
  private expiryAt(createdAt: number, now: number): number {
    return Math.min(now + this.ttlMs, createdAt + SESSION_MAX_AGE_MS);
  }

  /** The live session for a cookie value, or null (an expired one is removed). */
  find(raw: string): Session | null {
    if (raw.length === 0 || raw.length > 128) return null;
    const idHash = this.hash(raw);
    const session = this.orm.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
    if (!session) return null;
    // The creation time is checked too: sessions stored before the cap have an expiry beyond it.
    const now = this.now();
    if (session.expiresAt <= now || session.createdAt + SESSION_MAX_AGE_MS <= now) {
      // Left for the hourly sweep when storage refuses the delete: the session is refused either way.
      writeIfPossible(() => this.destroy(idHash));
      return null;
    }
    return session;
  }

  /** Slides the expiry; returns true when it moved (so the cookie should be sent again). */
  touch(session: Session): boolean {
    const now = this.now();
    if (now - session.lastSeenAt < TOUCH_INTERVAL_MS) return false;
    // Skipped while storage refuses writes (another process holds the lock, the disk is full): a later request renews it.
    return writeIfPossible(() => {
      this.orm.update(sessions).set({ lastSeenAt: now, expiresAt: this.expiryAt(session.createdAt, now) }).where(eq(sessions.idHash, session.idHash)).run();
    });
  }

  destroy(idHash: string): void {
    this.orm.delete(sessions).where(eq(sessions.idHash, idHash)).run();
  }

  /** Ends every session of a user, except one when given. */
  destroyForUser(userId: number, exceptIdHash?: string): void {
    const where = exceptIdHash ? and(eq(sessions.userId, userId), ne(sessions.idHash, exceptIdHash)) : eq(sessions.userId, userId);
    this.orm.delete(sessions).where(where).run();
  }

  setChallenge(idHash: string, kind: ChallengeKind, challenge: string, ttlMs: number): void {
    this.orm
      .update(sessions)
      .set({ challenge, challengeKind: kind, challengeExpiresAt: this.now() + ttlMs })
      .where(eq(sessions.idHash, idHash))
      .run();
  }

  /** Takes the pending challenge of this kind: it can be used once, and only before it expires. */
  takeChallenge(idHash: string, kind: ChallengeKind): string | null {
    const row = this.orm.select().from(sessions).where(eq(sessions.idHash, idHash)).get();
    this.orm.update(sessions).set({ challenge: null, challengeKind: null, challengeExpiresAt: null }).where(eq(sessions.idHash, idHash)).run();
    if (!row?.challenge || row.challengeKind !== kind || (row.challengeExpiresAt ?? 0) <= this.now()) return null;
    return row.challenge;
  }

  pruneExpired(): void {
    const now = this.now();
    this.orm.delete(sessions).where(or(lt(sessions.expiresAt, now), lte(sessions.createdAt, now - SESSION_MAX_AGE_MS))).run();
  }
}
