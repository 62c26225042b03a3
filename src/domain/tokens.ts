/** Random secrets and their SHA-256 hashes: the only form in which the hub stores tokens. */
import { timingSafeEqual } from "node:crypto";

export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

/** `bytes` random bytes from the CSPRNG, base64url without padding. */
export function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

/** An agent token: 64 random bytes, 86 base64url characters. */
export function newAgentToken(): string {
  return randomToken(64);
}

/** Compares two secrets without leaking where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The credential of an `Authorization: Bearer …` header, or null. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header);
  return match?.[1] ?? null;
}
