/** The VAPID key pair the hub makes on first start (SPEC §23): the form browsers and npm web-push take. */
import { describe, expect, test } from "bun:test";
import webpush from "web-push";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { loadVapidKeys, publicKeyOf } from "../../src/push/vapid.ts";

const HUB_KEY = new Uint8Array(32).fill(7);

describe("a new VAPID key pair", () => {
  test("is a 32-byte scalar and its uncompressed P-256 point, kept and given back unchanged, and web-push signs with it", () => {
    for (let i = 0; i < 50; i++) {
      const db = openDatabase(":memory:");
      migrate(db);
      const made = loadVapidKeys(db, HUB_KEY, null, 1_000);
      const scalar = Buffer.from(made.privateKey, "base64url");
      const point = Buffer.from(made.publicKey, "base64url");
      expect(scalar.length).toBe(32);
      expect(point.length).toBe(65);
      expect(point[0]).toBe(4);
      expect(publicKeyOf(made.privateKey)).toBe(made.publicKey);
      expect(loadVapidKeys(db, HUB_KEY, null, 2_000)).toEqual(made);
      const header = webpush.getVapidHeaders("https://push.example", "mailto:ops@example.org", made.publicKey, made.privateKey, "aes128gcm", Math.floor(Date.now() / 1000) + 3600);
      expect(header.Authorization).toStartWith(`vapid t=`);
      expect(header.Authorization).toEndWith(`, k=${made.publicKey}`);
      db.sqlite.close();
    }
  });
});
