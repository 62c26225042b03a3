/**
 * The container image (SPEC §21), built and run with Debian's podman: the
 * Containerfile around the compiled hub, /healthz and the image's own
 * healthcheck, an unprivileged user, and a reading that outlives a restart on
 * the /data volume.
 *
 * Facts of these machines: podman runs containers here with runc and a
 * containers.conf that sets no default ulimits (crun fails on the hybrid
 * cgroups, and setting rlimits is not permitted), and no registry is
 * reachable, so the base image the Containerfile names is made here with
 * debootstrap from the Debian mirror apt uses, and kept for later runs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, ROOT } from "./harness.ts";

const podman = Bun.which("podman");
if (podman === null && process.env.CI === undefined) {
  console.warn("################################################################");
  console.warn("container test SKIPPED: podman is not installed (apt-get install podman runc debootstrap)");
  console.warn("################################################################");
}

const IMAGE = "localhost/incentives-hub:test";
const scratch = scratchDirs();

/** The base image the Containerfile names, read from its FROM line. */
function baseImage(): string {
  const from = /^FROM\s+(\S+)/m.exec(readFileSync(join(ROOT, "Containerfile"), "utf8"))?.[1];
  if (from === undefined) throw new Error("the Containerfile has no FROM line");
  return from;
}

/** The Debian mirror apt uses here, so debootstrap fetches from where packages already come from. */
function debianMirror(): string {
  for (const file of ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"]) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, "utf8");
    const uri = /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+\s+main/m.exec(text)?.[1];
    if (uri !== undefined && !uri.includes("security")) return uri;
  }
  return "http://deb.debian.org/debian";
}

describe.skipIf(podman === null && process.env.CI === undefined)("the container image, with podman", () => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  const name = `hub-test-${process.pid}`;
  const volume = `hub-test-data-${process.pid}`;
  let port = 0;

  async function run(args: readonly string[], input?: string): Promise<{ code: number; out: string; err: string }> {
    if (podman === null) throw new Error("podman is not installed: on CI the container test cannot be skipped");
    const proc = Bun.spawn([podman, ...args], { env, stdin: input === undefined ? "ignore" : new TextEncoder().encode(input), stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { code, out: out.trim(), err: err.trim() };
  }

  async function must(args: readonly string[]): Promise<string> {
    const result = await run(args);
    if (result.code !== 0) throw new Error(`podman ${args.join(" ")} failed (${result.code}):\n${result.err}\n${result.out}`);
    return result.out;
  }

  async function healthz(timeoutMs = 30_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (response.status === 200 || Date.now() > deadline) return response.status;
      } catch {
        if (Date.now() > deadline) return 0;
      }
      await Bun.sleep(200);
    }
  }

  beforeAll(async () => {
    const conf = join(scratch(), "containers.conf");
    writeFileSync(conf, '[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n');
    env.CONTAINERS_CONF = conf;

    // The base image is made once and kept: later runs find it and skip the minutes debootstrap takes.
    const base = baseImage();
    if ((await run(["image", "exists", base])).code !== 0) {
      const rootfs = join(scratch(), "rootfs");
      const boot = Bun.spawnSync(["debootstrap", "--variant=minbase", "bookworm", rootfs, debianMirror()], { stdout: "pipe", stderr: "pipe" });
      if (boot.exitCode !== 0) throw new Error(`debootstrap failed:\n${boot.stderr.toString()}`);
      const tar = Bun.spawnSync(["tar", "-C", rootfs, "-c", "."], { stdout: "pipe", stderr: "pipe", maxBuffer: 1 << 30 });
      if (tar.exitCode !== 0) throw new Error(`tar failed:\n${tar.stderr.toString()}`);
      const imported = Bun.spawn([podman ?? "podman", "import", "-", base], { env, stdin: tar.stdout, stdout: "pipe", stderr: "pipe" });
      if ((await imported.exited) !== 0) throw new Error(`podman import failed:\n${await new Response(imported.stderr).text()}`);
    }

    // The build context holds what the Containerfile needs: itself, its ignore file and dist/hub.
    const context = scratch();
    mkdirSync(join(context, "dist"));
    copyFileSync(await compiledHub(), join(context, "dist", "hub"));
    copyFileSync(join(ROOT, "Containerfile"), join(context, "Containerfile"));
    copyFileSync(join(ROOT, ".dockerignore"), join(context, ".dockerignore"));
    await must(["build", "--pull=never", "--format", "docker", "-f", join(context, "Containerfile"), "-t", IMAGE, context]);
    port = await freePort();
  }, 600_000);

  afterAll(async () => {
    if (podman === null) return;
    await run(["rm", "-f", "-t", "0", name]);
    await run(["volume", "rm", "-f", volume]);
    await run(["rmi", "-f", IMAGE]);
  });

  test("runs as an unprivileged user, answers /healthz and its healthcheck, and keeps a reading across a restart on /data", async () => {
    // Host networking: the sandbox has no bridge to publish ports through; the image's port comes from PORT as usual.
    await must(["run", "-d", "--name", name, "--network", "host", "-e", `PORT=${port}`, "-v", `${volume}:/data`, IMAGE]);
    expect(await healthz()).toBe(200);

    const inspected = JSON.parse(await must(["image", "inspect", IMAGE])) as { Config: { User: string; ExposedPorts: Record<string, unknown>; Volumes: Record<string, unknown>; Env: string[] }; HealthCheck?: { Test: string[] } }[];
    const config = inspected[0]?.Config;
    expect(config?.User).toBe("10001:10001");
    expect(Object.keys(config?.ExposedPorts ?? {})).toEqual(["3000/tcp"]);
    expect(Object.keys(config?.Volumes ?? {})).toEqual(["/data"]);
    expect(config?.Env).toContain("DB_PATH=/data/hub.db");
    const uid = (await must(["exec", name, "sh", "-c", "awk '/^Uid:/ { print $2 }' /proc/1/status"])).trim();
    expect(uid).toBe("10001");
    expect((await run(["healthcheck", "run", name])).code).toBe(0);

    const created = await must(["exec", name, "hub", "agent", "create", "--region", "eu-west-1", "--provider", "steam"]);
    const token = /[A-Za-z0-9_-]{86}/.exec(created)?.[0] ?? "";
    expect(token).not.toBe("");
    const reading = await fetch(`http://127.0.0.1:${port}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 0, killer: 75, ratio: 2, isReal: true, measuredAt: new Date().toISOString() }),
    });
    expect(reading.status).toBe(201);

    await must(["restart", "-t", "10", name]);
    expect(await healthz()).toBe(200);
    const payload = (await (await fetch(`http://127.0.0.1:${port}/api/v1/platforms/Windows/incentives`)).json()) as { regions: { region: string; killer: number }[] };
    expect(payload.regions.find((r) => r.region === "eu-west-1")?.killer).toBe(75);
  }, 180_000);
});
