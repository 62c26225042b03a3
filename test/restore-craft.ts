/**
 * Backup files made by hand, for the tests that show `hub restore` trusts
 * nothing in them: a header that says what the test wants, then any zstd
 * stream, written as it is made (a gigabyte never sits in memory).
 */
import { Database } from "bun:sqlite";
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants as zlibConstants, createZstdCompress } from "node:zlib";
import { BACKUP_MAGIC } from "../src/backup/format.ts";
import { migrate, openDatabase } from "../src/db/open.ts";
import { MIGRATIONS } from "../src/db/migrations.ts";

export const NEWEST_SCHEMA = MIGRATIONS.at(-1)?.version ?? 0;

/** A plain (not encrypted) backup file's header: format 2, zstd, the given version, size and SHA-256. */
export function plainHeader(meta: { schemaVersion: number; databaseBytes: number; sha256?: string; createdAt?: number }): Uint8Array {
  const header = new Uint8Array(62);
  const view = new DataView(header.buffer);
  header.set(BACKUP_MAGIC, 0);
  header[8] = 0;
  header[9] = 1;
  view.setUint32(10, meta.schemaVersion);
  view.setBigUint64(14, BigInt(meta.createdAt ?? Date.now()));
  const sha = meta.sha256 ?? "00".repeat(32);
  header.set(Uint8Array.from(sha.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16)), 22);
  view.setBigUint64(54, BigInt(meta.databaseBytes));
  return header;
}

/** Writes `header`, then the zstd of everything `body` yields. */
export async function writeCrafted(path: string, header: Uint8Array, body: () => AsyncGenerator<Uint8Array>): Promise<void> {
  await pipeline(
    Readable.from((async function* () {
      yield header;
    })()),
    createWriteStream(path, { mode: 0o600 }),
  );
  await pipeline(Readable.from(body()), createZstdCompress({ params: { [zlibConstants.ZSTD_c_compressionLevel]: 1 } }), createWriteStream(path, { flags: "a" }));
}

/** `mib` mebibytes of zeros, a mebibyte at a time. */
export function zeros(mib: number): () => AsyncGenerator<Uint8Array> {
  return async function* () {
    const chunk = new Uint8Array(1 << 20);
    for (let i = 0; i < mib; i += 1) yield chunk;
  };
}

/** A database file made by the hub's migrations up to `version`, then changed by `tamper`. */
export function hubDatabase(path: string, tamper: (sqlite: Database) => void = () => {}, version = NEWEST_SCHEMA): string {
  const db = openDatabase(path);
  migrate(db, MIGRATIONS.filter((m) => m.version <= version));
  db.sqlite.query("INSERT INTO users (username, username_key, password_hash, role, created_at, updated_at) VALUES ('ada', 'ada', 'x', 'user', 1, 1)").run();
  tamper(db.sqlite);
  db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.sqlite.exec("PRAGMA journal_mode = DELETE");
  db.sqlite.close();
  return path;
}
