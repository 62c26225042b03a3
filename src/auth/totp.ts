/** TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step), with replay protection by step. */
import * as OTPAuth from "otpauth";
import { renderSVG } from "uqr";

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
