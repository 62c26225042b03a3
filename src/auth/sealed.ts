/**
 * Secrets the hub must read back (TOTP seeds, webhook signing secrets) are
 * stored sealed: AES-256-GCM as `v1:<base64 iv>:<base64 ciphertext and tag>`,
 * with a context (such as `user:7`) bound in as associated data, so a sealed
 * value copied onto another row does not open there.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const SEALED_PREFIX = "v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** True for a stored value in the sealed form (the plaintext forms sealed here never start with it). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

export function seal(key: Uint8Array, context: string, text: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context));
  const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${SEALED_PREFIX}${iv.toString("base64")}:${sealed.toString("base64")}`;
}

/** The text, or null when the value is not sealed, was sealed for another context, or under another key. */
export function unseal(key: Uint8Array, context: string, stored: string): string | null {
  if (!isSealed(stored)) return null;
  const [ivText, sealedText] = stored.slice(SEALED_PREFIX.length).split(":");
  const iv = Buffer.from(ivText ?? "", "base64");
  const sealed = Buffer.from(sealedText ?? "", "base64");
  if (iv.length !== IV_BYTES || sealed.length <= TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
