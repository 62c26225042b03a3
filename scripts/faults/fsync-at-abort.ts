/**
 * Does an fsync that returns 0 at the instant ext4 aborts its journal keep
 * its data? A reproduction without SQLite or the hub (issue 26): a writer
 * appends 4,120-byte records (one WAL frame) to a file on an ext4 image on
 * a loop device mounted errors=remount-ro, fsyncs after each and reports
 * the size each successful fsync covered; the journal is aborted through
 * ext4's trigger_fs_error switch; then the file system is checked and
 * mounted again, once through e2fsck's journal replay and once (on a copy
 * taken before e2fsck) through the kernel's, and the file's size is
 * compared with the last acknowledged one.
 *
 *   npx bun scripts/faults/fsync-at-abort.ts [rounds]      (as root)
 *
 * docs/decisions/0010-durability.md has what it found and what it means.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { mountLoopExt4, mustRun } from "../support/loop-ext4.ts";

const RECORD_BYTES = 4120;

/** The writer: appends and fsyncs until the file system refuses, printing each size an fsync acknowledged. */
function write(path: string): void {
  const fd = openSync(path, "w", 0o600);
  fsyncSync(fd);
  const directory = openSync(dirname(path), "r");
  fsyncSync(directory);
  closeSync(directory);
  const record = Buffer.alloc(RECORD_BYTES, 0x78);
  let size = 0;
  try {
    for (;;) {
      writeSync(fd, record, 0, RECORD_BYTES, size);
      fsyncSync(fd);
      size += RECORD_BYTES;
      process.stdout.write(`${size}\n`);
    }
  } catch (error) {
    process.stdout.write(`refused ${error instanceof Error && "code" in error ? String(error.code) : String(error)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** The size of `file` on `image` once mounted (which replays its journal if it needs it). */
function sizeAfterMount(image: string, mountPoint: string, file: string): number {
  const device = mustRun(["losetup", "-f", "--show", image]);
  try {
    mustRun(["mount", "-o", "errors=remount-ro", device, mountPoint]);
    try {
      return statSync(join(mountPoint, file)).size;
    } finally {
      mustRun(["umount", mountPoint]);
    }
  } finally {
    mustRun(["losetup", "-d", device]);
  }
}

interface Round {
  readonly acknowledged: number;
  readonly afterE2fsck: number;
  readonly afterKernelReplay: number;
  readonly triggeredAfterMs: number;
}

async function round(): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), "fsync-at-abort-"));
  try {
    const { image, device, mountPoint, trigger, release } = mountLoopExt4(dir);
    const copy = join(dir, "before-e2fsck.img");
    try {
      const writer = Bun.spawn([process.execPath, import.meta.path, "--write", join(mountPoint, "log")], { stdout: "pipe", stderr: "inherit" });
      let acknowledged = 0;
      let started: () => void = () => {};
      const firstAck = new Promise<void>((resolve) => {
        started = resolve;
      });
      const reading = (async () => {
        let pending = "";
        for await (const chunk of writer.stdout) {
          pending += new TextDecoder().decode(chunk);
          const lines = pending.split("\n");
          pending = lines.pop() ?? "";
          for (const line of lines) {
            if (/^\d+$/.test(line)) acknowledged = Number(line);
            started();
          }
        }
        started();
      })();
      await firstAck;
      const triggeredAfterMs = 50 + Math.random() * 450;
      await Bun.sleep(triggeredAfterMs);
      writeFileSync(trigger, "1");
      await writer.exited;
      await reading;
      mustRun(["umount", mountPoint]);
      mustRun(["cp", "--sparse=always", image, copy]);
      Bun.spawnSync(["e2fsck", "-fy", device], { stdout: "ignore", stderr: "ignore" });
      mustRun(["losetup", "-d", device]);
      const afterE2fsck = sizeAfterMount(image, mountPoint, "log");
      const afterKernelReplay = sizeAfterMount(copy, mountPoint, "log");
      return { acknowledged, afterE2fsck, afterKernelReplay, triggeredAfterMs };
    } finally {
      release();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === "--write") {
    const path = process.argv[3];
    if (path === undefined) throw new Error("--write needs a file");
    write(path);
    return;
  }
  if (process.getuid?.() !== 0) throw new Error("run as root: it makes loop devices and mounts file systems");
  const rounds = Number(process.argv[2] ?? 20);
  let lost = 0;
  for (let i = 1; i <= rounds; i++) {
    const r = await round();
    const missing = Math.max(r.acknowledged - Math.min(r.afterE2fsck, r.afterKernelReplay), 0);
    if (missing > 0) lost++;
    console.log(
      `round ${i}: aborted after ${r.triggeredAfterMs.toFixed(0)} ms; fsync acknowledged ${r.acknowledged} B; after e2fsck ${r.afterE2fsck} B, after the kernel's replay ${r.afterKernelReplay} B` +
        (missing > 0 ? `: ${missing / RECORD_BYTES} acknowledged record(s) LOST` : ""),
    );
  }
  console.log(`${lost} of ${rounds} rounds lost bytes an fsync had acknowledged`);
}

await main();
