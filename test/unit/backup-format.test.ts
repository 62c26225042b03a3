import { describe, expect, test } from "bun:test";
import { backupName, BackupFormatError, decodeBackup, encodeBackup, parseBackupName, readBackupHeader, sha256Hex } from "../../src/backup/format.ts";
import { nextBackupAt, parseBackupSchedule } from "../../src/backup/schedule.ts";
import { parseTargetSpec } from "../../src/backup/spec.ts";

const DB = new TextEncoder().encode("SQLite format 3\u0000".padEnd(8192, "x"));
const META = { schemaVersion: 10, createdAt: Date.UTC(2026, 10, 29, 4, 5, 6, 789) };
const FAST = 1000;

describe("the backup file", () => {
  test("plain: header then zstd, read back byte for byte with its SHA-256", async () => {
    const file = await encodeBackup(DB, META, null, FAST);
    expect(file.byteLength).toBeLessThan(DB.byteLength);
    const header = readBackupHeader(file);
    expect(header).toEqual({ encrypted: false, schemaVersion: 10, createdAt: META.createdAt, sha256: sha256Hex(DB), databaseBytes: DB.byteLength });
    expect((await decodeBackup(file, null)).database).toEqual(DB);
  });

  test("encrypted: the database is not readable without the passphrase; the right one opens it", async () => {
    const file = await encodeBackup(DB, META, "a passphrase of some length", FAST);
    expect(readBackupHeader(file).encrypted).toBe(true);
    expect(Buffer.from(file).includes(Buffer.from("SQLite format 3"))).toBe(false);
    expect((await decodeBackup(file, "a passphrase of some length")).database).toEqual(DB);
  });

  test("a missing key, a wrong key and a damaged file each get their own message", async () => {
    const file = await encodeBackup(DB, META, "a passphrase of some length", FAST);
    await expect(decodeBackup(file, null)).rejects.toThrow(/encrypted: set BACKUP_ENCRYPTION_KEY/);
    await expect(decodeBackup(file, "another passphrase entirely")).rejects.toThrow(/not the passphrase this backup was made with/);
    const damaged = file.slice();
    damaged[damaged.byteLength - 40] = (damaged[damaged.byteLength - 40] ?? 0) ^ 0xff;
    await expect(decodeBackup(damaged, "a passphrase of some length")).rejects.toThrow(/damaged/);
    const header = file.slice();
    header[12] = (header[12] ?? 0) ^ 1;
    await expect(decodeBackup(header, "a passphrase of some length")).rejects.toThrow(/damaged/);
  });

  test("a damaged plain backup is caught by its SHA-256 or its compression, never restored", async () => {
    const file = await encodeBackup(DB, META, null, FAST);
    for (const at of [30, file.byteLength - 5, Math.floor(file.byteLength / 2)]) {
      const damaged = file.slice();
      damaged[at] = (damaged[at] ?? 0) ^ 0x55;
      await expect(decodeBackup(damaged, null)).rejects.toThrow(BackupFormatError);
    }
    expect(() => readBackupHeader(new TextEncoder().encode("SQLite format 3\u0000 not a backup at all........................................"))).toThrow(/not a hub backup/);
  });

  test("names carry the UTC time and schema version, sort by time, and parse back", () => {
    const name = backupName(META.createdAt, 10, true);
    expect(name).toBe("hub-20261129T040506789Z-10.db.zst.enc");
    expect(parseBackupName(name)).toEqual({ createdAt: META.createdAt, schemaVersion: 10, encrypted: true });
    expect(parseBackupName(backupName(META.createdAt, 7, false))).toEqual({ createdAt: META.createdAt, schemaVersion: 7, encrypted: false });
    expect(backupName(META.createdAt, 10, false) < backupName(META.createdAt + 1, 10, false)).toBe(true);
    for (const other of ["hub.db", "hub-20261129T040506789Z-10.db", "../hub-20261129T040506789Z-10.db.zst", "hub-2026-10.db.zst"]) expect(parseBackupName(other)).toBeNull();
  });
});

describe("settings", () => {
  test("schedules: off, daily HH:MM, every Nh; anything else refused", () => {
    expect(parseBackupSchedule("")).toEqual({ kind: "off" });
    expect(parseBackupSchedule("off")).toEqual({ kind: "off" });
    expect(parseBackupSchedule("daily 03:30")).toEqual({ kind: "daily", hour: 3, minute: 30 });
    expect(parseBackupSchedule("every 6h")).toEqual({ kind: "every", hours: 6 });
    for (const bad of ["daily 24:00", "daily 3", "every 0h", "every 6", "hourly", "every 200h"]) expect(parseBackupSchedule(bad)).toBeNull();
  });

  test("daily runs at HH:MM on the zone's clock, the next day once it has passed", () => {
    const schedule = { kind: "daily", hour: 3, minute: 30 } as const;
    const berlinWinter = Date.UTC(2026, 0, 10, 1, 0);
    expect(new Date(nextBackupAt(schedule, berlinWinter, null, "Europe/Berlin") ?? 0).toISOString()).toBe("2026-01-10T02:30:00.000Z");
    expect(new Date(nextBackupAt(schedule, Date.UTC(2026, 0, 10, 3, 0), null, "Europe/Berlin") ?? 0).toISOString()).toBe("2026-01-11T02:30:00.000Z");
    expect(new Date(nextBackupAt(schedule, Date.UTC(2026, 6, 10, 0, 0), null, "Europe/Berlin") ?? 0).toISOString()).toBe("2026-07-10T01:30:00.000Z");
    expect(new Date(nextBackupAt(schedule, Date.UTC(2026, 6, 10, 0, 0), null, "UTC") ?? 0).toISOString()).toBe("2026-07-10T03:30:00.000Z");
  });

  test("every Nh counts from the last backup, and never runs at once on start", () => {
    const now = 1_800_000_000_000;
    expect(nextBackupAt({ kind: "every", hours: 6 }, now, null)).toBe(now + 6 * 3_600_000);
    expect(nextBackupAt({ kind: "every", hours: 6 }, now, now - 3_600_000)).toBe(now + 5 * 3_600_000);
    expect(nextBackupAt({ kind: "every", hours: 6 }, now, now - 30 * 3_600_000)).toBe(now + 1000);
    expect(nextBackupAt({ kind: "off" }, now, null)).toBeNull();
  });

  test("targets: a folder, or s3://bucket/prefix", () => {
    expect(parseTargetSpec("/var/backups/hub")).toEqual({ kind: "folder", path: "/var/backups/hub" });
    expect(parseTargetSpec("s3://hub-backups/vps1/")).toEqual({ kind: "s3", bucket: "hub-backups", prefix: "vps1" });
    expect(parseTargetSpec("s3://hub-backups")).toEqual({ kind: "s3", bucket: "hub-backups", prefix: "" });
    for (const bad of ["s3://", "s3://UPPER/x", "s3://b/../x", "https://example.org/x", ""]) expect(parseTargetSpec(bad)).toBeNull();
  });
});
