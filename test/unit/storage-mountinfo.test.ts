/**
 * The storage check's reading of /proc/self/mountinfo (SPEC §16.2): an ext4
 * that hit an error is `emergency_ro` in its super-block options on Linux
 * 6.15 and later, though access(2) still says writable.
 */
import { describe, expect, test } from "bun:test";
import { superblockReadOnly } from "../../src/db/storage.ts";

const MOUNTINFO = [
  "22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,errors=remount-ro",
  "45 27 7:0 / /tmp/hub\\040data/mnt rw,relatime - ext4 /dev/loop0 rw,errors=remount-ro,emergency_ro",
  "46 27 7:1 / /mnt/archive ro,relatime - ext4 /dev/loop1 ro",
  "47 27 259:3 / /var/lib/hub rw,relatime shared:7 - ext4 /dev/nvme0n1p3 rw",
  "48 27 259:3 /hub /srv/hub rw,relatime shared:7 - ext4 /dev/nvme0n1p3 rw",
].join("\n");

/** A stat's dev for a major and minor, as Linux encodes it. */
function dev(major: number, minor: number): number {
  return Number((BigInt(minor) & 0xffn) | ((BigInt(major) & 0xfffn) << 8n) | ((BigInt(minor) & ~0xffn) << 12n) | ((BigInt(major) & ~0xfffn) << 32n));
}

describe("superblockReadOnly", () => {
  test("an ext4 in emergency read-only, or mounted read-only, is read-only", () => {
    expect(superblockReadOnly(MOUNTINFO, dev(7, 0))).toBe(true);
    expect(superblockReadOnly(MOUNTINFO, dev(7, 1))).toBe(true);
  });

  test("a writable one is not, bind mounts of it included, and a device not listed is not", () => {
    expect(superblockReadOnly(MOUNTINFO, dev(252, 0))).toBe(false);
    expect(superblockReadOnly(MOUNTINFO, dev(259, 3))).toBe(false);
    expect(superblockReadOnly(MOUNTINFO, dev(8, 1))).toBe(false);
    expect(superblockReadOnly("", dev(7, 0))).toBe(false);
  });

  test("the device numbers are decoded as Linux encodes them (a major over 255, a minor over 255)", () => {
    expect(dev(7, 0)).toBe(1792);
    expect(superblockReadOnly("50 27 300:70000 / /x rw - xfs /dev/x ro", dev(300, 70_000))).toBe(true);
    expect(superblockReadOnly("50 27 300:70000 / /x rw - xfs /dev/x ro", dev(300, 70_001))).toBe(false);
  });
});
