/**
 * Webhook signing secrets and target URLs: made, sealed for storage and
 * opened to sign or send; URLs shown masked.
 *
 * A secret is `whsec_` and base64 of 32 random bytes, the form Standard
 * Webhooks libraries take. The hub must sign with it, so it cannot be kept as
 * a hash like a token; it is stored under AES-256-GCM with a key derived from
 * the hub's key (HKDF, a label of its own), so a copied database alone does
 * not let anyone forge the hub's messages.
 *
 * A target URL is sealed the same way (SPEC §16.1): for Discord, Slack and
 * ntfy the URL is the credential, and a `json` receiver's URL may carry a
 * token too, so every format is treated alike. Replies show it masked.
 */
import { hkdfSync, randomBytes } from "node:crypto";
import type { HubDb } from "../db/open.ts";
import { isSealed, seal, unseal } from "../auth/sealed.ts";

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

  /** A context of its own, so a sealed URL and a sealed secret cannot stand in for each other. */
  sealUrl(webhookId: number, url: string): string {
    return seal(this.key, `webhook-url:${webhookId}`, url);
  }

  /** The URL, or null when it was not sealed under this hub's key (hub.key replaced). */
  openUrl(webhookId: number, stored: string): string | null {
    return unseal(this.key, `webhook-url:${webhookId}`, stored);
  }
}

/** What replies show of a target URL: its scheme, host and last 4 characters, enough to tell targets apart, too little to use one. */
export function maskUrl(url: string): string {
  const { protocol, host } = new URL(url);
  return `${protocol}//${host}/…${url.slice(-4)}`;
}

/** Shown in place of a URL that cannot be opened with this hub's key. */
export const UNREADABLE_URL = "(sealed under another key: set the URL again)";

/**
 * Seals the target URLs stored in plain text by a hub from before sealing,
 * in one transaction at start-up. A URL is http or https, so it never looks
 * sealed. Returns how many were sealed and how many sealed ones this key
 * cannot open.
 */
export function sealStoredWebhookUrls(db: HubDb, secrets: WebhookSecrets): { sealed: number; unreadable: number } {
  let sealed = 0;
  let unreadable = 0;
  const rows = db.sqlite.query<{ id: number; url: string }, []>("SELECT id, url FROM webhooks");
  const replace = db.sqlite.query<unknown, [string, number, string]>("UPDATE webhooks SET url = ? WHERE id = ? AND url = ?");
  db.sqlite.transaction(() => {
    for (const row of rows.all()) {
      if (!isSealed(row.url)) {
        if (replace.run(secrets.sealUrl(row.id, row.url), row.id, row.url).changes > 0) sealed++;
      } else if (secrets.openUrl(row.id, row.url) === null) {
        unreadable++;
      }
    }
  }).immediate();
  return { sealed, unreadable };
}
