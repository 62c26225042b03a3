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
    expect(directives("StateDirectory")).toEqual(["hub"]);
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
