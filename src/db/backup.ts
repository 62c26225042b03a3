/**
 * `hub backup` (SPEC §16.2): a consistent copy made in small steps, so that
 * a hub serving the database keeps its pace, and put in place all at once.
 *
 * The copy reads the source through a read-only connection inside one read
 * transaction (one snapshot: every row committed before it began, nothing
 * after), a few thousand rows at a time, into a temporary file beside the
 * target, at the lowest CPU priority. The loop yields after each step and
 * syncs the copy every 256 KiB, so neither the CPU nor a pile of unsynced
 * data stands between the hub and its own commits (on ext4 a commit's sync
 * waits for other files' pending data). The finished file is synced, checked, and linked into place
 * under the target's name, which never replaces an existing file; a backup
 * killed before that leaves only its temporary file, which the next backup
 * in that folder removes.
 */
import { Database } from "bun:sqlite";
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { setPriority } from "node:os";
import { basename, dirname, join } from "node:path";
import { createPrivateFile, DatabaseError } from "./open.ts";

/** Rows copied per step. */
const STEP_ROWS = 2000;
/** Pause between steps: room for the serving hub's own writes and syncs. */
const STEP_PAUSE_MS = 5;
/** Unsynced bytes of the copy allowed before it is synced: enough to keep syncs rare, little enough to flush quickly. */
const SYNC_EVERY_BYTES = 256 * 1024;
/** The copying process yields the CPU to everything else, the serving hub first of all. */
const LOWEST_PRIORITY = 19;

const TEMPORARY = /^(.+)\.hub-backup-(\d+)\.tmp$/;

/** The temporary file of a backup by this process to `target`. */
export function temporaryPathFor(target: string): string {
  return join(dirname(target), `${basename(target)}.hub-backup-${process.pid}.tmp`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

/** Removes temporary files that backups killed before they finished left in `dir`. Returns their names. */
export function removeAbandoned(dir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir)) {
    const pid = Number(TEMPORARY.exec(name)?.[2] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

interface SchemaRow {
  readonly type: string;
  readonly name: string;
  readonly sql: string | null;
}

function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Copies one table in steps; rowid tables by rowid, the others by their primary key. */
async function copyTable(source: Database, copy: Database, table: string, sync: () => void): Promise<void> {
  const columns = source.query<{ name: string; pk: number }, []>(`PRAGMA table_info(${quoted(table)})`).all();
  const names = columns.map((c) => quoted(c.name));
  let hasRowid = true;
  try {
    source.query(`SELECT _rowid_ FROM ${quoted(table)} LIMIT 0`).all();
  } catch {
    hasRowid = false;
  }
  const insertColumns = hasRowid ? ["_rowid_", ...names] : names;
  const insert = copy.query<unknown, (string | number | bigint | Uint8Array | null)[]>(
    `INSERT INTO ${quoted(table)} (${insertColumns.join(", ")}) VALUES (${insertColumns.map(() => "?").join(", ")})`,
  );
  type Row = Record<string, string | number | bigint | Uint8Array | null>;
  const values = (row: Row): (string | number | bigint | Uint8Array | null)[] => [
    ...(hasRowid ? [row["__backup_rowid"] ?? null] : []),
    ...columns.map((c) => row[c.name] ?? null),
  ];
  const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => quoted(c.name));
  const page = hasRowid
    ? source.query<Row, [number]>(`SELECT _rowid_ AS "__backup_rowid", ${names.join(", ")} FROM ${quoted(table)} WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ${STEP_ROWS}`)
    : source.query<Row, [number]>(`SELECT ${names.join(", ")} FROM ${quoted(table)} ORDER BY ${keys.join(", ")} LIMIT ${STEP_ROWS} OFFSET ?`);
  let after = hasRowid ? Number.MIN_SAFE_INTEGER : 0;
  for (;;) {
    const rows = page.all(after);
    if (rows.length === 0) return;
    copy.transaction(() => {
      for (const row of rows) insert.run(...values(row));
    })();
    after = hasRowid ? Number(rows.at(-1)?.["__backup_rowid"]) : after + rows.length;
    sync();
    await Bun.sleep(STEP_PAUSE_MS);
    if (rows.length < STEP_ROWS) return;
  }
}

/** Makes the copy of `sourcePath` in `temporary` (which must not exist): same schema, same rows, same settings. */
async function copyInSteps(sourcePath: string, temporary: string): Promise<void> {
  const source = new Database(sourcePath, { readonly: true, strict: true });
  try {
    source.exec("PRAGMA busy_timeout = 5000");
    // One read transaction from the first SELECT to the end: every step reads the same snapshot.
    source.exec("BEGIN");
    const schema = source.query<SchemaRow, []>("SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid").all();
    const setting = (name: string): number => source.query<Record<string, number>, []>(`PRAGMA ${name}`).get()?.[name] ?? 0;
    createPrivateFile(temporary);
    const copy = new Database(temporary, { strict: true });
    try {
      // Nothing of it counts until it is synced and linked into place, so it needs no journal of its own.
      copy.exec("PRAGMA journal_mode = OFF");
      copy.exec("PRAGMA synchronous = OFF");
      copy.exec(`PRAGMA page_size = ${setting("page_size")}`);
      copy.exec(`PRAGMA auto_vacuum = ${setting("auto_vacuum")}`);
      copy.exec(`PRAGMA user_version = ${setting("user_version")}`);
      copy.exec(`PRAGMA application_id = ${setting("application_id")}`);
      const tables = schema.filter((row) => row.type === "table" && !row.name.startsWith("sqlite_"));
      // Indexes first, so that they grow step by step with the rows instead of being built in one long burst at the end.
      for (const row of [...tables, ...schema.filter((r) => r.type !== "table")]) copy.exec(row.sql ?? "");
      let synced = 0;
      const sync = (): void => {
        const size = statSync(temporary).size;
        if (size - synced < SYNC_EVERY_BYTES) return;
        syncPath(temporary);
        synced = size;
      };
      for (const table of tables) await copyTable(source, copy, table.name, sync);
      if (schema.some((row) => row.name === "sqlite_sequence")) {
        const sequences = source.query<{ name: string; seq: number }, []>("SELECT name, seq FROM sqlite_sequence").all();
        copy.transaction(() => {
          copy.exec("DELETE FROM sqlite_sequence");
          const put = copy.query("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)");
          for (const s of sequences) put.run(s.name, s.seq);
        })();
      }
      source.exec("COMMIT");
      const check = copy.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
      if (check.length !== 1 || check[0]?.quick_check !== "ok") throw new DatabaseError(`the copy failed its check: ${check.map((c) => c.quick_check).join("; ")}`);
    } finally {
      copy.close();
    }
    syncPath(temporary);
  } finally {
    source.close();
  }
}

/**
 * Puts the finished copy under the target's name, unless a file took that
 * name meanwhile (a hard link never replaces one). Where the file system has
 * no hard links, a rename after a last look does the same but for that race.
 */
function putInPlace(temporary: string, target: string): void {
  try {
    linkSync(temporary, target);
    rmSync(temporary, { force: true });
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : "";
    if (code === "EEXIST") throw error;
    if (existsSync(target)) throw Object.assign(new Error(`${target} exists`), { code: "EEXIST" });
    renameSync(temporary, target);
  }
  syncPath(dirname(target));
}

/** Writes a consistent copy of `sourcePath` to `target`, which must not exist; on any failure nothing is left under `target`. */
export async function backupDatabase(sourcePath: string, target: string): Promise<void> {
  const temporary = temporaryPathFor(target);
  setPriority(LOWEST_PRIORITY);
  try {
    await copyInSteps(sourcePath, temporary);
    putInPlace(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}
