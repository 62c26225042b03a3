/**
 * The backup file (SPEC §25): a small header, then the database compressed
 * with zstd, encrypted with AES-256-GCM when a passphrase is set.
 *
 *   offset  size  field
 *        0     8  magic "HUBBAK" 0x00 0x01 (format 1)
 *        8     1  flags: bit 0 set when encrypted
 *        9     1  compression: 1 = zstd
 *       10     4  schema version (the newest migration applied), uint32 big-endian
 *       14     8  when the snapshot was taken, epoch ms, uint64 big-endian
 *       22    32  SHA-256 of the database file
 *       54     8  size of the database file, uint64 big-endian
 *   encrypted only:
 *       62     4  PBKDF2-SHA256 iterations, uint32 big-endian
 *       66    16  salt
 *       82    16  key check: the first 16 bytes of HMAC-SHA256(check key, "hub backup key check")
 *       98    12  AES-GCM nonce
 *   then the payload: zstd(database), or AES-256-GCM(zstd(database)) with the
 *   whole header as additional data (its 16-byte tag last).
 *
 * PBKDF2 turns the passphrase and the salt into 64 bytes: the first 32 are
 * the AES key, the last 32 the check key. The key check tells a wrong
 * passphrase from a damaged file; the GCM tag and the database's SHA-256
 * catch every other change.
 */

export const BACKUP_MAGIC = new Uint8Array([0x48, 0x55, 0x42, 0x42, 0x41, 0x4b, 0x00, 0x01]);
const FLAG_ENCRYPTED = 1;
const COMPRESSION_ZSTD = 1;
const PLAIN_HEADER = 62;
const ENCRYPTED_HEADER = 110;
export const PBKDF2_ITERATIONS = 600_000;
const CHECK_LABEL = new TextEncoder().encode("hub backup key check");

/** A backup that cannot be read: the message says why, in words an operator can act on. */
export class BackupFormatError extends Error {
  override readonly name = "BackupFormatError";
}

export interface BackupHeader {
  readonly encrypted: boolean;
  readonly schemaVersion: number;
  readonly createdAt: number;
  readonly sha256: string;
  readonly databaseBytes: number;
}

export function sha256Hex(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

async function deriveKeys(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<{ aes: CryptoKey; check: Uint8Array }> {
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false, ["deriveBits"]);
  const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, base, 512));
  const aes = await crypto.subtle.importKey("raw", bits.slice(0, 32), "AES-GCM", false, ["encrypt", "decrypt"]);
  const checkKey = await crypto.subtle.importKey("raw", bits.slice(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const check = new Uint8Array(await crypto.subtle.sign("HMAC", checkKey, CHECK_LABEL)).slice(0, 16);
  return { aes, check };
}

/** The same bytes as a view on a plain ArrayBuffer, which Web Crypto takes (copied only when they sit in a shared one). */
function plain(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
}

function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
}

function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Makes a backup file of a database's bytes. */
export async function encodeBackup(database: Uint8Array, meta: { schemaVersion: number; createdAt: number }, passphrase: string | null, iterations = PBKDF2_ITERATIONS): Promise<Uint8Array> {
  const compressed = Bun.zstdCompressSync(database, { level: 3 });
  const header = new Uint8Array(passphrase === null ? PLAIN_HEADER : ENCRYPTED_HEADER);
  const view = new DataView(header.buffer);
  header.set(BACKUP_MAGIC, 0);
  header[8] = passphrase === null ? 0 : FLAG_ENCRYPTED;
  header[9] = COMPRESSION_ZSTD;
  view.setUint32(10, meta.schemaVersion);
  view.setBigUint64(14, BigInt(meta.createdAt));
  header.set(hexToBytes(sha256Hex(database)), 22);
  view.setBigUint64(54, BigInt(database.byteLength));
  if (passphrase === null) return concat(header, compressed);
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const { aes, check } = await deriveKeys(passphrase, salt, iterations);
  view.setUint32(62, iterations);
  header.set(salt, 66);
  header.set(check, 82);
  header.set(nonce, 98);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: header }, aes, plain(compressed)));
  return concat(header, sealed);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** Reads a backup file's header, without the passphrase. */
export function readBackupHeader(file: Uint8Array): BackupHeader {
  if (file.byteLength < PLAIN_HEADER || !BACKUP_MAGIC.every((b, i) => file[i] === b)) {
    throw new BackupFormatError("this is not a hub backup (its first bytes are not a hub backup's header), or it is damaged");
  }
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const encrypted = ((file[8] ?? 0) & FLAG_ENCRYPTED) !== 0;
  if (file[9] !== COMPRESSION_ZSTD) throw new BackupFormatError("this backup uses a compression this hub does not know; restore it with a newer hub");
  if (encrypted && file.byteLength < ENCRYPTED_HEADER + 16) throw new BackupFormatError("this backup is cut short: it is damaged");
  return {
    encrypted,
    schemaVersion: view.getUint32(10),
    createdAt: Number(view.getBigUint64(14)),
    sha256: bytesToHex(file.subarray(22, 54)),
    databaseBytes: Number(view.getBigUint64(54)),
  };
}

/** The database inside a backup file, checked against the SHA-256 in its header. */
export async function decodeBackup(file: Uint8Array, passphrase: string | null): Promise<{ header: BackupHeader; database: Uint8Array }> {
  const header = readBackupHeader(file);
  let compressed: Uint8Array;
  if (header.encrypted) {
    if (passphrase === null) throw new BackupFormatError("this backup is encrypted: set BACKUP_ENCRYPTION_KEY (or BACKUP_ENCRYPTION_KEY_FILE) to the passphrase it was made with");
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const iterations = view.getUint32(62);
    if (iterations < 1 || iterations > 10_000_000) throw new BackupFormatError("this backup's header is damaged");
    const { aes, check } = await deriveKeys(passphrase, plain(file.slice(66, 82)), iterations);
    if (!check.every((b, i) => file[82 + i] === b)) throw new BackupFormatError("BACKUP_ENCRYPTION_KEY is not the passphrase this backup was made with");
    try {
      compressed = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: file.slice(98, 110), additionalData: file.slice(0, ENCRYPTED_HEADER) }, aes, plain(file.subarray(ENCRYPTED_HEADER))));
    } catch {
      throw new BackupFormatError("this backup is damaged: its content does not match its authentication tag");
    }
  } else {
    compressed = file.subarray(PLAIN_HEADER);
  }
  let database: Uint8Array;
  try {
    database = Bun.zstdDecompressSync(compressed);
  } catch {
    throw new BackupFormatError("this backup is damaged: its compressed content cannot be read");
  }
  if (database.byteLength !== header.databaseBytes || sha256Hex(database) !== header.sha256) {
    throw new BackupFormatError("this backup is damaged: the database in it does not match the SHA-256 recorded when it was made");
  }
  return { header, database };
}

/** A backup's name: `hub-<UTC time>-<schema version>.db.zst`, `.enc` added when encrypted; it sorts by time. */
export function backupName(createdAt: number, schemaVersion: number, encrypted: boolean): string {
  const stamp = new Date(createdAt).toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, "$1Z");
  return `hub-${stamp}-${schemaVersion}.db.zst${encrypted ? ".enc" : ""}`;
}

const NAME = /^hub-(\d{8})T(\d{6})(\d{3})Z-(\d+)\.db\.zst(\.enc)?$/;

/** What a backup's name says, or null for a name that is not a backup's. */
export function parseBackupName(name: string): { createdAt: number; schemaVersion: number; encrypted: boolean } | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const [, date = "", time = "", ms = "", schema = "", enc] = match;
  const createdAt = Date.parse(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${time.slice(0, 2)}:${time.slice(2, 4)}:${time.slice(4, 6)}.${ms}Z`);
  if (!Number.isFinite(createdAt)) return null;
  return { createdAt, schemaVersion: Number(schema), encrypted: enc !== undefined };
}
