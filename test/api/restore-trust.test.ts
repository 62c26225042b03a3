/**
 * `hub restore` trusts nothing in the file (SPEC §16.4): a file that inflates
 * past the size its header declares is cut off there, a database whose
 * schema is not the hub's own is refused naming what differs, and a file
 * without the hub's record of migrations is refused in one sentence; each
 * time the database in place stays byte for byte as it was.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { BackupFormatError, decodeBackupFile, encodeBackupFile } from "../../src/backup/format.ts";
import { restoreBackup, RestoreError } from "../../src/backup/restore.ts";
import { scratchDirs } from "../helpers.ts";
import { hubDatabase, NEWEST_SCHEMA, plainHeader, writeCrafted, zeros } from "../restore-craft.ts";
import { Database } from "bun:sqlite";

const scratch = scratchDirs();
const FAST = 1000;
const S3 = { endpoint: null, region: null, accessKeyId: null, secretAccessKey: null };

/** The database a restore would replace, and its bytes now. */
function inPlace(): { dir: string; path: string; before: Buffer } {
  const dir = scratch();
  const path = hubDatabase(join(dir, "hub.db"));
  return { dir, path, before: readFileSync(path) };
}

async function backupOf(database: string, schemaVersion = NEWEST_SCHEMA): Promise<string> {
  const file = join(scratch(), "hub-20261206T000000000Z-backup.db.zst");
  await encodeBackupFile(database, file, { schemaVersion, createdAt: Date.now() }, null, FAST);
  return file;
}

async function refusal(source: string, dbPath: string): Promise<string> {
  const error = await restoreBackup({ source, dbPath, passphrase: null, s3: S3 }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RestoreError);
  const message = (error as RestoreError).message;
  expect(message).not.toContain("\n");
  return message;
}

function unchanged(place: { dir: string; path: string; before: Buffer }): void {
  expect(readFileSync(place.path).equals(place.before)).toBe(true);
  expect(existsSync(`${place.path}.before-restore`)).toBe(false);
  expect(readdirSync(place.dir).filter((name) => name.includes(".restore-"))).toEqual([]);
}

describe("hub restore trusts nothing in the file", () => {
  test("a zstd bomb (a 4 KiB database declared, a gigabyte of zeros inside) stops at the declared size: the partial output is removed, nothing was changed", async () => {
    const bomb = join(scratch(), "bomb.db.zst");
    await writeCrafted(bomb, plainHeader({ schemaVersion: NEWEST_SCHEMA, databaseBytes: 4096 }), zeros(1024));
    expect(statSync(bomb).size).toBeLessThan(1 << 20);
    // Decoding alone: what it wrote when it stopped is the declared size and at most one chunk more.
    const out = join(scratch(), "out.db");
    const started = performance.now();
    await expect(decodeBackupFile(bomb, out, null)).rejects.toThrow(BackupFormatError);
    expect(statSync(out).size).toBeLessThanOrEqual(4096 + (1 << 20));
    expect(performance.now() - started).toBeLessThan(5000);
    const place = inPlace();
    const message = await refusal(bomb, place.path);
    expect(message).toMatch(/holds more than the 4096 bytes its header declares.*nothing was changed/);
    unchanged(place);
  }, 60_000);

  test("a database with a trigger that makes users admins is refused, naming the trigger", async () => {
    const tampered = hubDatabase(join(scratch(), "tampered.db"), (sqlite) => {
      sqlite.exec("CREATE TRIGGER promote AFTER UPDATE OF last_login_at ON users BEGIN UPDATE users SET role = 'admin' WHERE id = NEW.id; END");
    });
    const place = inPlace();
    const message = await refusal(await backupOf(tampered), place.path);
    expect(message).toContain(`not the hub's schema ${NEWEST_SCHEMA}`);
    expect(message).toContain(`a trigger "promote" on "users" that the hub's migrations do not make`);
    expect(message).toContain("nothing was changed");
    unchanged(place);
  });

  test("a view, an extra table, an extra or missing column, a missing or changed index: each refused, naming it", async () => {
    const cases: [string, (sqlite: Database) => void, string][] = [
      ["view", (s) => s.exec("CREATE VIEW admins AS SELECT * FROM users WHERE role = 'admin'"), `a view "admins"`],
      ["table", (s) => s.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"), `a table "notes" that the hub's migrations do not make`],
      ["extra column", (s) => s.exec("ALTER TABLE users ADD COLUMN is_root INTEGER NOT NULL DEFAULT 1"), `table "users" has a column "is_root"`],
      ["missing index", (s) => s.exec("DROP INDEX readings_time"), `no index "readings_time"`],
      ["extra index", (s) => s.exec("CREATE INDEX users_role ON users (role)"), `an index "users_role" on "users"`],
    ];
    const place = inPlace();
    for (const [name, tamper, expected] of cases) {
      const tampered = hubDatabase(join(scratch(), `${name.replace(/ /g, "-")}.db`), tamper);
      expect(await refusal(await backupOf(tampered), place.path)).toContain(expected);
    }
    unchanged(place);
  });

  test("a file without the hub's migration table, and a file that is not a database at all: one sentence each, nothing changed", async () => {
    const foreign = join(scratch(), "foreign.db");
    const sqlite = new Database(foreign, { create: true });
    sqlite.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, role TEXT)");
    sqlite.close();
    const place = inPlace();
    expect(await refusal(await backupOf(foreign), place.path)).toMatch(/not the hub's \(it has no schema_migrations table.*nothing was changed/);
    const text = join(scratch(), "text.db");
    await Bun.write(text, "hello, this is not a database at all, only some words that fill a page. ".repeat(100));
    expect(await refusal(await backupOf(text), place.path)).toMatch(/cannot be read as the hub's database.*nothing was changed/);
    unchanged(place);
  });

  test("a header that declares another schema than the database records is refused", async () => {
    const older = hubDatabase(join(scratch(), "older.db"), () => {}, NEWEST_SCHEMA - 1);
    const place = inPlace();
    expect(await refusal(await backupOf(older, NEWEST_SCHEMA), place.path)).toMatch(new RegExp(`not every one from 1 to ${NEWEST_SCHEMA}`));
    unchanged(place);
  });

  test("a backup of an older schema, made by the hub, is restored (its schema is the hub's own for that version)", async () => {
    const older = hubDatabase(join(scratch(), "older.db"), () => {}, NEWEST_SCHEMA - 1);
    const place = inPlace();
    const result = await restoreBackup({ source: await backupOf(older, NEWEST_SCHEMA - 1), dbPath: place.path, passphrase: null, s3: S3 });
    expect(result.schemaVersion).toBe(NEWEST_SCHEMA - 1);
    expect(result.rows.users).toBe(1);
    expect(existsSync(`${place.path}.before-restore`)).toBe(true);
  });

  test("the statistics tables an operator's ANALYZE adds are SQLite's own: such a database is restored", async () => {
    const analysed = hubDatabase(join(scratch(), "analysed.db"), (sqlite) => sqlite.exec("ANALYZE"));
    const place = inPlace();
    const result = await restoreBackup({ source: await backupOf(analysed), dbPath: place.path, passphrase: null, s3: S3 });
    expect(result.schemaVersion).toBe(NEWEST_SCHEMA);
  });
});
