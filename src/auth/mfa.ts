/**
 * Second factors: TOTP and passkeys. A password-level session may enrol a
 * first factor (when it has none) or verify an existing one; either replaces
 * it by a full session with a new token (SPEC §10.1). Adding or removing a
 * factor needs a recent sign-in; verifying one counts as one. Removing the
 * last factor is refused while the user's role requires one.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { eq } from "drizzle-orm";
import type { HubDb } from "../db/open.ts";
import { users } from "../db/schema.ts";
import { findUserById, type UserRow } from "../db/users.ts";
import { HttpProblem } from "../domain/problem.ts";
import { HUB_NAME } from "../version.ts";
import { SignInRefusal, type Accounts, type SignInAttempt, type UserPrincipal } from "./accounts.ts";
import type { Method } from "../domain/auth-levels.ts";
import { CHALLENGE_TTL_MS, toPasskeyBody, type PasskeyBody } from "./passkeys.ts";
import { acceptTotp, newTotpSecret, qrDataUrl, totpUri } from "./totp.ts";

export interface Verified {
  readonly next: "ok";
  readonly methods: Method[];
  /** A new remember-device token when the caller asked for one. */
  readonly deviceToken: string | null;
  /** The token of the full session that replaced a password-level one, if it was replaced. */
  readonly sessionToken: string | null;
}

export class Mfa {
  constructor(
    private readonly db: HubDb,
    private readonly accounts: Accounts,
    private readonly issuer: string,
    private readonly now: () => number,
  ) {}

  private fresh(principal: UserPrincipal): UserRow {
    const user = findUserById(this.db.orm, principal.user.id);
    if (!user) throw new HttpProblem(401, "The account no longer exists.");
    return user;
  }

  /** A partial session may enrol only while the user has no factor: it must verify the one it has otherwise. */
  private guardEnrolment(principal: UserPrincipal, user: UserRow): void {
    if (principal.level === "password" && this.accounts.methodsOf(user).length > 0) {
      throw new HttpProblem(403, "Verify your existing second factor before adding another.");
    }
  }

  /** A password-level session that completes its second step is replaced by a full one; returns the new token. */
  private upgrade(principal: UserPrincipal): string | null {
    if (!principal.session || principal.level !== "password") return null;
    return this.accounts.sessions.rotate(principal.session, "mfa").raw;
  }

  /** A factor verified: the session becomes full (a new one), or, when it already was, counts as freshly signed in. */
  private verified(principal: UserPrincipal, user: UserRow, rememberDevice: boolean): Verified {
    const sessionToken = this.upgrade(principal);
    if (sessionToken === null && principal.session) this.accounts.sessions.markAuthenticated(principal.session.idHash);
    return { next: "ok", methods: this.accounts.methodsOf(user), deviceToken: rememberDevice ? this.accounts.devices.remember(user.id) : null, sessionToken };
  }

  private guardLastFactor(user: UserRow, removing: Method): void {
    const remaining = this.accounts.methodsOf(user).filter((m) => m !== removing);
    if (removing === "webauthn" && this.accounts.passkeys.list(user.id).length > 1) return;
    if (remaining.length === 0 && this.accounts.requiresMfa(user)) {
      throw new HttpProblem(409, `This is your last second factor and the ${user.role} role requires one; add another first.`);
    }
  }

  startTotp(principal: UserPrincipal): { secret: string; uri: string; qr: string } {
    const user = this.fresh(principal);
    this.guardEnrolment(principal, user);
    this.accounts.requireRecentAuth(principal);
    if (user.totpEnabled) throw new HttpProblem(409, "TOTP is already active; remove it before enrolling a new one.");
    const secret = newTotpSecret();
    this.db.orm.update(users).set({ totpSecret: this.accounts.totpSecrets.seal(user.id, secret), totpLastStep: null, updatedAt: this.now() }).where(eq(users.id, user.id)).run();
    const uri = totpUri(secret, user.username, this.issuer || HUB_NAME);
    return { secret, uri, qr: qrDataUrl(uri) };
  }

  /** Returns the new session's token when activation completed enrolment. */
  activateTotp(principal: UserPrincipal, code: string, ip: string): string | null {
    const user = this.fresh(principal);
    this.guardEnrolment(principal, user);
    this.accounts.requireRecentAuth(principal);
    if (user.totpEnabled) throw new HttpProblem(409, "TOTP is already active.");
    if (!user.totpSecret) throw new HttpProblem(409, "Start TOTP enrolment first (POST /api/v1/auth/mfa/totp).");
    const tried: SignInAttempt = { step: "totp", username: user.username, ip };
    const attempt = this.accounts.admit(tried);
    const step = acceptTotp(this.accounts.totpSecrets.open(user.id, user.totpSecret), code, this.now(), null);
    if (step === null) {
      throw new SignInRefusal(401, "The code is not valid; check the authenticator's clock and try the current code.", { ...tried, reason: "wrong code" });
    }
    attempt.succeed();
    this.db.orm.update(users).set({ totpEnabled: true, totpLastStep: step, updatedAt: this.now() }).where(eq(users.id, user.id)).run();
    return this.upgrade(principal);
  }

  verifyTotp(principal: UserPrincipal, code: string, rememberDevice: boolean, ip: string): Verified {
    const user = this.fresh(principal);
    if (!user.totpEnabled || !user.totpSecret) throw new HttpProblem(409, "TOTP is not active for this account.");
    const tried: SignInAttempt = { step: "totp", username: user.username, ip };
    const attempt = this.accounts.admit(tried);
    const step = acceptTotp(this.accounts.totpSecrets.open(user.id, user.totpSecret), code, this.now(), user.totpLastStep);
    if (step === null) throw new SignInRefusal(401, "The code is not valid or was already used.", { ...tried, reason: "wrong or reused code" });
    attempt.succeed();
    this.db.orm.update(users).set({ totpLastStep: step }).where(eq(users.id, user.id)).run();
    return this.verified(principal, user, rememberDevice);
  }

  disableTotp(principal: UserPrincipal): void {
    const user = this.fresh(principal);
    if (!user.totpEnabled && !user.totpSecret) throw new HttpProblem(404, "TOTP is not set up for this account.");
    this.accounts.requireRecentAuth(principal);
    if (user.totpEnabled) this.guardLastFactor(user, "totp");
    this.db.orm.update(users).set({ totpEnabled: false, totpSecret: null, totpLastStep: null, updatedAt: this.now() }).where(eq(users.id, user.id)).run();
  }

  async passkeyRegistrationOptions(principal: UserPrincipal) {
    const user = this.fresh(principal);
    this.guardEnrolment(principal, user);
    this.accounts.requireRecentAuth(principal);
    const session = this.requireSession(principal);
    const options = await this.accounts.passkeys.registrationOptions(user);
    this.accounts.sessions.setChallenge(session.idHash, "webauthn-register", options.challenge, CHALLENGE_TTL_MS);
    return options;
  }

  /** The new passkey, and the new session's token when the registration completed enrolment. */
  async registerPasskey(principal: UserPrincipal, response: RegistrationResponseJSON, label: string | null): Promise<{ passkey: PasskeyBody; sessionToken: string | null }> {
    const user = this.fresh(principal);
    this.guardEnrolment(principal, user);
    const session = this.requireSession(principal);
    this.accounts.requireRecentAuth(principal);
    const challenge = this.accounts.sessions.takeChallenge(session.idHash, "webauthn-register");
    if (!challenge) throw new HttpProblem(400, "No registration is pending, or it expired (5 minutes); ask for new registration options.");
    const row = await this.accounts.passkeys.register(user.id, response, challenge, label);
    if (!row) throw new HttpProblem(400, "The passkey registration could not be verified.");
    return { passkey: toPasskeyBody(row), sessionToken: this.upgrade(principal) };
  }

  async passkeyChallenge(principal: UserPrincipal) {
    const user = this.fresh(principal);
    const session = this.requireSession(principal);
    if (this.accounts.passkeys.list(user.id).length === 0) throw new HttpProblem(409, "This account has no passkey.");
    const options = await this.accounts.passkeys.authenticationOptions(user.id);
    this.accounts.sessions.setChallenge(session.idHash, "webauthn-authenticate", options.challenge, CHALLENGE_TTL_MS);
    return options;
  }

  async verifyPasskey(principal: UserPrincipal, response: AuthenticationResponseJSON, rememberDevice: boolean, ip: string): Promise<Verified> {
    const user = this.fresh(principal);
    const session = this.requireSession(principal);
    // The challenge is taken first: a request without one is no guess, so it must not use up a throttled attempt.
    const challenge = this.accounts.sessions.takeChallenge(session.idHash, "webauthn-authenticate");
    if (!challenge) throw new HttpProblem(400, "No passkey challenge is pending, or it expired (5 minutes); ask for a new challenge.");
    const tried: SignInAttempt = { step: "passkey", username: user.username, ip };
    const attempt = this.accounts.admit(tried);
    if (!(await this.accounts.passkeys.authenticate(user.id, response, challenge))) {
      throw new SignInRefusal(401, "The passkey assertion could not be verified.", { ...tried, reason: "passkey assertion not verified" });
    }
    attempt.succeed();
    return this.verified(principal, user, rememberDevice);
  }

  listPasskeys(principal: UserPrincipal): PasskeyBody[] {
    return this.accounts.passkeys.list(principal.user.id).map(toPasskeyBody);
  }

  removePasskey(principal: UserPrincipal, id: number): void {
    const user = this.fresh(principal);
    if (!this.accounts.passkeys.find(user.id, id)) throw new HttpProblem(404, `There is no passkey ${id} on this account.`);
    this.accounts.requireRecentAuth(principal);
    this.guardLastFactor(user, "webauthn");
    this.accounts.passkeys.remove(id);
  }

  private requireSession(principal: UserPrincipal) {
    if (!principal.session) throw new HttpProblem(403, "Second factors are managed with a signed-in session, not an API key.");
    return principal.session;
  }
}
