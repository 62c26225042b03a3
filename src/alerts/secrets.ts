/**
 * Webhook signing secrets: made, sealed for storage and opened to sign.
 *
 * A secret is `whsec_` and base64 of 32 random bytes, the form Standard
 * Webhooks libraries take. The hub must sign with it, so it cannot be kept as
 * a hash like a token; it is stored under AES-256-GCM with a key derived from
 * the hub's key (HKDF, a label of its own), so a copied database alone does
 * not let anyone forge the hub's messages.
 */
import { hkdfSync, randomBytes } from "node:crypto";
import { seal, unseal } from "../auth/sealed.ts";

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;
const LABEL = "incentives-hub webhook secret encryption v1";

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** The key bytes of a secret: what HMAC is keyed with. */
export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
}

export class WebhookSecrets {
  private readonly key: Uint8Array;

  constructor(hubKey: Uint8Array) {
    this.key = new Uint8Array(hkdfSync("sha256", hubKey, new Uint8Array(0), LABEL, 32));
  }

  /** The webhook's id is bound in as associated data, so a sealed secret copied onto another webhook does not open there. */
  seal(webhookId: number, secret: string): string {
    return seal(this.key, `webhook:${webhookId}`, secret);
  }

  /** The secret, or null when the stored value was not sealed under this hub's key (hub.key replaced). */
  open(webhookId: number, stored: string): string | null {
    return unseal(this.key, `webhook:${webhookId}`, stored);
  }
}
