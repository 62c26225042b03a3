import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { backupName, BackupFormatError, decodeBackupFile, encodeBackupFile, hashFile, parseBackupName, readBackupFileHeader, sha256Hex } from "../../src/backup/format.ts";
import { nextBackupAt, parseBackupSchedule } from "../../src/config/backup-schedule.ts";
import { parseTargetSpec } from "../../src/config/backup-target.ts";
import { scratchDirs } from "../helpers.ts";

/** Three segments and a bit once compressed: random bytes do not shrink. */
const DB = new Uint8Array(3 * 1024 * 1024 + 5000);
crypto.getRandomValues(DB.subarray(0, 65536));
for (let i = 65536; i < DB.byteLength; i += 65536) crypto.getRandomValues(DB.subarray(i, Math.min(i + 65536, DB.byteLength)));
DB.set(new TextEncoder().encode("SQLite format 3\u0000"), 0);
const META = { schemaVersion: 10, createdAt: Date.UTC(2026, 10, 29, 4, 5, 6, 789) };
const FAST = 1000;
const PASSPHRASE = "a passphrase of some length";
const scratch = scratchDirs();

function database(): string {
  const path = join(scratch(), "hub.db");
  writeFileSync(path, DB);
  return path;
}

async function encoded(passphrase: string | null): Promise<string> {
  const out = join(scratch(), "backup");
  const made = await encodeBackupFile(database(), out, META, passphrase, FAST);
  expect(made).toEqual(await hashFile(out));
  return out;
}

async function decoded(file: string, passphrase: string | null): Promise<Uint8Array> {
  const out = join(scratch(), "restored.db");
  await decodeBackupFile(file, out, passphrase);
  return new Uint8Array(readFileSync(out));
}

function damaged(file: string, at: (size: number) => number): string {
  const bytes = new Uint8Array(readFileSync(file));
  const i = at(bytes.byteLength);
  bytes[i] = (bytes[i] ?? 0) ^ 0x55;
  const out = join(scratch(), "damaged");
  writeFileSync(out, bytes);
  return out;
}

describe("the backup file", () => {
  test("plain: header then zstd, read back byte for byte with its SHA-256", async () => {
    const file = await encoded(null);
    expect(readBackupFileHeader(file)).toEqual({ encrypted: false, schemaVersion: 10, createdAt: META.createdAt, sha256: sha256Hex(DB), databaseBytes: DB.byteLength });
    expect(await decoded(file, null)).toEqual(DB);
  });

  test("encrypted in segments: not readable without the passphrase; the right one opens it", async () => {
    const file = await encoded(PASSPHRASE);
    expect(readBackupFileHeader(file).encrypted).toBe(true);
    expect(readFileSync(file).includes(Buffer.from("SQLite format 3"))).toBe(false);
    expect(await decoded(file, PASSPHRASE)).toEqual(DB);
  });

  test("a missing key, a wrong key and a damaged file each get their own message", async () => {
    const file = await encoded(PASSPHRASE);
    await expect(decoded(file, null)).rejects.toThrow(/encrypted: set BACKUP_ENCRYPTION_KEY/);
    await expect(decoded(file, "another passphrase entirely")).rejects.toThrow(/not the passphrase this backup was made with/);
    await expect(decoded(damaged(file, (size) => size - 40), PASSPHRASE)).rejects.toThrow(/damaged/);
    await expect(decoded(damaged(file, () => 12), PASSPHRASE)).rejects.toThrow(/damaged/);
  });

  test("an encrypted backup cut off after a whole segment is caught: the last segment is marked", async () => {
    const file = await encoded(PASSPHRASE);
    const bytes = readFileSync(file);
    const first = 110 + 4 + bytes.readUInt32BE(110);
    const cut = join(scratch(), "cut");
    writeFileSync(cut, bytes.subarray(0, first));
    await expect(decoded(cut, PASSPHRASE)).rejects.toThrow(/damaged/);
  });

  test("a damaged plain backup is caught by its SHA-256 or its compression, never restored", async () => {
    const file = await encoded(null);
    for (const at of [(_: number) => 30, (size: number) => size - 5, (size: number) => Math.floor(size / 2)]) {
      await expect(decoded(damaged(file, at), null)).rejects.toThrow(BackupFormatError);
    }
    const other = join(scratch(), "other");
    writeFileSync(other, "SQLite format 3\u0000 not a backup at all........................................");
    expect(() => readBackupFileHeader(other)).toThrow(/not a hub backup/);
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
    expect(new Date(nextBackupAt(schedule, Date.UTC(2026, 0, 10, 1, 0), null, "Europe/Berlin") ?? 0).toISOString()).toBe("2026-01-10T02:30:00.000Z");
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

describe("the backup settings together", () => {
  test("a schedule without a target stops start-up with one line naming both; secrets are never echoed", async () => {
    const { ConfigError, configFrom } = await import("../../src/config/load.ts");
    expect(() => configFrom([], { BACKUP_SCHEDULE: "daily 03:00" })).toThrow(ConfigError);
    expect(() => configFrom([], { BACKUP_SCHEDULE: "daily 03:00" })).toThrow(/BACKUP_SCHEDULE is set but BACKUP_TARGET is not/);
    expect(() => configFrom([], { BACKUP_SCHEDULE: "hourly" })).toThrow(/BACKUP_SCHEDULE/);
    const secret = "short";
    let message = "";
    try {
      configFrom([], { BACKUP_ENCRYPTION_KEY: secret });
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toMatch(/BACKUP_ENCRYPTION_KEY/);
    expect(message).not.toContain(secret);
    const { config } = configFrom([], { BACKUP_SCHEDULE: "every 6h", BACKUP_TARGET: "s3://hub-backups/vps1", BACKUP_KEEP: "3" });
    expect(config.backupSchedule).toEqual({ kind: "every", hours: 6 });
    expect(config.backupTarget).toEqual({ kind: "s3", bucket: "hub-backups", prefix: "vps1" });
    expect(config.backupKeep).toBe(3);
  });
});
