/**
 * The VAPID key pair (RFC 8292): made on first start and kept in the
 * database, its private half sealed under a key derived from the hub's key,
 * or given with VAPID_PRIVATE_KEY. It never changes by itself: every
 * subscription a browser made is bound to its public half.
 */
import { createECDH, hkdfSync } from "node:crypto";
import { seal, unseal } from "../auth/sealed.ts";
import type { HubDb } from "../db/open.ts";

const LABEL = "incentives-hub push key encryption v1";
const CONTEXT = "push:vapid";

export interface VapidKeys {
  /** Base64url of the uncompressed P-256 point: the applicationServerKey browsers subscribe with. */
  readonly publicKey: string;
  /** Base64url of the 32-byte private scalar. */
  readonly privateKey: string;
}

/** Thrown when the stored key cannot be opened with this hub's key. */
export class UnreadableVapidKey extends Error {
  override readonly name = "UnreadableVapidKey";
}

export function publicKeyOf(privateKey: string): string {
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKey, "base64url"));
  return ecdh.getPublicKey().toString("base64url");
}

/** A fresh P-256 pair in the form VAPID and browsers use: the uncompressed public point and the 32-byte scalar, base64url. */
function newKeyPair(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const scalar = ecdh.getPrivateKey();
  // The scalar is a number: one with leading zero bytes comes back shorter, and a VAPID key is always 32 bytes.
  const privateKey = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
  return { publicKey: ecdh.getPublicKey().toString("base64url"), privateKey: privateKey.toString("base64url") };
}

function sealingKey(hubKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", hubKey, new Uint8Array(0), LABEL, 32));
}

/** Writes a new key pair over the stored one (first start, or `hub push rotate-key`); call inside a transaction when more goes with it. */
export function storeNewVapidKeys(db: HubDb, hubKey: Uint8Array, now: number): VapidKeys {
  const made = newKeyPair();
  db.sqlite
    .query<unknown, [string, string, number]>(
      "INSERT INTO push_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET public_key = excluded.public_key, private_key = excluded.private_key, created_at = excluded.created_at",
    )
    .run(made.publicKey, seal(sealingKey(hubKey), CONTEXT, made.privateKey), now);
  return { publicKey: made.publicKey, privateKey: made.privateKey };
}

/** The operator's key when given, else the stored one, else a new one stored now. */
export function loadVapidKeys(db: HubDb, hubKey: Uint8Array, given: string | null, now: number): VapidKeys {
  if (given !== null) return { publicKey: publicKeyOf(given), privateKey: given };
  const row = db.sqlite.query<{ public_key: string; private_key: string }, []>("SELECT public_key, private_key FROM push_keys WHERE id = 1").get();
  if (row === null) return storeNewVapidKeys(db, hubKey, now);
  const privateKey = unseal(sealingKey(hubKey), CONTEXT, row.private_key);
  if (privateKey === null) throw new UnreadableVapidKey("the stored push key cannot be opened with this hub's key (was hub.key replaced?); run `hub push rotate-key` to make a new one");
  return { publicKey: row.public_key, privateKey };
}

/** What `hub push rotate-key` costs, said where it is done. */
export const ROTATION_COST = "every push subscription was dropped: browsers subscribe again with the new key the next time the board is opened and the viewer asks for alerts";

/** A new key pair, and every subscription dropped (they are bound to the old public key); one transaction. */
export function rotateVapidKeys(db: HubDb, hubKey: Uint8Array, now: number): { keys: VapidKeys; dropped: number } {
  return db.sqlite.transaction(() => {
    const dropped = db.sqlite.query("DELETE FROM push_subscriptions").run().changes;
    db.sqlite.query("DELETE FROM push_batches").run();
    return { keys: storeNewVapidKeys(db, hubKey, now), dropped };
  })();
}

/**
 * The JWT's `sub` (RFC 8292 §2.1): the contact e-mail as mailto:, or else the
 * origin when it is https. Null when there is neither: then push is off.
 */
export function vapidSubject(contactEmail: string | null, origin: string): string | null {
  if (contactEmail !== null) return `mailto:${contactEmail}`;
  return origin.startsWith("https://") ? origin : null;
}

/** Why push is off, in a sentence that says what to set; null when it is on. */
export function pushOffReason(enabled: boolean, subject: string | null): string | null {
  if (!enabled) return "Web Push is switched off on this hub (PUSH_ENABLED=false).";
  if (subject === null) return "Web Push needs a contact for the push services: set CONTACT_EMAIL, or serve the hub at an https ORIGIN.";
  return null;
}
