/**
 * TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step), with replay
 * protection by step. The shared secrets are stored encrypted under a key
 * derived from the hub's key, so a copy of the database alone does not let
 * anyone make a user's codes.
 */
import * as OTPAuth from "otpauth";
import { renderSVG } from "uqr";
import type { HubDb } from "../db/open.ts";
import { replaceTotpSecret, storedTotpSecrets } from "../db/users.ts";
import { HttpProblem } from "../domain/problem.ts";
import { isSealed, seal, unseal } from "./sealed.ts";

const PERIOD_SECONDS = 30;

function totp(secret: string, label: string, issuer: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer, label, algorithm: "SHA1", digits: 6, period: PERIOD_SECONDS, secret: OTPAuth.Secret.fromBase32(secret) });
}

export function newTotpSecret(): string {
  return new OTPAuth.Secret({ size: 20 }).base32;
}

export function totpUri(secret: string, username: string, issuer: string): string {
  return totp(secret, username, issuer).toString();
}

/** A QR code of the URI as an SVG data URL, for authenticator apps to scan. */
export function qrDataUrl(text: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(renderSVG(text)).toString("base64")}`;
}

/**
 * The time step a code belongs to if it is valid now (±1 step) and newer
 * than the last accepted step, else null: a code is never accepted twice.
 */
export function acceptTotp(secret: string, code: string, now: number, lastStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secret, "", "").validate({ token: code, timestamp: now, window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
  if (lastStep !== null && step <= lastStep) return null;
  return step;
}

/** TOTP secrets sealed for storage (./sealed.ts), each bound to its user's id. */
export class TotpSecrets {
  constructor(private readonly key: Uint8Array) {}

  seal(userId: number, secret: string): string {
    return seal(this.key, `user:${userId}`, secret);
  }

  /** The secret, or null when the value is not sealed or not under this key. */
  tryOpen(userId: number, stored: string): string | null {
    return unseal(this.key, `user:${userId}`, stored);
  }

  /** The secret for a verification; a value that does not open is the operator's to fix, so the user is told who can. */
  open(userId: number, stored: string): string {
    const secret = this.tryOpen(userId, stored);
    if (secret === null) {
      throw new HttpProblem(409, "This account's TOTP secret cannot be read with this hub's key (was hub.key replaced?); an admin must reset the account's second factor so it can be enrolled again.");
    }
    return secret;
  }
}

/**
 * Encrypts the TOTP secrets that hubs from before the key stored in
 * plaintext, and counts sealed ones this key cannot open. The SQL migrations
 * cannot do this (they have no key), so it runs in code right after them at
 * every start; it touches only rows not yet in the sealed form, so running
 * it again changes nothing.
 */
export function sealStoredTotpSecrets(db: HubDb, secrets: TotpSecrets): { sealed: number; unreadable: number } {
  let sealed = 0;
  let unreadable = 0;
  db.sqlite.transaction(() => {
    for (const row of storedTotpSecrets(db.orm)) {
      if (!isSealed(row.totpSecret)) {
        if (replaceTotpSecret(db.orm, row.id, row.totpSecret, secrets.seal(row.id, row.totpSecret))) sealed++;
      } else if (secrets.tryOpen(row.id, row.totpSecret) === null) {
        unreadable++;
      }
    }
  }).immediate();
  return { sealed, unreadable };
}
