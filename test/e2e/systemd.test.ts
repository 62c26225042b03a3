/** hub.service is the hardened unit the spec asks for, and systemd accepts it. */
import { describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { ROOT } from "./harness.ts";

const unit = readFileSync(join(ROOT, "hub.service"), "utf8");
const analyze = Bun.which("systemd-analyze");

function directives(name: string): string[] {
  return unit
    .split("\n")
    .filter((line) => line.startsWith(`${name}=`))
    .map((line) => line.slice(name.length + 1));
}

/** Runs systemd-analyze on a copy of the unit whose ExecStart points at a stand-in binary (it must exist to be verified). */
function analyzeCopy(...args: string[]): { exitCode: number; stdout: string; stderr: string } {
  const dir = tempDir();
  try {
    const fakeBinary = join(dir.path, "hub");
    writeFileSync(fakeBinary, "#!/bin/sh\nexit 0\n");
    chmodSync(fakeBinary, 0o755);
    const copy = join(dir.path, "hub.service");
    writeFileSync(copy, unit.replace("ExecStart=/usr/local/bin/hub", `ExecStart=${fakeBinary}`));
    const result = Bun.spawnSync([analyze ?? "systemd-analyze", ...args, copy], { stdout: "pipe", stderr: "pipe" });
    return { exitCode: result.exitCode ?? 1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  } finally {
    dir.cleanup();
  }
}

describe("hub.service", () => {
  test("runs the binary unprivileged, sandboxed, with its state in /var/lib/hub", () => {
    expect(directives("ExecStart")).toEqual(["/usr/local/bin/hub serve --db /var/lib/hub/hub.db"]);
    expect(directives("StateDirectory")).toEqual(["hub hub-backups"]);
    expect(directives("EnvironmentFile")).toEqual(["-/etc/hub/hub.env"]);
    expect(directives("Restart")).toEqual(["on-failure"]);
    expect(directives("DynamicUser")).toEqual(["yes"]);
    for (const on of ["NoNewPrivileges", "ProtectHome", "PrivateTmp", "PrivateDevices"]) expect(directives(on)).toEqual(["yes"]);
    expect(directives("ProtectSystem")).toEqual(["strict"]);
    expect(directives("RestrictAddressFamilies")).toEqual(["AF_INET AF_INET6 AF_UNIX"]);
    expect(directives("SystemCallFilter")).toContain("@system-service");
    expect(directives("MemoryDenyWriteExecute")).toEqual([]);
  });

  test("also carries the hardening systemd-analyze security scores, and resource caps", () => {
    for (const on of ["PrivateUsers", "PrivateMounts", "ProtectKernelTunables", "ProtectKernelModules", "ProtectControlGroups", "RestrictNamespaces", "RestrictSUIDSGID", "LockPersonality"]) {
      expect({ on, value: directives(on) }).toEqual({ on, value: ["yes"] });
    }
    expect(directives("ProcSubset")).toEqual(["pid"]);
    expect(directives("ProtectProc")).toEqual(["invisible"]);
    expect(directives("DevicePolicy")).toEqual(["closed"]);
    expect(directives("CapabilityBoundingSet")).toEqual([""]);
    expect(directives("UMask")).toEqual(["0077"]);
    expect(directives("MemoryMax")).toEqual(["1G"]);
    expect(directives("TasksMax")).toEqual(["256"]);
  });

  test.skipIf(!analyze)("systemd-analyze security rates its exposure at most 1.2 (OK)", () => {
    const result = analyzeCopy("security", "--offline=yes");
    const output = result.stdout + result.stderr;
    const level = /Overall exposure level for hub\.service: ([0-9.]+)/.exec(output)?.[1];
    expect(level === undefined ? output : Number(level)).toBeLessThanOrEqual(1.2);
  });

  test.skipIf(!analyze)("systemd-analyze verify accepts it", () => {
    const result = analyzeCopy("verify");
    const complaints = result.stderr.split("\n").filter((line) => line.includes("hub.service"));
    expect(complaints).toEqual([]);
    expect(result.exitCode).toBe(0);
  });
});

/**
 * Folder backups under the unit's sandbox, where this machine allows it (root
 * and mount namespaces): a scratch tree stands for the system, read-only as
 * `ProtectSystem=strict` makes it, except the unit's state directories (and,
 * for the storage guide's recipe, a `ReadWritePaths=` folder), owned by an
 * unprivileged user as `DynamicUser=` and `StateDirectory=` make them; the
 * compiled hub runs as that user.
 */
const canSandbox = process.getuid?.() === 0 && Bun.which("unshare") !== null && Bun.which("setpriv") !== null && Bun.spawnSync(["unshare", "--mount", "true"]).exitCode === 0;

describe.skipIf(!canSandbox)("folder backups under the unit's sandbox", () => {
  const stateDirectories = directives("StateDirectory").flatMap((line) => line.split(/\s+/));
  const uid = 61_934;

  async function sandboxed(script: string, writable: readonly string[]): Promise<{ code: number; output: string }> {
    const { compiledHub } = await import("./compiled.ts");
    const hub = await compiledHub();
    const dir = tempDir();
    try {
      const root = join(dir.path, "root");
      const setup = [
        "set -e",
        `R=${root}`,
        "mkdir -p $R/usr/bin $R/var/lib $R/mnt/backup/hub",
        `cp ${hub} $R/usr/bin/hub && chmod 0755 $R/usr/bin/hub`,
        `chmod 0755 ${dir.path}`,
        ...stateDirectories.map((name) => `install -d -m 0700 -o ${uid} -g ${uid} $R/var/lib/${name}`),
        `chown ${uid}:${uid} $R/mnt/backup/hub && chmod 0700 $R/mnt/backup/hub`,
        // ProtectSystem=strict: everything read-only, then the writable paths bound on themselves.
        "mount --bind $R $R && mount -o remount,bind,ro $R",
        ...[...stateDirectories.map((name) => `/var/lib/${name}`), ...writable].map((path) => `mount --bind $R${path} $R${path} && mount -o remount,bind,rw $R${path}`),
        `exec setpriv --reuid=${uid} --regid=${uid} --clear-groups env -i PATH=$R/usr/bin R=$R /bin/bash -c '${script}'`,
      ].join("\n");
      const proc = Bun.spawn(["unshare", "--mount", "--propagation", "private", "bash", "-c", setup], { stdout: "pipe", stderr: "pipe" });
      const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      return { code, output: out + err };
    } finally {
      dir.cleanup();
    }
  }

  test("the unit makes /var/lib/hub-backups, and the storage guide's target there works", async () => {
    expect(stateDirectories).toEqual(["hub", "hub-backups"]);
    const result = await sandboxed("hub migrate --db $R/var/lib/hub/hub.db && hub backup --to $R/var/lib/hub-backups --db $R/var/lib/hub/hub.db && hub backups list --target $R/var/lib/hub-backups", []);
    expect(result.output).toContain("and checked");
    expect(result.code).toBe(0);
  }, 120_000);

  test("a folder elsewhere fails without ReadWritePaths=, saying so, and works with it", async () => {
    const refused = await sandboxed("hub migrate --db $R/var/lib/hub/hub.db && hub backup --to $R/mnt/backup/hub --db $R/var/lib/hub/hub.db", []);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("read-only file system");
    expect(refused.output).toContain("older backups were kept");
    const allowed = await sandboxed("hub migrate --db $R/var/lib/hub/hub.db && hub backup --to $R/mnt/backup/hub --db $R/var/lib/hub/hub.db", ["/mnt/backup/hub"]);
    expect(allowed.output).toContain("and checked");
    expect(allowed.code).toBe(0);
  }, 120_000);
});
