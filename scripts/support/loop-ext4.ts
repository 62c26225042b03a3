/**
 * An ext4 file system on a loop device, mounted `errors=remount-ro`, whose
 * journal can be aborted on demand through ext4's `trigger_fs_error` switch:
 * the read-only fault of the storage-fault test and of
 * scripts/faults/fsync-at-abort.ts (issue 26). Needs root.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/** Runs a command, returning its trimmed output; throws with its error output when it fails. */
export function mustRun(cmd: string[]): string {
  const result = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${result.stderr.toString().trim()}`);
  return result.stdout.toString().trim();
}

export interface LoopExt4 {
  /** The image file, in the folder given. */
  readonly image: string;
  /** The loop device the image is attached to. */
  readonly device: string;
  /** Where the file system is mounted. */
  readonly mountPoint: string;
  /** Writing "1" here aborts the journal: the file system turns read-only. */
  readonly trigger: string;
  /** Unmounts (lazily, whatever still uses it) and detaches the device; never throws. */
  release(): void;
}

/** Makes a fresh ext4 image of `sizeMb` in `dir`, attaches it and mounts it at `dir`/mnt. */
export function mountLoopExt4(dir: string, sizeMb = 64): LoopExt4 {
  const image = join(dir, "fs.img");
  const mountPoint = join(dir, "mnt");
  mkdirSync(mountPoint, { recursive: true });
  mustRun(["truncate", "-s", `${sizeMb}M`, image]);
  mustRun(["mkfs.ext4", "-q", "-F", image]);
  const device = mustRun(["losetup", "-f", "--show", image]);
  const release = (): void => {
    Bun.spawnSync(["umount", "-l", mountPoint]);
    Bun.spawnSync(["losetup", "-d", device]);
  };
  try {
    mustRun(["mount", "-o", "errors=remount-ro", device, mountPoint]);
  } catch (error) {
    release();
    throw error;
  }
  return { image, device, mountPoint, trigger: `/sys/fs/ext4/${device.replace("/dev/", "")}/trigger_fs_error`, release };
}
