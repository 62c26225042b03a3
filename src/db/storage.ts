/**
 * Whether the hub can write to its database, and the one way its writes
 * meet trouble (SPEC §16.2). The write connection never waits on the lock
 * synchronously (busy_timeout 0): a write that finds another process holding
 * it is retried here between turns of the event loop, so health, reads and
 * streams keep answering, and gives up after WRITE_WAIT_MS. A cheap check
 * every STORAGE_CHECK_INTERVAL_MS watches the files, the free space, whether
 * the file system still takes writes and whether the lock is free, so
 * /healthz tells the truth without waiting for a write to fail.
 */
import { accessSync, closeSync, constants, fstatSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, readSync, readlinkSync, realpathSync, statfsSync, statSync, unlinkSync, writeSync } from "node:fs";
import { endianness } from "node:os";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../log.ts";
import type { HubDb } from "./open.ts";

export const STORAGE_STATES = ["ok", "full", "read-only", "locked", "file-missing", "corrupt"] as const;
export type StorageState = (typeof STORAGE_STATES)[number];
export type StorageFault = Exclude<StorageState, "ok">;

export const STORAGE_CHECK_INTERVAL_MS = 1000;
/** The longest a write waits for another process's write lock before it is refused. */
export const WRITE_WAIT_MS = 2000;
/** A write that finds the lock taken tries again after FIRST_RETRY_MS, then twice as long each time, up to RETRY_STEP_MS. */
export const RETRY_STEP_MS = 20;
const FIRST_RETRY_MS = 1;
/**
 * A lock held at least this long is reported (health "locked"); a shorter hold is waited out in silence. Another
 * process's short write (a `sqlite3` session's single statement, a CLI tool) holds the lock a few milliseconds, and a
 * monitor must not see that as a fault.
 */
export const LOCK_REPORT_MS = 50;
const LOG_INTERVAL_MS = 60_000;
/** SQLite's write-ahead log index: a 48-byte header written twice, then the checkpoint record, whose first field is nBackfill. */
const WAL_INDEX_HEADER_BYTES = 48;
const WAL_INDEX_READ_BYTES = 2 * WAL_INDEX_HEADER_BYTES + 4;

const DETAIL: Readonly<Record<StorageFault, string>> = {
  full: "The disk that holds the hub's database is full; nothing was changed. Retry later.",
  "read-only": "The file system that holds the hub's database has turned read-only; nothing was changed. Retry later.",
  locked: "Another process holds the database's write lock; nothing was changed. Retry shortly.",
  "file-missing": "The hub's database file or its write-ahead log was removed or replaced, so the hub has stopped writing until it is restarted; nothing was changed.",
  corrupt: "The hub's database reports corruption, so nothing was changed; the operator should restore it from a backup.",
};

const RETRY_AFTER_SECONDS: Readonly<Record<StorageFault, number>> = { full: 30, "read-only": 30, locked: 2, "file-missing": 60, corrupt: 60 };

/** A write refused because of the storage, not the request: a 503 with Retry-After. */
export class StorageRefusal extends Error {
  override readonly name = "StorageRefusal";
  readonly retryAfterSeconds: number;

  constructor(readonly fault: StorageFault) {
    super(DETAIL[fault]);
    this.retryAfterSeconds = RETRY_AFTER_SECONDS[fault];
  }
}

function sqliteCode(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== "SQLiteError") return null;
  const code = (error as Error & { code?: unknown }).code;
  return typeof code === "string" ? code : null;
}

function osCode(error: unknown): string {
  return error instanceof Error && "code" in error ? String(error.code) : "";
}

interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

function identityOf(path: string): FileIdentity | null {
  try {
    const stat = statSync(path);
    return { dev: stat.dev, ino: stat.ino };
  } catch {
    return null;
  }
}

/** What the checkpoint worker compares before each checkpoint. */
export interface WatchedFiles {
  readonly database: FileIdentity;
  readonly wal: FileIdentity;
}

export function filesChanged(path: string, watched: WatchedFiles): string | null {
  for (const [name, file, expected] of [["database file", path, watched.database], ["write-ahead log", `${path}-wal`, watched.wal]] as const) {
    const now = identityOf(file);
    if (now === null) return `the ${name} ${file} was removed`;
    if (now.dev !== expected.dev || now.ino !== expected.ino) return `the ${name} ${file} was replaced`;
  }
  return null;
}

/** The mount table as Linux shows it to this process; empty where there is none. */
function readMountinfo(): string {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return "";
  }
}

/**
 * Whether the file system of device `dev` (a stat's `dev`) is read-only by
 * its super-block options in /proc/self/mountinfo. Since Linux 6.15 an ext4
 * that hits an error with `errors=remount-ro` says `emergency_ro` there and
 * refuses writes, while access(2) and statvfs(2) still say writable.
 */
export function superblockReadOnly(mountinfo: string, dev: number): boolean {
  const id = BigInt(dev);
  const major = ((id >> 8n) & 0xfffn) | ((id >> 32n) & ~0xfffn);
  const minor = (id & 0xffn) | ((id >> 12n) & ~0xffn);
  const wanted = `${major}:${minor}`;
  for (const line of mountinfo.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before?.split(" ")[2] !== wanted || after === undefined) continue;
    const options = (after.split(" ")[2] ?? "").split(",");
    if (options.includes("ro") || options.includes("emergency_ro")) return true;
  }
  return false;
}

/**
 * Runs a write that may be skipped when storage refuses it (a session's
 * sliding renewal, a key's last use: both on read paths, which must never
 * fail or wait for the lock). True when it was written.
 */
export function writeIfPossible(run: () => void): boolean {
  try {
    run();
    return true;
  } catch (error) {
    if (sqliteCode(error) === null) throw error;
    return false;
  }
}

export interface StorageOptions {
  readonly minFreeBytes: number;
  readonly log: Logger;
  readonly now?: () => number;
}

export class Storage {
  /** Set by a failed write, cleared by a write (or a probe write) that succeeds. */
  private writeFault: StorageFault | null = null;
  /** Set by the periodic check. */
  private checkFault: StorageFault | null = null;
  /** Why the files no longer are the hub's; once set, the hub never writes again until restarted. */
  private missing: string | null = null;
  /** What SQLite said when it found the file damaged; once set, the hub never writes again until restarted. */
  private damaged: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** When the periodic check first found the lock taken, while it has found it taken since; null when it was free. */
  private lockSeenAt: number | null = null;
  private recheck: ReturnType<typeof setTimeout> | null = null;
  private readonly logged = new Map<StorageFault, { at: number; unlogged: number }>();
  private readonly missingListeners = new Set<() => void>();
  private readonly watched: WatchedFiles | null;
  private readonly now: () => number;
  private readonly onDisk: boolean;

  constructor(
    private readonly db: HubDb,
    private readonly options: StorageOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.onDisk = db.path !== ":memory:";
    // The hub's own waits are asynchronous (write()); a synchronous busy wait would freeze every request.
    db.sqlite.exec("PRAGMA busy_timeout = 0");
    const database = this.onDisk ? identityOf(db.path) : null;
    const wal = this.onDisk ? identityOf(`${db.path}-wal`) : null;
    this.watched = database && wal ? { database, wal } : null;
  }

  get state(): StorageState {
    if (this.missing !== null) return "file-missing";
    if (this.damaged !== null) return "corrupt";
    return this.writeFault ?? this.checkFault ?? "ok";
  }

  /** The files as the hub opened them, for the checkpoint worker; null for an in-memory database. */
  get files(): WatchedFiles | null {
    return this.watched;
  }

  /** Called once when the files are found removed or replaced. */
  onFilesMissing(listener: () => void): void {
    this.missingListeners.add(listener);
  }

  /** The fault a SQLite error means, or null when it is not about the storage. */
  classify(error: unknown): StorageFault | null {
    if (error instanceof StorageRefusal) return error.fault;
    const code = sqliteCode(error);
    if (code === null) return null;
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
    if (code.startsWith("SQLITE_FULL")) return "full";
    if (code.startsWith("SQLITE_READONLY")) return "read-only";
    if (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB")) return "corrupt";
    if (code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN")) return this.ioFault();
    return null;
  }

  /** An I/O error says little by itself: the file system says whether it turned read-only or ran out of room. */
  private ioFault(): StorageFault {
    if (this.readOnlyFileSystem()) return "read-only";
    if (this.freeBytes() < Math.max(this.options.minFreeBytes, 1)) return "full";
    return "read-only";
  }

  private readOnlyFileSystem(): boolean {
    if (!this.onDisk) return false;
    try {
      accessSync(this.db.path, constants.W_OK);
    } catch (error) {
      return osCode(error) === "EROFS";
    }
    return this.watched !== null && superblockReadOnly(readMountinfo(), this.watched.database.dev);
  }

  private freeBytes(): number {
    if (!this.onDisk) return Number.POSITIVE_INFINITY;
    try {
      const fs = statfsSync(this.db.path);
      return fs.bavail * fs.bsize;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  }

  /**
   * Runs a write now, once. A storage failure is noted (health, one log line
   * per reason a minute) and thrown as a StorageRefusal; other errors pass.
   */
  writeNow<T>(run: () => T): T {
    return this.attempt(run, false, true);
  }

  /**
   * One try of a write. When `willRetry`, a lock found taken is not logged
   * (the line is written only if the write gives up), and health says
   * "locked" only once the write has waited LOCK_REPORT_MS (`waitedLong`).
   */
  private attempt<T>(run: () => T, willRetry: boolean, waitedLong: boolean): T {
    if (this.missing !== null) throw this.refuse("file-missing");
    if (this.damaged !== null) throw this.refuse("corrupt");
    try {
      const result = run();
      this.writeFault = null;
      return result;
    } catch (error) {
      const fault = error instanceof StorageRefusal ? null : this.classify(error);
      if (fault === null) throw error;
      if (fault === "locked" && willRetry) {
        if (waitedLong) this.writeFault = fault;
        throw new StorageRefusal(fault);
      }
      throw this.refuse(fault, error);
    }
  }

  /**
   * Runs a write, retrying it between turns of the event loop while another
   * process holds the lock, for at most WRITE_WAIT_MS. `run` must change
   * nothing when it throws (one transaction), since it may run again. The
   * first retries come within milliseconds, since another process's short
   * write holds the lock about that long.
   */
  async write<T>(run: () => T): Promise<T> {
    const started = performance.now();
    const deadline = started + WRITE_WAIT_MS;
    let step = FIRST_RETRY_MS;
    for (;;) {
      const at = performance.now();
      const last = at >= deadline;
      try {
        return this.attempt(run, !last, at - started >= LOCK_REPORT_MS);
      } catch (error) {
        if (!(error instanceof StorageRefusal) || error.fault !== "locked" || last) throw error;
      }
      await Bun.sleep(step);
      step = Math.min(step * 2, RETRY_STEP_MS);
    }
  }

  /**
   * Waits (asynchronously, at most WRITE_WAIT_MS) until the write lock is
   * free; a refusal when it stays taken or writing is impossible. The files
   * are looked at first (two stats): a change written into a removed log
   * would only live on through the rescue, so it is refused instead.
   */
  async writable(): Promise<void> {
    if (this.filesGone()) throw this.refuse("file-missing");
    await this.write(() => this.lockProbe());
  }

  private lockProbe(): void {
    this.db.sqlite.exec("BEGIN IMMEDIATE");
    this.db.sqlite.exec("ROLLBACK");
  }

  /** A real commit (it rewrites a header field with its own value), so a full or read-only disk shows. */
  private probeWrite(): void {
    const version = this.db.sqlite.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version ?? 0;
    this.db.sqlite.exec(`PRAGMA user_version = ${version}`);
  }

  /** The refusal a failed write means (noted like any other), or null when the error is not about the storage. */
  refusalFor(error: unknown): StorageRefusal | null {
    if (error instanceof StorageRefusal) return error;
    const fault = this.classify(error);
    return fault === null ? null : this.refuse(fault, error);
  }

  private refuse(fault: StorageFault, error?: unknown): StorageRefusal {
    if (fault === "corrupt" && this.damaged === null) {
      this.markDamaged(error);
      return new StorageRefusal(fault);
    }
    if (fault !== "file-missing") this.writeFault = fault;
    const now = this.now();
    const last = this.logged.get(fault);
    if (last && now - last.at < LOG_INTERVAL_MS) last.unlogged++;
    else {
      const cause = error instanceof Error ? error.message : undefined;
      this.options.log.warn("a write was refused: storage unavailable", { reason: fault, cause, refusedSinceLastLine: last?.unlogged ?? 0 });
      this.logged.set(fault, { at: now, unlogged: 0 });
    }
    return new StorageRefusal(fault);
  }

  /**
   * A damaged file does not mend itself, and writing on into it can spread
   * the damage, so the hub stops writing until it is restarted on a restored
   * file (docs/guides/storage-and-backups.md, "When storage fails"). One error line says so.
   */
  private markDamaged(error: unknown): void {
    this.damaged = error instanceof Error ? error.message : "the database file is damaged";
    this.options.log.error("the database file is damaged: the hub has stopped writing and serves what it can still read; restore the database from a backup and restart the hub", {
      reason: "corrupt",
      cause: this.damaged,
    });
  }

  /** True (and writing stops for good) when the files are no longer the ones the hub opened. */
  private filesGone(): boolean {
    if (this.missing !== null) return true;
    const changed = this.watched ? filesChanged(this.db.path, this.watched) : null;
    if (changed === null) return false;
    this.missing = changed;
    for (const listener of this.missingListeners) listener();
    if (this.onlyLogRemoved() && this.logFoldedIn()) {
      // Its every commit is in the database file already: putting it back would only let a stale log replay over newer pages.
      this.options.log.error("the write-ahead log was removed after SQLite had folded all of it into the database, so nothing was lost; the hub has stopped writing, since its connection would write on into the removed log: restart it", {
        reason: changed,
      });
      return true;
    }
    const rescued = this.rescueLog();
    this.options.log.error("the database's files were removed or replaced: the hub has stopped writing and checkpointing; restart it", {
      reason: changed,
      ...(rescued ? { rescued: `the removed write-ahead log, with every reading acknowledged, was put back as ${rescued}` } : {}),
    });
    return true;
  }

  /** The database file is still the one the hub opened, and nothing has taken the removed log's place. */
  private onlyLogRemoved(): boolean {
    const watched = this.watched;
    if (!watched) return false;
    const database = identityOf(this.db.path);
    return database !== null && database.ino === watched.database.ino && database.dev === watched.database.dev && identityOf(`${this.db.path}-wal`) === null;
  }

  /**
   * Whether every frame of the log is folded into the database: what SQLite
   * does when a connection that believes itself the last one closes (it
   * checkpoints, then removes the log). Read from the log's index (-shm) the
   * hub shares with SQLite, through SQLite's own descriptor: opening the file
   * anew and closing it would drop the locks SQLite holds on it. The index
   * header says how many frames the log holds (mxFrame, offset 16) and its
   * checkpoint record how many of them are in the database (nBackfill,
   * offset 96), both in the machine's byte order; the header is written
   * twice (offsets 0 and 48), and two copies that differ mean a commit in
   * progress, which counts as not folded.
   */
  private logFoldedIn(): boolean {
    const descriptor = this.descriptorOf(`${this.db.path}-shm`);
    if (descriptor === null) return false;
    const index = new Uint8Array(WAL_INDEX_READ_BYTES);
    try {
      if (readSync(descriptor, index, 0, index.byteLength, 0) < index.byteLength) return false;
    } catch {
      return false;
    }
    const first = index.subarray(0, WAL_INDEX_HEADER_BYTES);
    const second = index.subarray(WAL_INDEX_HEADER_BYTES, 2 * WAL_INDEX_HEADER_BYTES);
    if (!first.every((byte, i) => byte === second[i]) || index[12] !== 1) return false;
    const view = new DataView(index.buffer);
    const littleEndian = endianness() === "LE";
    const frames = view.getUint32(16, littleEndian);
    const folded = view.getUint32(2 * WAL_INDEX_HEADER_BYTES, littleEndian);
    return folded >= frames;
  }

  /** A descriptor this process holds on `path` (or on the file that was there before it was removed), found without opening anything. */
  private descriptorOf(path: string): number | null {
    try {
      const wanted = join(realpathSync(dirname(path)), basename(path));
      for (const fd of readdirSync("/proc/self/fd")) {
        let target: string;
        try {
          target = readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          continue;
        }
        if (target === wanted || target === `${wanted} (deleted)`) return Number(fd);
      }
    } catch {
      return null;
    }
    return null;
  }

  /**
   * When only the -wal was removed (the database file is still the one the
   * hub opened, and nothing has taken the log's place), puts back a copy of
   * the removed log, read through the descriptor SQLite still holds (Linux's
   * /proc/self/fd): the readings acknowledged since the last checkpoint live
   * only there. Written beside it, synced, then linked into place, which
   * fails rather than overwrite a log another process made meanwhile. The
   * next start recovers from it. Returns its path, or null when there was
   * nothing to put back.
   */
  private rescueLog(): string | null {
    const watched = this.watched;
    if (!watched) return null;
    const wal = `${this.db.path}-wal`;
    const database = identityOf(this.db.path);
    if (database === null || database.ino !== watched.database.ino || database.dev !== watched.database.dev || identityOf(wal) !== null) return null;
    try {
      const removed = `${join(realpathSync(dirname(this.db.path)), basename(wal))} (deleted)`;
      for (const fd of readdirSync("/proc/self/fd")) {
        const path = `/proc/self/fd/${fd}`;
        let target: string;
        try {
          target = readlinkSync(path);
        } catch {
          continue;
        }
        if (target !== removed) continue;
        const stat = fstatSync(Number(fd));
        if (stat.ino !== watched.wal.ino || stat.dev !== watched.wal.dev) continue;
        const copy = `${wal}.rescued-${process.pid}`;
        const out = openSync(copy, "wx", 0o600);
        try {
          writeSync(out, readFileSync(path));
          fsyncSync(out);
        } finally {
          closeSync(out);
        }
        try {
          linkSync(copy, wal);
        } finally {
          unlinkSync(copy);
        }
        const directory = openSync(dirname(wal), "r");
        try {
          fsyncSync(directory);
        } finally {
          closeSync(directory);
        }
        return wal;
      }
    } catch (error) {
      this.options.log.warn("the removed write-ahead log could not be put back", { cause: error instanceof Error ? error.message : String(error) });
    }
    return null;
  }

  /**
   * Called after a commit and before it is acknowledged: a commit into a log
   * that was removed or replaced meanwhile is not on storage anyone will
   * read, so it must not be answered as stored.
   */
  confirmCommitted(): void {
    if (this.filesGone()) throw this.refuse("file-missing");
  }

  /** The periodic check: files, read-only, free space and the lock, each cheap; a probe write only after a write failed. */
  check(): StorageState {
    if (this.filesGone()) return "file-missing";
    if (this.damaged !== null) return "corrupt";
    this.checkFault = this.readOnlyFileSystem() ? "read-only" : this.freeBytes() < this.options.minFreeBytes ? "full" : this.lockFault();
    if (this.checkFault === null && this.writeFault !== null) {
      try {
        this.probeWrite();
        this.writeFault = null;
      } catch (error) {
        const fault = this.classify(error);
        if (fault === "corrupt") this.refuse(fault, error);
        else this.writeFault = fault ?? this.writeFault;
      }
    }
    return this.state;
  }

  /**
   * The lock, probed without waiting. Found taken, it counts as "locked" only
   * if it is still taken LOCK_REPORT_MS later (a second probe then, off the
   * interval), so another process's short write never shows.
   */
  private lockFault(): StorageFault | null {
    try {
      this.lockProbe();
      this.lockSeenAt = null;
      if (this.writeFault === "locked") this.writeFault = null;
      return null;
    } catch (error) {
      const fault = this.classify(error);
      if (fault === "corrupt") this.refuse(fault, error);
      if (fault !== "locked") return fault ?? "corrupt";
      const at = performance.now();
      this.lockSeenAt ??= at;
      if (at - this.lockSeenAt >= LOCK_REPORT_MS) return fault;
      if (this.recheck === null) {
        this.recheck = setTimeout(() => {
          this.recheck = null;
          this.checkQuietly();
        }, LOCK_REPORT_MS);
        this.recheck.unref?.();
      }
      return null;
    }
  }

  private checkQuietly(): void {
    try {
      this.check();
    } catch (error) {
      this.options.log.warn("the storage check failed", { cause: error instanceof Error ? error.message : String(error) });
    }
  }

  start(): void {
    this.timer ??= setInterval(() => this.checkQuietly(), STORAGE_CHECK_INTERVAL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.recheck) clearTimeout(this.recheck);
    this.recheck = null;
  }
}
