/**
 * Backups are all or nothing (SPEC §16.2): `hub backup FILE` builds its copy
 * in a temporary file beside FILE and links it into place when it is
 * complete and synced, beside a hub that keeps taking readings.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { encodeBackupFile } from "../../src/backup/format.ts";
import { hubDatabase, NEWEST_SCHEMA, plainHeader, writeCrafted, zeros } from "../restore-craft.ts";
import { compiledHub } from "./compiled.ts";
import { postReading, runCli, startHub } from "./harness.ts";

const scratch = scratchDirs();
const TEMPORARY = /^copy\.db\.hub-backup-\d+\.tmp$/;
/**
 * The readings this file's agents posted (provisioned as b0, b1, …), never the
 * simulated history: its last slot can fall inside the seconds the posts use.
 */
const POSTED = "agent_id IN (SELECT id FROM agents WHERE provision_id GLOB 'b[0-9]*')";

function integrity(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check ?? "";
  } finally {
    db.close();
  }
}

function count(path: string, sql: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ n: number }, []>(sql).get()?.n ?? -1;
  } finally {
    db.close();
  }
}

describe("hub backup, all or nothing", () => {
  test("a backup killed mid-copy leaves nothing under FILE; its temporary file is recognisable and the next backup removes it", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    const fill = await runCli(["simulate", "--db", db, "--backfill-days", "10"], { cmd: [bin] });
    expect(fill.exitCode).toBe(0);
    const hub = await startHub({ cmd: [bin], args: ["--db", db, "--retention-days", "30"] });
    try {
      const target = join(dir, "copy.db");
      const backup = Bun.spawn([bin, "backup", target, "--db", db], { stdout: "ignore", stderr: "ignore" });
      // Killed once a good part of the copy is written, wherever it is being written.
      for (let killed = false; !killed; await Bun.sleep(10)) {
        if (backup.exitCode !== null) throw new Error("the backup finished before it could be killed: use a bigger database");
        const written = readdirSync(dir).filter((name) => name === "copy.db" || TEMPORARY.test(name)).map((name) => statSync(join(dir, name)).size);
        if (written.some((size) => size > 8 * 1024 * 1024)) {
          backup.kill("SIGKILL");
          killed = true;
        }
      }
      await backup.exited;
      expect(existsSync(target)).toBe(false);
      const left = readdirSync(dir).filter((name) => TEMPORARY.test(name));
      expect(left).toHaveLength(1);

      const again = await runCli(["backup", target, "--db", db], { cmd: [bin] });
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toContain(`removed ${left[0]}, left by a backup that did not finish`);
      expect(again.stdout).toContain(`backup of ${db} written to ${target}`);
      expect(readdirSync(dir).filter((name) => TEMPORARY.test(name))).toEqual([]);
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(integrity(target)).toBe("ok");
      expect(count(target, "SELECT COUNT(*) AS n FROM readings")).toBe(count(db, "SELECT COUNT(*) AS n FROM readings"));
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });

  test("beside a hub taking readings, the copy holds every reading acknowledged before it began, passes integrity_check and is 0600", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    expect((await runCli(["simulate", "--db", db, "--backfill-days", "3"], { cmd: [bin] })).exitCode).toBe(0);
    const tokens = Array.from({ length: 400 }, (_, i) => `backup-agent-token-${String(i).padStart(5, "0")}`);
    const hub = await startHub({
      cmd: [bin],
      args: ["--db", db, "--retention-days", "30"],
      env: { PROVISION_AGENTS: tokens.map((token, i) => `b${i}:${token}:eu-west-1:steam`).join(",") },
    });
    const before: number[] = [];
    const during: number[] = [];
    const base = Date.now() - 10_000;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) {
        const status = await postReading(hub.url, tokens[i] ?? "", base + i);
        statuses.push(status);
        if (status === 201) before.push(base + i);
      }
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
      const target = join(dir, "copy.db");
      const backup = Bun.spawn([bin, "backup", target, "--db", db], { stdout: "pipe", stderr: "pipe" });
      const refused: number[] = [];
      for (let i = 200; i < 400 && backup.exitCode === null; i++) {
        const status = await postReading(hub.url, tokens[i] ?? "", base + i);
        if (status === 201) during.push(base + i);
        else refused.push(status);
      }
      expect(await backup.exited).toBe(0);
      expect(refused).toEqual([]);
      expect(during.length).toBeGreaterThan(0);
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(integrity(target)).toBe("ok");
      const copy = new Database(target, { readonly: true });
      const stored = new Set(copy.query<{ measured_at: number }, []>(`SELECT measured_at FROM readings WHERE ${POSTED}`).all().map((row) => row.measured_at));
      copy.close();
      expect(before.filter((at) => !stored.has(at))).toEqual([]);
      expect(count(target, "SELECT COUNT(*) AS n FROM agents")).toBe(count(db, "SELECT COUNT(*) AS n FROM agents"));
    } finally {
      expect(await hub.stop()).toBe(0);
    }
    expect(integrity(db)).toBe("ok");
    expect(count(db, `SELECT COUNT(*) AS n FROM readings WHERE ${POSTED}`)).toBe(before.length + during.length);
  });
});

describe("hub restore trusts nothing in the file, through the binary", () => {
  test("a zstd bomb, a trigger that makes users admins and a file without the migration table: one line each, exit 1, the database untouched; the hub's own backup restores", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    expect((await runCli(["migrate", "--db", db], { cmd: [bin] })).exitCode).toBe(0);
    const before = readFileSync(db);
    const bomb = join(dir, "bomb.db.zst");
    await writeCrafted(bomb, plainHeader({ schemaVersion: NEWEST_SCHEMA, databaseBytes: 4096 }), zeros(1024));
    const trigger = join(dir, "trigger.db.zst");
    const tampered = hubDatabase(join(dir, "tampered.db"), (sqlite) => sqlite.exec("CREATE TRIGGER promote AFTER UPDATE ON users BEGIN UPDATE users SET role = 'admin'; END"));
    await encodeBackupFile(tampered, trigger, { schemaVersion: NEWEST_SCHEMA, createdAt: Date.now() }, null, 1000);
    const foreign = join(dir, "foreign.db");
    const plain = new Database(foreign, { create: true });
    plain.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, role TEXT)");
    plain.close();
    const unmigrated = join(dir, "foreign.db.zst");
    await encodeBackupFile(foreign, unmigrated, { schemaVersion: 1, createdAt: Date.now() }, null, 1000);
    const expected: [string, RegExp][] = [
      [bomb, /more than the 4096 bytes its header declares.*nothing was changed/],
      [trigger, /a trigger "promote" on "users" that the hub's migrations do not make.*nothing was changed/],
      [unmigrated, /no schema_migrations table.*nothing was changed/],
    ];
    for (const [file, message] of expected) {
      const result = await runCli(["restore", file, "--db", db], { cmd: [bin] });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(readFileSync(db).equals(before)).toBe(true);
      expect(readdirSync(dir).filter((name) => name.includes(".restore-") || name.endsWith(".before-restore"))).toEqual([]);
    }
    const target = join(dir, "backups");
    const made = await runCli(["backup", "--to", target, "--db", db], { cmd: [bin] });
    expect(made.exitCode).toBe(0);
    const [name] = readdirSync(target);
    const restored = await runCli(["restore", join(target, name ?? ""), "--db", join(dir, "again.db")], { cmd: [bin] });
    expect(restored.stderr).toBe("");
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout).toContain(`schema ${NEWEST_SCHEMA}`);
  }, 60_000);
});

describe("a one-off backup is as private as the scheduled ones (through the binary)", () => {
  test("hub backup --to encrypts with BACKUP_ENCRYPTION_KEY_FILE; without the passphrase, a target holding encrypted backups refuses an unencrypted one unless --unencrypted", async () => {
    const bin = await compiledHub();
    const dir = scratch();
    const db = join(dir, "hub.db");
    expect((await runCli(["migrate", "--db", db], { cmd: [bin] })).exitCode).toBe(0);
    const passphraseFile = join(dir, "passphrase");
    await Bun.write(passphraseFile, "the passphrase of the scheduled backups\n");
    const target = join(dir, "backups");
    const encrypted = await runCli(["backup", "--to", target, "--db", db], { cmd: [bin], env: { BACKUP_ENCRYPTION_KEY_FILE: passphraseFile } });
    expect(encrypted.stderr).toBe("");
    expect(encrypted.exitCode).toBe(0);
    expect(encrypted.stdout).toContain(", encrypted,");
    expect(readdirSync(target).filter((name) => name.endsWith(".db.zst.enc"))).toHaveLength(1);

    // A shell without the service's environment: refused, one line saying why and what to do; nothing written.
    const refused = await runCli(["backup", "--to", target, "--db", db], { cmd: [bin] });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe("");
    expect(refused.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("holds encrypted backups");
    expect(refused.stderr).toContain("BACKUP_ENCRYPTION_KEY");
    expect(refused.stderr).toContain("--unencrypted");
    expect(readdirSync(target)).toHaveLength(1);

    await Bun.sleep(5);
    const asked = await runCli(["backup", "--to", target, "--unencrypted", "--db", db], { cmd: [bin] });
    expect(asked.stderr).toBe("");
    expect(asked.exitCode).toBe(0);
    expect(asked.stdout).toContain("not encrypted");
    expect(readdirSync(target).filter((name) => name.endsWith(".db.zst"))).toHaveLength(1);
    expect(readdirSync(target)).toHaveLength(2);

    // Into a target with no encrypted backup, an unencrypted one needs no flag.
    const plainTarget = join(dir, "plain");
    const plain = await runCli(["backup", "--to", plainTarget, "--db", db], { cmd: [bin] });
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout).toContain("not encrypted");
    // --unencrypted is for a backup to a target; a copy to FILE is never encrypted.
    const misplaced = await runCli(["backup", join(dir, "copy.db"), "--unencrypted", "--db", db], { cmd: [bin] });
    expect(misplaced.exitCode).toBe(1);
    expect(misplaced.stderr).toContain("--unencrypted goes with --to TARGET");
  }, 60_000);
});
