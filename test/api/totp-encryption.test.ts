/**
 * The hub's key and what derives from it: TOTP secrets stored encrypted (and
 * a database from before the key encrypted in place at start-up), sessions
 * that survive a restart without SESSION_SECRET, and a copied database that
 * gives no TOTP secret away.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as OTPAuth from "otpauth";
import { hubSecrets, keyFilePath, loadOrCreateKey } from "../../src/auth/keys.ts";
import { hashPasswordSync } from "../../src/auth/passwords.ts";
import { isSealed } from "../../src/auth/sealed.ts";
import { sealStoredTotpSecrets, TotpSecrets } from "../../src/auth/totp.ts";
import { ConfigError, type Env } from "../../src/config/load.ts";
import { closeDatabase, migrate, openDatabase } from "../../src/db/open.ts";
import { createHub, type Hub } from "../../src/hub.ts";
import { Browser } from "../browser.ts";
import { memoryLog, scratchDirs, testConfig, testHub } from "../helpers.ts";

const scratch = scratchDirs();
const PASSWORD = "correct horse battery";
/** A TOTP secret in the plaintext base32 form hubs before the key stored. */
const LEGACY_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const KEY_HEX = "00112233445566778899aabbccddeeff".repeat(2);

function code(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" }).generate({ timestamp: at });
}

/** A database as a hub before the key left it: an admin whose TOTP secret is stored in plaintext. */
function legacyDatabase(): string {
  const path = join(scratch(), "hub.db");
  const db = openDatabase(path);
  migrate(db);
  db.sqlite
    .query("INSERT INTO users (username, username_key, role, password_hash, totp_secret, totp_enabled, created_at, updated_at) VALUES ('root', 'root', 'admin', ?, ?, 1, 0, 0)")
    .run(hashPasswordSync(PASSWORD), LEGACY_SECRET);
  closeDatabase(db);
  return path;
}

function storedSecret(hub: Hub): string {
  return hub.ctx.db.sqlite.query<{ totp_secret: string }, []>("SELECT totp_secret FROM users WHERE username = 'root'").get()?.totp_secret ?? "";
}

const clock = { at: Date.parse("2026-11-21T18:00:00Z"), now: () => clock.at };

/** A hub on a database file, as `hub serve` makes one (without listening), with its log kept. */
function boot(path: string, env: Env = {}) {
  const { log, lines } = memoryLog("info");
  const hub = createHub(testConfig(["--db", path], env), { db: openDatabase(path), log, now: clock.now });
  return { hub, lines, close: () => closeDatabase(hub.ctx.db) };
}

/** Signs in with the password, then with the code of `secret` for the next time step; the status of the second factor. */
async function signInWithTotp(hub: Hub, secret: string): Promise<number> {
  clock.at += 30_000;
  const browser = new Browser(hub);
  expect(await browser.login("root", PASSWORD)).toMatchObject({ status: 200, next: "mfa" });
  return (await browser.json("POST", "/api/v1/auth/mfa/totp/verification", { code: code(secret, clock.now()) })).status;
}

describe("TOTP secrets at rest", () => {
  test("a plaintext secret from before the key is encrypted in place at start-up, once, and its codes still verify", async () => {
    const path = legacyDatabase();
    const first = boot(path);
    const sealed = storedSecret(first.hub);
    expect(sealed).toMatch(/^v1:[A-Za-z0-9+/]+=*:[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain(LEGACY_SECRET);
    expect(first.lines.find((line) => line.msg === "encrypted stored TOTP secrets under the hub's key")).toMatchObject({ level: "info", users: 1 });
    expect(await signInWithTotp(first.hub, LEGACY_SECRET)).toBe(200);
    first.close();

    const second = boot(path);
    expect(storedSecret(second.hub)).toBe(sealed);
    expect(second.lines.some((line) => line.msg === "encrypted stored TOTP secrets under the hub's key")).toBe(false);
    expect(sealStoredTotpSecrets(second.hub.ctx.db, second.hub.ctx.accounts.totpSecrets)).toEqual({ sealed: 0, unreadable: 0 });
    expect(await signInWithTotp(second.hub, LEGACY_SECRET)).toBe(200);
    second.close();
  });

  test("enrolment stores the secret encrypted: the column never holds what the authenticator was given", async () => {
    const hub = testHub({ now: clock.now });
    const admin = new Browser(hub);
    await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD });
    await admin.session();
    const { body } = await admin.json<{ secret: string }>("POST", "/api/v1/auth/mfa/totp");
    const stored = storedSecret(hub);
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain(body.secret);
    expect((await admin.json("POST", "/api/v1/auth/mfa/totp/activation", { code: code(body.secret, clock.now()) })).status).toBe(204);
    expect(storedSecret(hub)).toBe(stored);
    expect(await signInWithTotp(hub, body.secret)).toBe(200);
  });

  test("a database copied without hub.key gives no TOTP secret away, and works again with its key", async () => {
    const path = legacyDatabase();
    boot(path).close();
    const copy = join(scratch(), "hub.db");
    copyFileSync(path, copy);

    const elsewhere = boot(copy);
    expect(storedSecret(elsewhere.hub)).not.toContain(LEGACY_SECRET);
    expect(elsewhere.lines.find((line) => line.level === "warn" && String(line.msg).includes("cannot be decrypted"))).toMatchObject({ users: 1 });
    clock.at += 30_000;
    const browser = new Browser(elsewhere.hub);
    await browser.login("root", PASSWORD);
    const refused = await browser.json<{ detail: string }>("POST", "/api/v1/auth/mfa/totp/verification", { code: code(LEGACY_SECRET, clock.now()) });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("an admin must reset");
    elsewhere.close();

    const withKey = boot(copy, { SECRET_KEY_FILE: keyFilePath(path) });
    expect(withKey.lines.some((line) => line.level === "warn")).toBe(false);
    expect(await signInWithTotp(withKey.hub, LEGACY_SECRET)).toBe(200);
    withKey.close();
  });

  test("a sealed secret opens only under its key, for its user, untampered", () => {
    const secrets = new TotpSecrets(new Uint8Array(32).fill(7));
    const sealed = secrets.seal(5, LEGACY_SECRET);
    expect(secrets.tryOpen(5, sealed)).toBe(LEGACY_SECRET);
    expect(secrets.seal(5, LEGACY_SECRET)).not.toBe(sealed);
    expect(secrets.tryOpen(6, sealed)).toBeNull();
    expect(new TotpSecrets(new Uint8Array(32).fill(8)).tryOpen(5, sealed)).toBeNull();
    const body = sealed.slice(sealed.lastIndexOf(":") + 1);
    const flipped = `${sealed.slice(0, sealed.lastIndexOf(":") + 1)}${body.startsWith("A") ? "B" : "A"}${body.slice(1)}`;
    expect(secrets.tryOpen(5, flipped)).toBeNull();
    expect(secrets.tryOpen(5, LEGACY_SECRET)).toBeNull();
    expect(secrets.tryOpen(5, "v1:short:x")).toBeNull();
    expect(() => secrets.open(6, sealed)).toThrow("cannot be read with this hub's key");
  });
});

describe("the hub's key", () => {
  test("hub.key is made at first start beside the database, owner-only, and read again at the next", () => {
    const path = join(scratch(), "data", "hub.db");
    const first = boot(path);
    first.close();
    const keyPath = join(path, "..", "hub.key");
    expect(keyPath).toBe(keyFilePath(path));
    expect(readFileSync(keyPath, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(first.lines.find((line) => String(line.msg).startsWith("created the hub's key"))).toMatchObject({ path: keyPath });
    const before = readFileSync(keyPath, "utf8");
    const again = loadOrCreateKey(path, null);
    expect(again.origin).toBe("file");
    expect(Buffer.from(again.bytes).toString("hex")).toBe(before.trim());
    expect(readFileSync(keyPath, "utf8")).toBe(before);
  });

  test("SECRET_KEY replaces hub.key, which is then neither made nor read; a database in memory gets a key of its own", () => {
    const path = join(scratch(), "hub.db");
    boot(path, { SECRET_KEY: KEY_HEX }).close();
    expect(existsSync(keyFilePath(path))).toBe(false);
    writeFileSync(keyFilePath(path), "damaged\n");
    expect(Buffer.from(loadOrCreateKey(path, Buffer.from(KEY_HEX, "hex")).bytes).toString("hex")).toBe(KEY_HEX);
    const memory = loadOrCreateKey(":memory:", null);
    expect(memory.origin).toBe("memory");
    expect(memory.bytes.length).toBe(32);
    expect(existsSync(keyFilePath(":memory:"))).toBe(false);
  });

  test("a damaged hub.key stops start-up with a line naming it, never its content", () => {
    const path = join(scratch(), "hub.db");
    writeFileSync(keyFilePath(path), "0123-not-a-key\n");
    let message = "";
    try {
      loadOrCreateKey(path, null);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      message = error.message;
    }
    expect(message).toContain(`the hub's key ${keyFilePath(path)} is damaged`);
    expect(message).not.toContain("0123-not-a-key");
  });

  test("each derived secret has its own label; SESSION_SECRET, when set, is the session secret", () => {
    const key = new Uint8Array(Buffer.from(KEY_HEX, "hex"));
    const derived = hubSecrets(key, null);
    expect(derived.sessionSecret).toBe(hubSecrets(key, null).sessionSecret);
    expect(derived.sessionSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(derived.sessionSecret).not.toContain(KEY_HEX);
    expect(hubSecrets(new Uint8Array(32), null).sessionSecret).not.toBe(derived.sessionSecret);
    expect(hubSecrets(key, "x".repeat(40)).sessionSecret).toBe("x".repeat(40));
    const sealed = derived.totpSecrets.seal(1, LEGACY_SECRET);
    expect(hubSecrets(key, "x".repeat(40)).totpSecrets.tryOpen(1, sealed)).toBe(LEGACY_SECRET);
    expect(new TotpSecrets(new Uint8Array(Buffer.from(derived.sessionSecret, "hex"))).tryOpen(1, sealed)).toBeNull();
  });
});

/** The same browser, come back to a restarted hub. */
function sameCookies(hub: Hub, browser: Browser): Browser {
  const returning = new Browser(hub);
  for (const [name, value] of browser.cookies) returning.cookies.set(name, value);
  return returning;
}

describe("sessions", () => {
  test("survive a restart without SESSION_SECRET, and end when the key changes", async () => {
    const path = join(scratch(), "hub.db");
    const env = { MFA_ENFORCED_ROLES: "" };
    const first = boot(path, env);
    const admin = new Browser(first.hub);
    expect((await admin.json("POST", "/api/v1/auth/setup", { username: "root", password: PASSWORD })).status).toBe(201);
    expect((await admin.session()).authenticated).toBe(true);
    first.close();

    const restarted = boot(path, env);
    expect((await sameCookies(restarted.hub, admin).session()).authenticated).toBe(true);
    restarted.close();

    const rekeyed = boot(path, { ...env, SECRET_KEY: KEY_HEX });
    expect((await sameCookies(rekeyed.hub, admin).session()).authenticated).toBe(false);
    rekeyed.close();
  });
});
