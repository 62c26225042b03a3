/**
 * The hub's one persistent key, and the secrets derived from it. The key is
 * `hub.key` beside the database (made at first start, owner-only) unless
 * SECRET_KEY gives one. Each use takes its own HKDF-SHA-256 derivation with
 * its own label, so one derived secret says nothing about the key or the
 * others.
 */
import { hkdfSync, randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, fileProblem, type Config } from "../config/load.ts";
import { InvalidValue, OPTIONS, parseSecretKey } from "../config/options.ts";
import { createPrivateFile, restrictToOwner, type HubDb } from "../db/open.ts";
import type { Logger } from "../log.ts";
import { sealStoredTotpSecrets, TotpSecrets } from "./totp.ts";

export const KEY_FILE_NAME = "hub.key";
const KEY_BYTES = 32;

/** One label per derived secret; changing a label changes that secret (ending every session, or losing every TOTP secret). */
const LABELS = {
  session: "incentives-hub session secret v1",
  totp: "incentives-hub totp secret encryption v1",
} as const;

export interface HubKey {
  readonly bytes: Uint8Array;
  /**
   * Where it came from: the SECRET_KEY setting, an existing hub.key, a
   * hub.key made just now, or memory (a database in memory has nowhere to
   * keep a key, and nothing of it outlives the process).
   */
  readonly origin: "setting" | "file" | "created" | "memory";
  readonly path: string | null;
}

export function keyFilePath(dbPath: string): string {
  return join(dirname(dbPath), KEY_FILE_NAME);
}

function readKeyFile(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read the hub's key ${path}: ${fileProblem(error)}`);
  }
  try {
    return parseSecretKey(text);
  } catch (error) {
    if (!(error instanceof InvalidValue)) throw error;
    throw new ConfigError(`the hub's key ${path} is damaged (expected ${OPTIONS.secretKey.allowed}); restore it from a backup, or give the key with ${OPTIONS.secretKey.env}_FILE`);
  }
}

/** Syncs a directory, so that a name just linked into it survives a crash. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes hub.key, or returns null when another process made it first. The key
 * is written whole to a temporary file that is then linked into place, which
 * fails if the name exists: a crash never leaves half a key, and a key once
 * made is never replaced.
 */
function createKeyFile(path: string): Uint8Array | null {
  const bytes = new Uint8Array(randomBytes(KEY_BYTES));
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    rmSync(temporary, { force: true });
    createPrivateFile(temporary, `${Buffer.from(bytes).toString("hex")}\n`);
    linkSync(temporary, path);
    syncDirectory(dirname(path));
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "EEXIST") return null;
    throw new ConfigError(`cannot create the hub's key ${path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    rmSync(temporary, { force: true });
  }
  return bytes;
}

/** The key from the setting when given; else hub.key beside the database, made at the first start. */
export function loadOrCreateKey(dbPath: string, configured: Uint8Array | null): HubKey {
  if (configured) return { bytes: configured, origin: "setting", path: null };
  if (dbPath === ":memory:") return { bytes: new Uint8Array(randomBytes(KEY_BYTES)), origin: "memory", path: null };
  const path = keyFilePath(dbPath);
  if (!existsSync(path)) {
    const made = createKeyFile(path);
    if (made) return { bytes: made, origin: "created", path };
  }
  restrictToOwner(path);
  return { bytes: readKeyFile(path), origin: "file", path };
}

function derive(key: Uint8Array, label: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", key, new Uint8Array(0), label, 32));
}

export interface HubSecrets {
  /** SESSION_SECRET when set, else derived from the key: the same at every start either way, so sessions survive restarts. */
  readonly sessionSecret: string;
  readonly totpSecrets: TotpSecrets;
}

export function hubSecrets(key: Uint8Array, sessionSecret: string | null): HubSecrets {
  return {
    sessionSecret: sessionSecret ?? Buffer.from(derive(key, LABELS.session)).toString("hex"),
    totpSecrets: new TotpSecrets(derive(key, LABELS.totp)),
  };
}

/**
 * The key's part of a start, right after the migrations: load or make the
 * key, derive the secrets, and encrypt the TOTP secrets a hub from before the
 * key left in plaintext.
 */
export function startSecrets(db: HubDb, config: Pick<Config, "secretKey" | "sessionSecret">, log: Logger): HubSecrets {
  const key = loadOrCreateKey(db.path, config.secretKey);
  if (key.origin === "created") {
    log.info("created the hub's key; keep a copy of it apart from the database backups, as stored TOTP secrets cannot be read without it", { path: key.path });
  }
  const secrets = hubSecrets(key.bytes, config.sessionSecret);
  const totp = sealStoredTotpSecrets(db, secrets.totpSecrets);
  if (totp.sealed > 0) log.info("encrypted stored TOTP secrets under the hub's key", { users: totp.sealed });
  if (totp.unreadable > 0) {
    log.warn("some stored TOTP secrets cannot be decrypted with this key (was hub.key replaced?); those users need an admin to reset their second factor", { users: totp.unreadable });
  }
  return secrets;
}
