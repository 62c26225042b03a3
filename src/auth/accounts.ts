/**
 * Who is asking, and the account flows: first-admin setup, login, the
 * session body, password change and the first MFA policy choice.
 */
import { ConfigError, type Config } from "../config/load.ts";
import { ROLES, type Role } from "../config/options.ts";
import { ANONYMOUS_ACTOR, audit, type Actor } from "../db/audit.ts";
import type { HubDb } from "../db/open.ts";
import { users } from "../db/schema.ts";
import {
  adminExists,
  enrolledMethods,
  findUserById,
  findUserByName,
  insertUser,
  toUserBody,
  USERNAME_PATTERN,
  type UserBody,
  type UserRow,
} from "../db/users.ts";
import { HttpProblem } from "../domain/problem.ts";
import type { Logger } from "../log.ts";
import type { RuntimeSettings } from "../settings.ts";
import { eq } from "drizzle-orm";
import { ApiKeys, presentedApiKeys } from "./apikeys.ts";
import { TrustedDevices } from "./devices.ts";
import { Passkeys } from "./passkeys.ts";
import { hashPassword, hashPasswordSync, isFieldPasswordHash, passwordProblem, verifyPassword } from "./passwords.ts";
import type { HubSecrets } from "./keys.ts";
import { Presence } from "./presence.ts";
import type { AuthLevel, Method } from "../domain/auth-levels.ts";
import { SessionStore, type Session } from "./sessions.ts";
import type { TotpSecrets } from "./totp.ts";
import { LoginThrottle, type Attempt, type Secret } from "./throttle.ts";

export type Next = "ok" | "mfa" | "enroll_mfa";

export interface UserPrincipal {
  readonly user: UserRow;
  readonly via: "session" | "apiKey";
  /** Null when the request came with an API key. */
  readonly session: Session | null;
  readonly level: AuthLevel;
}

export interface Resolution {
  readonly principal: UserPrincipal | null;
  /** Why presented credentials were refused (an unknown, expired, switched-off or conflicting API key), when they were. */
  readonly refusal: string | null;
  /** The session's expiry moved: send the cookie again. */
  readonly renewCookie: boolean;
}

export interface SessionBody {
  readonly authenticated: boolean;
  readonly authLevel: AuthLevel | null;
  readonly csrfToken: string | null;
  readonly enableApiKeys: boolean;
  readonly requireAuth: boolean;
  readonly needsSetup: boolean;
  readonly needsMfaPolicy: boolean;
  readonly mfa: { readonly required: boolean; readonly enroll: boolean; readonly methods: Method[] };
  readonly user: UserBody | null;
}

export interface LoginOutcome {
  readonly next: Next;
  readonly methods: Method[];
  /** The new session's cookie value. */
  readonly sessionToken: string;
}

/** The checks of a secret that are throttled and, when refused, logged. */
export type SignInStep = "login" | "totp" | "passkey" | "password change" | "reauthentication";

/** How recent a password or second-factor check must be for adding or removing a factor and creating an API key (SPEC §10.1). */
export const REAUTH_WINDOW_MS = 10 * 60_000;

/** One check of a secret: whose, and from where. */
export interface SignInAttempt {
  readonly step: SignInStep;
  /** The username tried at login; the signed-in user's for a second factor or a password change. */
  readonly username: string;
  readonly ip: string;
}

/** What the log keeps of a refused attempt (never the secret itself). */
export interface RefusalRecord extends SignInAttempt {
  readonly reason: string;
  readonly retryAfter?: number;
}

const SECRET_OF: Readonly<Record<SignInStep, Secret>> = {
  login: "password",
  "password change": "password",
  reauthentication: "password",
  totp: "second-factor",
  passkey: "second-factor",
};

const THROTTLED: Readonly<Record<SignInStep, string>> = {
  login: "Too many failed sign-ins",
  "password change": "Too many failed attempts",
  reauthentication: "Too many failed attempts",
  totp: "Too many wrong codes",
  passkey: "Too many failed passkey checks",
};

/**
 * A refused check of a secret. The reply says no more than its detail (an
 * unknown user, a wrong password and a disabled user must look alike); the
 * record, with the reason, is for the log (SPEC §16).
 */
export class SignInRefusal extends HttpProblem {
  constructor(
    status: number,
    detail: string,
    readonly record: RefusalRecord,
    headers: Record<string, string> = {},
  ) {
    super(status, detail, { headers });
  }
}

/**
 * Runs a check of a secret, logging a refusal with the client's IP, the
 * username tried and the reason, and writing it to the audit log
 * (`signin.refused`, SPEC §16.1) for an investigation; those rows share the
 * anonymous allowance, so a guessing flood cannot flood the audit log.
 */
export async function loggingRefusals<T>(ctx: { readonly log: Logger; readonly db: HubDb; readonly now: () => number }, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof SignInRefusal) {
      const { step, username, ip, reason } = error.record;
      if (error.status === 429) ctx.log.warn("sign-in throttled", { ...error.record });
      else ctx.log.info("sign-in refused", { ...error.record });
      try {
        audit(ctx.db.orm, ANONYMOUS_ACTOR, "signin.refused", null, { step, username, ip, reason, throttled: error.status === 429 }, ctx.now());
      } catch (auditError) {
        // The refusal stands whatever the storage does: a disk that cannot take the row must not turn a 401 into a 500.
        ctx.log.error("a refused sign-in could not be written to the audit log", { error: auditError });
      }
    }
    throw error;
  }
}

export function actorOf(principal: UserPrincipal): Actor {
  return { userId: principal.user.id, name: principal.user.username, via: principal.via === "apiKey" ? "api-key" : "session", capped: principal.user.role !== "admin" };
}

export function checkUsername(username: string): void {
  if (!USERNAME_PATTERN.test(username)) {
    throw new HttpProblem(400, "A username is 1 to 64 letters, digits, '.', '_' or '-'.", { errors: [{ location: "body.username", message: "invalid username" }] });
  }
}

export function checkPassword(password: string, location = "body.password"): void {
  const problem = passwordProblem(password);
  if (problem) throw new HttpProblem(400, `Invalid password: ${problem}.`, { errors: [{ location, message: problem }] });
}

export function checkRoles(roles: readonly string[], location: string): Role[] {
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length > 0) {
    throw new HttpProblem(400, `Unknown role ${unknown.map((r) => `"${r}"`).join(", ")}; roles are ${ROLES.join(" and ")}.`, {
      errors: [{ location, message: "unknown role" }],
    });
  }
  return [...new Set(roles)] as Role[];
}

export class Accounts {
  readonly sessions: SessionStore;
  readonly devices: TrustedDevices;
  readonly apiKeys: ApiKeys;
  readonly passkeys: Passkeys;
  readonly throttle: LoginThrottle;
  readonly presence: Presence;
  readonly totpSecrets: TotpSecrets;

  constructor(
    private readonly db: HubDb,
    readonly config: Config,
    private readonly settings: RuntimeSettings,
    private readonly now: () => number,
    secrets: HubSecrets,
  ) {
    this.sessions = new SessionStore(db.orm, secrets.sessionSecret, config.sessionTtlHours * 3_600_000, now);
    this.devices = new TrustedDevices(db.orm, secrets.sessionSecret, now);
    this.totpSecrets = secrets.totpSecrets;
    this.apiKeys = new ApiKeys(db.orm, now);
    this.passkeys = new Passkeys(db.orm, { id: config.rpId, name: config.rpName, origin: config.origin }, now);
    this.throttle = new LoginThrottle(now);
    this.presence = new Presence(now);
  }

  /** The user behind a request: API keys (when keys are on) win over the session cookie. */
  resolve(request: Request, sessionCookie: string | undefined): Resolution {
    const presented = presentedApiKeys(request);
    if (presented.length > 0) {
      if (!this.settings.get().enableApiKeys) return { principal: null, refusal: "API keys are turned off on this hub.", renewCookie: false };
      const check = this.apiKeys.authenticate(presented);
      if (check.owner === null) return { principal: null, refusal: check.refusal, renewCookie: false };
      return { principal: { user: check.owner, via: "apiKey", session: null, level: "mfa" }, refusal: null, renewCookie: false };
    }
    if (!sessionCookie) return { principal: null, refusal: null, renewCookie: false };
    const session = this.sessions.find(sessionCookie);
    const user = session ? findUserById(this.db.orm, session.userId) : undefined;
    if (!session || !user?.enabled) return { principal: null, refusal: null, renewCookie: false };
    const renewCookie = this.sessions.touch(session);
    return { principal: { user, via: "session", session, level: session.authLevel }, refusal: null, renewCookie };
  }

  methodsOf(user: UserRow): Method[] {
    return enrolledMethods(this.db.orm, user);
  }

  requiresMfa(user: UserRow): boolean {
    return this.settings.get().mfaEnforcedRoles.includes(user.role);
  }

  /** What a user must do after the first factor, and the session level that gives. */
  private nextStep(user: UserRow, methods: Method[], trustedDevice: boolean): { next: Next; level: AuthLevel } {
    if (methods.length > 0) return trustedDevice ? { next: "ok", level: "mfa" } : { next: "mfa", level: "password" };
    if (this.requiresMfa(user)) return { next: "enroll_mfa", level: "password" };
    return { next: "ok", level: "mfa" };
  }

  private startSession(user: UserRow, trustedDevice: boolean, fromSetup = false): LoginOutcome {
    const methods = this.methodsOf(user);
    const { next, level } = this.nextStep(user, methods, trustedDevice);
    const { raw } = this.sessions.create(user.id, level, { fromSetup });
    this.db.orm.update(users).set({ lastLoginAt: this.now() }).where(eq(users.id, user.id)).run();
    return { next, methods, sessionToken: raw };
  }

  async setup(input: { username: string; password: string; email: string | null; name: string | null }): Promise<LoginOutcome> {
    checkUsername(input.username);
    checkPassword(input.password);
    if (adminExists(this.db.orm)) throw new HttpProblem(409, "The hub already has an admin; sign in instead.");
    const passwordHash = await hashPassword(input.password);
    const create = this.db.sqlite.transaction(() => {
      if (adminExists(this.db.orm)) throw new HttpProblem(409, "The hub already has an admin; sign in instead.");
      if (findUserByName(this.db.orm, input.username)) throw new HttpProblem(409, `The username "${input.username}" is taken.`);
      const user = insertUser(this.db.orm, { username: input.username, role: "admin", passwordHash, email: input.email, name: input.name }, this.now());
      audit(this.db.orm, { userId: user.id, name: user.username }, "setup", `user:${user.id}`, { username: user.username }, this.now());
      return user;
    });
    return this.startSession(create.immediate(), false, true);
  }

  /** Admits one check of a secret, counted as a failure before the check starts (see throttle.ts), or refuses it with 429. */
  admit(tried: SignInAttempt): Attempt {
    const admission = this.throttle.admit(SECRET_OF[tried.step], tried.username, tried.ip);
    if (admission.admitted) return admission.attempt;
    const { retryAfter, limit } = admission;
    const reason = limit === "username" ? "too many failures for this username" : "too many failures from this IP";
    throw new SignInRefusal(429, `${THROTTLED[tried.step]}; try again in ${retryAfter} s.`, { ...tried, reason, retryAfter }, { "retry-after": String(retryAfter) });
  }

  async login(username: string, password: string, ip: string, deviceToken: string | undefined): Promise<LoginOutcome> {
    const tried: SignInAttempt = { step: "login", username, ip };
    const attempt = this.admit(tried);
    const user = username.length <= 64 ? findUserByName(this.db.orm, username) : undefined;
    const usable = user?.enabled ? user : undefined;
    const ok = await verifyPassword(password.slice(0, 1024), usable?.passwordHash ?? null);
    if (!ok || !usable) {
      const reason = !user ? "unknown user" : !user.enabled ? "disabled user" : user.passwordHash === null ? "no password set" : "wrong password";
      throw new SignInRefusal(401, "The username or password is not right.", { ...tried, reason });
    }
    attempt.succeed();
    if (usable.passwordHash !== null && isFieldPasswordHash(usable.passwordHash)) {
      // A hash brought over from the field's hub is replaced by this hub's own while the password is at hand.
      const passwordHash = await hashPassword(password.slice(0, 1024));
      this.db.orm.update(users).set({ passwordHash }).where(eq(users.id, usable.id)).run();
    }
    return this.startSession(usable, this.devices.isTrusted(deviceToken, usable.id));
  }

  sessionBody(principal: UserPrincipal | null): SessionBody {
    const runtime = this.settings.get();
    const methods = principal ? this.methodsOf(principal.user) : [];
    const partial = principal?.level === "password";
    return {
      authenticated: principal?.level === "mfa",
      authLevel: principal?.level ?? null,
      csrfToken: principal?.session?.csrfToken ?? null,
      enableApiKeys: runtime.enableApiKeys,
      requireAuth: runtime.requireAuth,
      needsSetup: !adminExists(this.db.orm),
      needsMfaPolicy: principal?.user.role === "admin" && !this.settings.mfaPolicyChosen(),
      mfa: { required: partial, enroll: partial && methods.length === 0, methods },
      user: principal ? toUserBody(this.db.orm, principal.user) : null,
    };
  }

  logout(principal: UserPrincipal): void {
    if (principal.session) this.sessions.destroy(principal.session.idHash);
  }

  /** Ends the session a browser still presents when it signs in (or sets up) anew, so one browser never holds two. */
  endPresentedSession(raw: string | undefined): void {
    if (raw !== undefined && raw.length > 0 && raw.length <= 128) this.sessions.destroy(this.sessions.hash(raw));
  }

  /**
   * Sets a new password once the current one is proven. Whoever might have
   * learnt the old one loses what it gave them: the user's other sessions,
   * remembered devices and, unless `revokeApiKeys` is false, API keys
   * (switched off, not deleted, so the owner can see and switch them on again).
   */
  async changePassword(principal: UserPrincipal, current: string, next: string, ip: string, revokeApiKeys: boolean): Promise<void> {
    const { user, session } = principal;
    checkPassword(next, "body.newPassword");
    const tried: SignInAttempt = { step: "password change", username: user.username, ip };
    const attempt = this.admit(tried);
    if (!(await verifyPassword(current.slice(0, 1024), user.passwordHash))) {
      throw new SignInRefusal(403, "The current password is not right.", { ...tried, reason: "wrong current password" });
    }
    attempt.succeed();
    const passwordHash = await hashPassword(next);
    const change = this.db.sqlite.transaction(() => {
      this.db.orm.update(users).set({ passwordHash, updatedAt: this.now() }).where(eq(users.id, user.id)).run();
      this.sessions.destroyForUser(user.id, session?.idHash);
      if (session) this.sessions.markAuthenticated(session.idHash);
      this.devices.forgetAll(user.id);
      if (revokeApiKeys) this.apiKeys.disableAll(user.id);
    });
    change.immediate();
  }

  /**
   * Refuses a change that needs a recent sign-in (adding or removing a second
   * factor, creating an API key) unless this session's holder passed a
   * password or second-factor check within the last 10 minutes: a session
   * left open on a shared computer, or a stolen cookie, must not be enough to
   * add the thief's own factor or mint a key that outlives the session.
   */
  requireRecentAuth(principal: UserPrincipal): void {
    const { session } = principal;
    if (!session) throw new HttpProblem(403, "This needs a signed-in session; an API key cannot do it.");
    if (this.now() - session.authenticatedAt <= REAUTH_WINDOW_MS) return;
    throw new HttpProblem(403, "Confirm your password first (POST /api/v1/auth/reauth): this change needs a sign-in from the last 10 minutes.", { reauth: true });
  }

  /** Confirms the password of the signed-in user again, which counts as a fresh sign-in for requireRecentAuth. Throttled like a password change. */
  async reauthenticate(principal: UserPrincipal, password: string, ip: string): Promise<void> {
    const { user, session } = principal;
    if (!session) throw new HttpProblem(403, "This needs a signed-in session; an API key cannot do it.");
    const tried: SignInAttempt = { step: "reauthentication", username: user.username, ip };
    const attempt = this.admit(tried);
    if (!(await verifyPassword(password.slice(0, 1024), user.passwordHash))) {
      throw new SignInRefusal(403, "The password is not right.", { ...tried, reason: "wrong password at reauthentication" });
    }
    attempt.succeed();
    this.sessions.markAuthenticated(session.idHash);
  }

  /**
   * The first admin's choice of which roles need a second factor. A fully
   * signed-in admin may make it; a password-level session only if setup
   * issued it (the admin creating the hub chooses before enrolling). When the
   * admin then needs no second factor, the session is replaced by a full one:
   * the new session's token is returned.
   */
  choosePolicy(principal: UserPrincipal, roles: readonly string[]): string | null {
    if (principal.user.role !== "admin") throw new HttpProblem(403, "Only an admin chooses the MFA policy.");
    if (principal.level !== "mfa" && !principal.session?.fromSetup) {
      throw new HttpProblem(401, "Finish signing in with your second factor (set one up if you have none) before choosing the MFA policy.");
    }
    const chosen = checkRoles(roles, "body.roles");
    if (this.settings.mfaPolicyChosen()) throw new HttpProblem(409, "The MFA policy has already been chosen; change it through the admin settings.");
    this.settings.update({ mfaEnforcedRoles: chosen }, { policyChosen: true });
    audit(this.db.orm, actorOf(principal), "settings.mfaPolicy", "settings", { mfaEnforcedRoles: chosen }, this.now());
    const { session, user } = principal;
    if (session && session.authLevel === "password" && !this.requiresMfa(user) && this.methodsOf(user).length === 0) {
      return this.sessions.rotate(session, "mfa").raw;
    }
    return null;
  }

  /** Creates the operator's first admin (ADMIN_BOOTSTRAP_*) when no admin exists yet. */
  bootstrapAdmin(): UserRow | null {
    const { adminUser, adminPassword, adminEmail, adminName } = this.config;
    if (!adminUser || adminExists(this.db.orm)) return null;
    if (!adminPassword) throw new ConfigError("ADMIN_BOOTSTRAP_USER is set but ADMIN_BOOTSTRAP_PASSWORD is not");
    if (findUserByName(this.db.orm, adminUser)) throw new ConfigError(`cannot make "${adminUser}" the first admin: a user of that name already exists`);
    const passwordHash = hashPasswordSync(adminPassword);
    const user = insertUser(this.db.orm, { username: adminUser, role: "admin", passwordHash, email: adminEmail, name: adminName }, this.now());
    audit(this.db.orm, { userId: null, name: "bootstrap" }, "user.create", `user:${user.id}`, { username: user.username, role: "admin" }, this.now());
    return user;
  }
}
