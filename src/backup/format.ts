/**
 * The backup file (SPEC §25): a small header, then the database compressed
 * with zstd, encrypted with AES-256-GCM when a passphrase is set. Made and
 * read as streams, a megabyte at a time, so a database of gigabytes never
 * sits in memory.
 *
 *   offset  size  field
 *        0     8  magic "HUBBAK" 0x00 0x02 (format 2)
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
 *       98    12  base nonce
 *
 * Not encrypted, the zstd stream follows the header. Encrypted, the zstd
 * stream is cut into segments of at most 1 MiB, each written as a uint32
 * big-endian length and AES-256-GCM(segment) with its 16-byte tag. Segment i
 * is sealed with the base nonce whose last four bytes are XORed with i, and
 * with the whole header, i (uint32) and a final flag (1 on the last segment,
 * else 0) as additional data: segments cannot be reordered, dropped, or cut
 * off at the end without the tag check failing.
 *
 * PBKDF2 turns the passphrase and the salt into 64 bytes: the first 32 are
 * the AES key, the last 32 the check key. The key check tells a wrong
 * passphrase from a damaged file; the GCM tags and the database's SHA-256
 * catch every other change.
 */
import { closeSync, createReadStream, openSync, readSync, writeSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { syncedFile } from "./synced.ts";
import { constants as zlibConstants, createZstdCompress, createZstdDecompress } from "node:zlib";

export const BACKUP_MAGIC = new Uint8Array([0x48, 0x55, 0x42, 0x42, 0x41, 0x4b, 0x00, 0x02]);
const FLAG_ENCRYPTED = 1;
const COMPRESSION_ZSTD = 1;
const PLAIN_HEADER = 62;
const ENCRYPTED_HEADER = 110;
const SEGMENT_BYTES = 1 << 20;
const TAG_BYTES = 16;
const CHUNK_BYTES = 1 << 20;
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

/** SHA-256 and size of a file, read a megabyte at a time. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    const bytes = chunk instanceof Uint8Array ? chunk : new TextEncoder().encode(String(chunk));
    hasher.update(bytes);
    size += bytes.byteLength;
  }
  return { sha256: hasher.digest("hex"), size };
}

interface Keys {
  readonly aes: CryptoKey;
  readonly check: Uint8Array;
}

async function deriveKeys(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Keys> {
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

function segmentNonce(base: Uint8Array, index: number): Uint8Array<ArrayBuffer> {
  const nonce = new Uint8Array(base);
  const view = new DataView(nonce.buffer);
  view.setUint32(8, view.getUint32(8) ^ index);
  return nonce;
}

function segmentData(header: Uint8Array, index: number, final: boolean): Uint8Array<ArrayBuffer> {
  const data = new Uint8Array(header.byteLength + 5);
  data.set(header, 0);
  new DataView(data.buffer).setUint32(header.byteLength, index);
  data[header.byteLength + 4] = final ? 1 : 0;
  return data;
}

function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  throw new BackupFormatError("a stream gave text where bytes were expected");
}

/** Cuts a byte stream into sealed segments: length, then ciphertext with its tag; the last one marked final. */
async function* sealSegments(source: AsyncIterable<unknown>, header: Uint8Array, keys: Keys, nonce: Uint8Array): AsyncGenerator<Uint8Array> {
  let parts: Uint8Array[] = [];
  let pending = 0;
  let index = 0;
  const seal = async (segment: Uint8Array, final: boolean): Promise<Uint8Array> => {
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv: segmentNonce(nonce, index), additionalData: segmentData(header, index, final) }, keys.aes, plain(segment)));
    index += 1;
    const record = new Uint8Array(4 + sealed.byteLength);
    new DataView(record.buffer).setUint32(0, sealed.byteLength);
    record.set(sealed, 4);
    return record;
  };
  const joined = (): Uint8Array => {
    const all = new Uint8Array(pending);
    let at = 0;
    for (const part of parts) {
      all.set(part, at);
      at += part.byteLength;
    }
    return all;
  };
  for await (const chunk of source) {
    const bytes = asBytes(chunk);
    parts.push(bytes);
    pending += bytes.byteLength;
    // A full segment is sealed only once more bytes follow it, so the last one is always known to be last.
    if (pending <= SEGMENT_BYTES) continue;
    const all = joined();
    let at = 0;
    while (all.byteLength - at > SEGMENT_BYTES) {
      yield await seal(all.subarray(at, at + SEGMENT_BYTES), false);
      at += SEGMENT_BYTES;
    }
    parts = [all.subarray(at)];
    pending = all.byteLength - at;
  }
  yield await seal(joined(), true);
}

/**
 * Writes the backup file of the database at `databasePath` to `outPath`
 * (which must not exist). Returns the backup file's SHA-256 and size.
 */
export async function encodeBackupFile(
  databasePath: string,
  outPath: string,
  meta: { schemaVersion: number; createdAt: number },
  passphrase: string | null,
  iterations = PBKDF2_ITERATIONS,
): Promise<{ sha256: string; size: number }> {
  const database = await hashFile(databasePath);
  const header = new Uint8Array(passphrase === null ? PLAIN_HEADER : ENCRYPTED_HEADER);
  const view = new DataView(header.buffer);
  header.set(BACKUP_MAGIC, 0);
  header[8] = passphrase === null ? 0 : FLAG_ENCRYPTED;
  header[9] = COMPRESSION_ZSTD;
  view.setUint32(10, meta.schemaVersion);
  view.setBigUint64(14, BigInt(meta.createdAt));
  header.set(hexToBytes(database.sha256), 22);
  view.setBigUint64(54, BigInt(database.size));
  let keys: Keys | null = null;
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  if (passphrase !== null) {
    const salt = crypto.getRandomValues(new Uint8Array(16));
    keys = await deriveKeys(passphrase, salt, iterations);
    view.setUint32(62, iterations);
    header.set(salt, 66);
    header.set(keys.check, 82);
    header.set(nonce, 98);
  }
  const fd = openSync(outPath, "wx", 0o600);
  try {
    writeSync(fd, header);
  } finally {
    closeSync(fd);
  }
  const sealing = keys;
  await pipeline(
    createReadStream(databasePath, { highWaterMark: CHUNK_BYTES }),
    createZstdCompress({ params: { [zlibConstants.ZSTD_c_compressionLevel]: 3 } }),
    async function* (source: AsyncIterable<unknown>) {
      if (sealing === null) for await (const chunk of source) yield asBytes(chunk);
      else yield* sealSegments(source, header, sealing, nonce);
    },
    syncedFile(outPath, "a"),
  );
  return await hashFile(outPath);
}

/** Reads a backup file's header, without the passphrase. */
export function readBackupHeader(file: Uint8Array): BackupHeader {
  if (file.byteLength < PLAIN_HEADER || !BACKUP_MAGIC.slice(0, 7).every((b, i) => file[i] === b)) {
    throw new BackupFormatError("this is not a hub backup (its first bytes are not a hub backup's header), or it is damaged");
  }
  if (file[7] !== BACKUP_MAGIC[7]) throw new BackupFormatError(`this backup is in format ${file[7]}, which this hub does not read; restore it with the hub version that made it`);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const encrypted = ((file[8] ?? 0) & FLAG_ENCRYPTED) !== 0;
  if (file[9] !== COMPRESSION_ZSTD) throw new BackupFormatError("this backup uses a compression this hub does not know; restore it with a newer hub");
  if (encrypted && file.byteLength < ENCRYPTED_HEADER) throw new BackupFormatError("this backup is cut short: it is damaged");
  return {
    encrypted,
    schemaVersion: view.getUint32(10),
    createdAt: Number(view.getBigUint64(14)),
    sha256: bytesToHex(file.subarray(22, 54)),
    databaseBytes: Number(view.getBigUint64(54)),
  };
}

/** Reads exactly `length` bytes at `position`, or fewer at the end of the file. */
function readAt(fd: number, position: number, length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buffer : buffer.subarray(0, got);
}

/** The header at the start of a backup file. */
export function readBackupFileHeader(path: string): BackupHeader {
  const fd = openSync(path, "r");
  try {
    return readBackupHeader(readAt(fd, 0, ENCRYPTED_HEADER));
  } finally {
    closeSync(fd);
  }
}

/** The zstd stream of a backup file: read as it is, or opened segment by segment. */
async function* compressedStream(path: string, header: BackupHeader, passphrase: string | null): AsyncGenerator<Uint8Array> {
  const fd = openSync(path, "r");
  try {
    if (!header.encrypted) {
      for (let position = PLAIN_HEADER; ; ) {
        const chunk = readAt(fd, position, CHUNK_BYTES);
        if (chunk.byteLength === 0) return;
        position += chunk.byteLength;
        yield chunk;
      }
    }
    if (passphrase === null) throw new BackupFormatError("this backup is encrypted: set BACKUP_ENCRYPTION_KEY (or BACKUP_ENCRYPTION_KEY_FILE) to the passphrase it was made with");
    const headerBytes = readAt(fd, 0, ENCRYPTED_HEADER);
    const view = new DataView(headerBytes.buffer);
    const iterations = view.getUint32(62);
    if (iterations < 1 || iterations > 10_000_000) throw new BackupFormatError("this backup's header is damaged");
    const keys = await deriveKeys(passphrase, plain(headerBytes.slice(66, 82)), iterations);
    if (!keys.check.every((b, i) => headerBytes[82 + i] === b)) throw new BackupFormatError("BACKUP_ENCRYPTION_KEY is not the passphrase this backup was made with");
    const nonce = headerBytes.slice(98, 110);
    let position = ENCRYPTED_HEADER;
    for (let index = 0; ; index += 1) {
      const lengthBytes = readAt(fd, position, 4);
      if (lengthBytes.byteLength < 4) throw new BackupFormatError("this backup is damaged: it ends before its last segment");
      const length = new DataView(lengthBytes.buffer).getUint32(0);
      if (length < TAG_BYTES || length > SEGMENT_BYTES + TAG_BYTES) throw new BackupFormatError("this backup is damaged: a segment's length is impossible");
      const sealed = readAt(fd, position + 4, length);
      if (sealed.byteLength < length) throw new BackupFormatError("this backup is damaged: it ends inside a segment");
      position += 4 + length;
      const final = readAt(fd, position, 1).byteLength === 0;
      let opened: Uint8Array;
      try {
        opened = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: segmentNonce(nonce, index), additionalData: segmentData(headerBytes, index, final) }, keys.aes, plain(sealed)));
      } catch {
        throw new BackupFormatError("this backup is damaged: its content does not match its authentication tags");
      }
      yield opened;
      if (final) return;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the database inside the backup file at `path` to `outPath` (which
 * must not exist), checked against the size and SHA-256 in its header. It
 * never writes more than the header's size (and one chunk); on any failure
 * the caller removes what was written.
 */
export async function decodeBackupFile(path: string, outPath: string, passphrase: string | null): Promise<BackupHeader> {
  const header = readBackupFileHeader(path);
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  try {
    await pipeline(
      compressedStream(path, header, passphrase),
      createZstdDecompress(),
      async function* (source: AsyncIterable<unknown>) {
        for await (const chunk of source) {
          const bytes = asBytes(chunk);
          size += bytes.byteLength;
          // A file that holds more than its header declares (a small file that inflates to gigabytes) is cut off here, not after the disk is full.
          if (size > header.databaseBytes) throw new BackupFormatError(`this backup is damaged: it holds more than the ${header.databaseBytes} bytes its header declares`);
          hasher.update(bytes);
          yield bytes;
        }
      },
      syncedFile(outPath, "wx"),
    );
  } catch (error) {
    if (error instanceof BackupFormatError) throw error;
    if (error instanceof Error && "code" in error && typeof error.code === "string" && error.code.startsWith("ERR_ZSTD")) {
      throw new BackupFormatError("this backup is damaged: its compressed content cannot be read");
    }
    if (error instanceof Error && "code" in error && (error.code === "EEXIST" || error.code === "ENOSPC" || error.code === "EACCES")) throw error;
    throw new BackupFormatError(`this backup is damaged: its compressed content cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  if (size !== header.databaseBytes || hasher.digest("hex") !== header.sha256) {
    throw new BackupFormatError("this backup is damaged: the database in it does not match the SHA-256 recorded when it was made");
  }
  return header;
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
