import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { BackgroundCheckpoints, CHECKPOINT_BUSY_MS, CHECKPOINT_INTERVAL_MS, nextCheckpointDelay, START_FRAMES, START_GROWTH_FRAMES, WRITER_FRAMES } from "../../src/db/checkpoint.ts";
import { migrate, openDatabase } from "../../src/db/open.ts";
import { memoryLog, tempDir } from "../helpers.ts";

const autocheckpoint = (db: ReturnType<typeof openDatabase>) => db.sqlite.query<{ wal_autocheckpoint: number }, []>("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint;

/** The hub's spacing and bounds, with the worker started at once rather than when the log has grown. */
const AT_ONCE = { intervalMs: CHECKPOINT_INTERVAL_MS, busyMs: CHECKPOINT_BUSY_MS, writerFrames: WRITER_FRAMES, startFrames: 0, startGrowthFrames: START_GROWTH_FRAMES };

function walFrames(db: ReturnType<typeof openDatabase>): number {
  const pageSize = db.sqlite.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
  return Math.max(0, (statSync(`${db.path}-wal`).size - 32) / (pageSize + 24));
}

/** A migrated database in a scratch folder, closed and removed after `use`. */
async function withDatabase(use: (db: ReturnType<typeof openDatabase>) => Promise<void>): Promise<void> {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, "hub.db"));
    migrate(db);
    try {
      await use(db);
    } finally {
      db.sqlite.close();
    }
  } finally {
    dir.cleanup();
  }
}

/** One reading a commit, at the measured time given. */
function readingInsert(db: ReturnType<typeof openDatabase>) {
  return db.sqlite.query<unknown, [number]>("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-west-1', 0, 50, 1, ?, 0)");
}

async function until(condition: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await Bun.sleep(20);
}

describe("background checkpoints", () => {
  test("the worker starts with the first writes after start, not at start: a hub that writes nothing runs no thread for it", async () => {
    await withDatabase(async (db) => {
      // A new database's migrations leave the log below the count that would start the worker at once.
      expect(walFrames(db)).toBeLessThan(START_FRAMES / 2);
      const { log, lines } = memoryLog("warn");
      const startGrowthFrames = 20;
      const checkpoints = new BackgroundCheckpoints(db, log, undefined, null, { intervalMs: 20, busyMs: 20, writerFrames: WRITER_FRAMES, startFrames: START_FRAMES, startGrowthFrames });
      const before = walFrames(db);
      checkpoints.start();
      await Bun.sleep(300);
      expect(autocheckpoint(db)).toBe(1000);
      const insert = readingInsert(db);
      for (let i = 0; walFrames(db) < before + startGrowthFrames / 2; i++) insert.run(i);
      await Bun.sleep(300);
      expect(autocheckpoint(db)).toBe(1000);
      for (let i = 0; walFrames(db) < before + startGrowthFrames; i++) insert.run(10_000 + i);
      await until(() => autocheckpoint(db) === WRITER_FRAMES);
      expect(autocheckpoint(db)).toBe(WRITER_FRAMES);
      await checkpoints.stop();
      expect(autocheckpoint(db)).toBe(1000);
      expect(lines).toEqual([]);
    });
  });

  test("a log left holding startFrames frames starts the worker at once", async () => {
    await withDatabase(async (db) => {
      const { log, lines } = memoryLog("warn");
      const checkpoints = new BackgroundCheckpoints(db, log, undefined, null, { intervalMs: 5000, busyMs: 20, writerFrames: WRITER_FRAMES, startFrames: walFrames(db), startGrowthFrames: 1_000_000 });
      checkpoints.start();
      await until(() => autocheckpoint(db) === WRITER_FRAMES);
      expect(autocheckpoint(db)).toBe(WRITER_FRAMES);
      await checkpoints.stop();
      expect(lines).toEqual([]);
    });
  });

  test("stopped or halted before the log grew, it never starts the worker", async () => {
    await withDatabase(async (db) => {
      const { log } = memoryLog("warn");
      const tuning = { intervalMs: 20, busyMs: 20, writerFrames: WRITER_FRAMES, startFrames: START_FRAMES, startGrowthFrames: 10 };
      const before = walFrames(db);
      const stopped = new BackgroundCheckpoints(db, log, undefined, null, tuning);
      stopped.start();
      await stopped.stop();
      const halted = new BackgroundCheckpoints(db, log, undefined, null, tuning);
      halted.start();
      halted.halt();
      halted.start();
      const insert = readingInsert(db);
      for (let i = 0; walFrames(db) < before + 20; i++) insert.run(i);
      await Bun.sleep(300);
      expect(autocheckpoint(db)).toBe(0);
    });
  });

  test("a worker takes checkpoints over, keeps the WAL from growing, and hands them back when stopped", async () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "hub.db"));
      migrate(db);
      const { log, lines } = memoryLog("warn");
      const checkpoints = new BackgroundCheckpoints(db, log, undefined, null, AT_ONCE);
      checkpoints.start();
      await until(() => autocheckpoint(db) === WRITER_FRAMES);
      expect(autocheckpoint(db)).toBe(WRITER_FRAMES);
      const insert = db.sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-west-1', 0, 50, 1, ?, ?)");
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < 600; i++) insert.run(round * 1000 + i, 0);
        await Bun.sleep(600);
      }
      const wal = statSync(join(dir.path, "hub.db-wal")).size;
      // Without checkpoints, 3,600 commits of several pages each would leave a WAL of tens of megabytes.
      expect(wal).toBeLessThan(16 * 1024 * 1024);
      await checkpoints.stop();
      expect(autocheckpoint(db)).toBe(1000);
      expect(lines).toEqual([]);
      db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  }, 30_000);

  test("under a steady stream of commits the log starts over once it passes writerFrames, instead of growing without end", async () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "hub.db"));
      migrate(db);
      const { log, lines } = memoryLog("warn");
      const writerFrames = 200;
      const checkpoints = new BackgroundCheckpoints(db, log, undefined, null, { intervalMs: 20, busyMs: 20, writerFrames, startFrames: 0, startGrowthFrames: START_GROWTH_FRAMES });
      checkpoints.start();
      await until(() => autocheckpoint(db) === writerFrames);
      const insert = db.sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-west-1', 0, 50, 1, ?, ?)");
      const pageSize = db.sqlite.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
      let commits = 0;
      const walFrames = () => Math.max(0, (statSync(join(dir.path, "hub.db-wal")).size - 32) / (pageSize + 24));
      // Commits one after another, the lock held about half the time, as ingest does at its budget: a checkpoint
      // seldom finds the log folded back entirely, which is what SQLite waits for to start it over by itself.
      // Counted, not timed: a loaded machine stretches each 1 ms sleep, and the check needs the commits, not the seconds.
      const started = performance.now();
      for (let i = 0; commits < writerFrames * 6 && performance.now() - started < 25_000; i++) {
        insert.run(i, 0);
        commits++;
        await Bun.sleep(1);
      }
      await checkpoints.stop();
      // Each commit writes at least one frame. The log file keeps the size it reached: about the bound plus what
      // the commits add until the writer's own commit folds the rest back (the worker's PASSIVE alone left it over 800 frames here).
      expect(commits).toBeGreaterThan(writerFrames * 5);
      expect(walFrames()).toBeLessThan(writerFrames * 2.5);
      expect(lines).toEqual([]);
      db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  }, 30_000);

  test("the worker checkpoints at the busy spacing while the log changes, at the idle one once a round finds it as before", () => {
    const tuning = { intervalMs: CHECKPOINT_INTERVAL_MS, busyMs: CHECKPOINT_BUSY_MS };
    expect(CHECKPOINT_BUSY_MS).toBeLessThan(CHECKPOINT_INTERVAL_MS);
    // A round that could not run waits the idle spacing.
    expect(nextCheckpointDelay(null, null, tuning)).toBe(CHECKPOINT_INTERVAL_MS);
    expect(nextCheckpointDelay({ log: 10, checkpointed: 10 }, null, tuning)).toBe(CHECKPOINT_INTERVAL_MS);
    // The first round has nothing to compare with.
    expect(nextCheckpointDelay(null, { log: 0, checkpointed: 0 }, tuning)).toBe(CHECKPOINT_BUSY_MS);
    // Commits added frames, or the log started over, since the round before.
    expect(nextCheckpointDelay({ log: 100, checkpointed: 100 }, { log: 140, checkpointed: 140 }, tuning)).toBe(CHECKPOINT_BUSY_MS);
    expect(nextCheckpointDelay({ log: 100, checkpointed: 100 }, { log: 12, checkpointed: 12 }, tuning)).toBe(CHECKPOINT_BUSY_MS);
    // Frames a reader kept from being folded back.
    expect(nextCheckpointDelay({ log: 100, checkpointed: 60 }, { log: 100, checkpointed: 60 }, tuning)).toBe(CHECKPOINT_BUSY_MS);
    // Nothing new and everything folded back.
    expect(nextCheckpointDelay({ log: 100, checkpointed: 100 }, { log: 100, checkpointed: 100 }, tuning)).toBe(CHECKPOINT_INTERVAL_MS);
  });

  test("while commits keep coming the worker folds them back every few tens of milliseconds, not at the idle spacing", async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "hub.db");
      const db = openDatabase(path);
      migrate(db);
      const { log, lines } = memoryLog("warn");
      // The writer's own checkpoint is kept out of the way, so only the worker moves pages into the database file.
      const checkpoints = new BackgroundCheckpoints(db, log, undefined, null, { intervalMs: 1500, busyMs: 20, writerFrames: 1_000_000, startFrames: 0, startGrowthFrames: START_GROWTH_FRAMES });
      checkpoints.start();
      await until(() => autocheckpoint(db) === 1_000_000);
      // Two quiet rounds: the worker is at its idle spacing when the commits begin.
      await Bun.sleep(200);
      const insert = db.sqlite.query("INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES ('Windows', 'eu-west-1', 0, 50, 1, ?, ?)");
      const sizes = new Set<number>();
      const started = performance.now();
      for (let i = 0; performance.now() - started < 3500; i++) {
        for (let j = 0; j < 20; j++) insert.run(i * 100 + j, 0);
        sizes.add(statSync(path).size);
        await Bun.sleep(5);
      }
      await checkpoints.stop();
      // The database file grows only when a checkpoint copies pages into it. At the idle spacing alone it would grow
      // at most three times in 3.5 s; the busy spacing makes it grow in many small steps once the first round sees the log change.
      expect(sizes.size).toBeGreaterThan(15);
      expect(lines).toEqual([]);
      db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  }, 30_000);

  test("without its worker, SQLite keeps checkpointing on commit and the hub says so", async () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "hub.db"));
      migrate(db);
      const { log, lines } = memoryLog("warn");
      const checkpoints = new BackgroundCheckpoints(db, log, new URL("file:///nonexistent/checkpointer.ts"), null, AT_ONCE);
      checkpoints.start();
      await until(() => lines.length > 0);
      expect(String(lines[0]?.msg)).toContain("background checkpoints are unavailable");
      expect(autocheckpoint(db)).toBe(1000);
      await checkpoints.stop();
      db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  });
});
