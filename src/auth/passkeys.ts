/** Passkeys (WebAuthn) through @simplewebauthn/server, with the relying party of the configuration. */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, eq } from "drizzle-orm";
import type { Orm } from "../db/open.ts";
import { passkeys } from "../db/schema.ts";

export type PasskeyRow = typeof passkeys.$inferSelect;

export interface PasskeyBody {
  readonly id: number;
  readonly label: string | null;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly backupEligible: boolean | null;
  readonly backedUp: boolean | null;
}

/** Bits of the authenticator data's flags byte (WebAuthn §6.1) that a passkey's row keeps, as the field's hub does. */
export const PASSKEY_FLAGS = { userPresent: 0x01, userVerified: 0x04, backupEligible: 0x08, backedUp: 0x10 } as const;

/** What the WebAuthn library reports of a verified registration or assertion. */
interface VerifiedFlags {
  readonly userVerified: boolean;
  readonly credentialDeviceType: "singleDevice" | "multiDevice";
  readonly credentialBackedUp: boolean;
}

/** The flags byte of a verified response: user presence is always part of one (the library requires it). */
export function passkeyFlags(info: VerifiedFlags): number {
  return (
    PASSKEY_FLAGS.userPresent |
    (info.userVerified ? PASSKEY_FLAGS.userVerified : 0) |
    (info.credentialDeviceType === "multiDevice" ? PASSKEY_FLAGS.backupEligible : 0) |
    (info.credentialBackedUp ? PASSKEY_FLAGS.backedUp : 0)
  );
}

export interface RelyingParty {
  readonly id: string;
  readonly name: string;
  readonly origin: string;
}

export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The WebAuthn library is large (about 18 MB resident); it is loaded on the first passkey request, not at start-up.
 * Its certificate code starts with `import "reflect-metadata"` so that tsyringe (under @peculiar/x509) finds the
 * polyfill, but in a lazily imported module Bun's bundler evaluates the ESM imports before the CommonJS ones
 * (oven-sh/bun#41601): in dist/hub tsyringe ran first and threw on every passkey request. Loading the polyfill
 * ourselves, before the library, restores the order the library relies on.
 */
async function webauthn() {
  await import("reflect-metadata");
  return await import("@simplewebauthn/server");
}

export function toPasskeyBody(row: PasskeyRow): PasskeyBody {
  const flag = (bit: number) => (row.flags === null ? null : (row.flags & bit) !== 0);
  return { id: row.id, label: row.label, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, backupEligible: flag(PASSKEY_FLAGS.backupEligible), backedUp: flag(PASSKEY_FLAGS.backedUp) };
}

function transports(row: PasskeyRow): string[] | undefined {
  return row.transports ? (JSON.parse(row.transports) as string[]) : undefined;
}

export class Passkeys {
  constructor(
    private readonly orm: Orm,
    private readonly rp: RelyingParty,
    private readonly now: () => number,
  ) {}

  list(userId: number): PasskeyRow[] {
    return this.orm.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.id).all();
  }

  find(userId: number, id: number): PasskeyRow | undefined {
    return this.orm.select().from(passkeys).where(and(eq(passkeys.userId, userId), eq(passkeys.id, id))).get();
  }

  remove(id: number): void {
    this.orm.delete(passkeys).where(eq(passkeys.id, id)).run();
  }

  removeAll(userId: number): void {
    this.orm.delete(passkeys).where(eq(passkeys.userId, userId)).run();
  }

  async registrationOptions(user: { id: number; username: string; name: string | null }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { generateRegistrationOptions } = await webauthn();
    return await generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: user.username,
      userDisplayName: user.name ?? user.username,
      userID: new TextEncoder().encode(`hub-user-${user.id}`),
      attestationType: "none",
      excludeCredentials: this.list(user.id).map((row) => ({ id: row.credentialId, transports: transports(row) })),
      authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
      timeout: CHALLENGE_TTL_MS,
    });
  }

  /** Verifies a registration against the single-use challenge and stores the credential, or returns null. */
  async register(userId: number, response: RegistrationResponseJSON, expectedChallenge: string, label: string | null): Promise<PasskeyRow | null> {
    const { verifyRegistrationResponse } = await webauthn();
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        requireUserVerification: false,
      });
    } catch {
      return null;
    }
    if (!verified.verified) return null;
    const { credential } = verified.registrationInfo;
    const flags = passkeyFlags(verified.registrationInfo);
    const existing = this.orm.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.credentialId, credential.id)).get();
    if (existing) return null;
    return this.orm
      .insert(passkeys)
      .values({
        userId,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ? JSON.stringify(credential.transports) : null,
        label,
        createdAt: this.now(),
        flags,
      })
      .returning()
      .get();
  }

  async authenticationOptions(userId: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const { generateAuthenticationOptions } = await webauthn();
    return await generateAuthenticationOptions({
      rpID: this.rp.id,
      allowCredentials: this.list(userId).map((row) => ({ id: row.credentialId, transports: transports(row) })),
      userVerification: "preferred",
      timeout: CHALLENGE_TTL_MS,
    });
  }

  /** Verifies an assertion by one of the user's passkeys against the single-use challenge. */
  async authenticate(userId: number, response: AuthenticationResponseJSON, expectedChallenge: string): Promise<boolean> {
    const row = this.orm
      .select()
      .from(passkeys)
      .where(and(eq(passkeys.userId, userId), eq(passkeys.credentialId, response.id)))
      .get();
    if (!row) return false;
    const { verifyAuthenticationResponse } = await webauthn();
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        credential: { id: row.credentialId, publicKey: new Uint8Array(row.publicKey), counter: row.counter, transports: transports(row) },
        requireUserVerification: false,
      });
    } catch {
      return false;
    }
    if (!verified.verified) return false;
    // A passkey may be synced after it was registered (or stop being), so each sign-in refreshes its flags.
    const flags = passkeyFlags(verified.authenticationInfo);
    this.orm.update(passkeys).set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: this.now(), flags }).where(eq(passkeys.id, row.id)).run();
    return true;
  }
}
