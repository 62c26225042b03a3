/**
 * Faults a real server must survive: being killed mid-burst, running out of
 * disk, and a client that stops reading its stream.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { scratchDirs } from "../helpers.ts";
import { SseReader } from "../live-helpers.ts";
import { startHub } from "./harness.ts";

const scratch = scratchDirs();

function agents(n: number, region = "eu-west-1") {
  return Array.from({ length: n }, (_, i) => ({ id: `f${i}`, token: `fault-agent-token-${String(i).padStart(5, "0")}` , region }));
}

function provision(list: ReturnType<typeof agents>): string {
  return list.map((a) => `${a.id}:${a.token}:${a.region}:steam`).join(",");
}

async function postReading(url: string, token: string, region: string, measuredAt: number, extra: Record<string, unknown> = {}): Promise<number> {
  const response = await fetch(`${url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ region, platform: "Windows", survivor: 0, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date(measuredAt).toISOString(), ...extra }),
  });
  await response.arrayBuffer();
  return response.status;
}

function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
}

describe("faults", () => {
  test("SIGKILL in the middle of an ingest burst loses no acknowledged reading and corrupts nothing", async () => {
    const db = join(scratch(), "hub.db");
    const list = agents(600);
    const env = { PROVISION_AGENTS: provision(list) };
    const hub = await startHub({ args: ["--db", db], env });
    const acknowledged: { id: string; measuredAt: number }[] = [];
    const base = Date.now() - 1000;
    let killed = false;
    const posts = list.map(async (agent, i) => {
      try {
        const status = await postReading(hub.url, agent.token, agent.region, base + i);
        if (status === 201) acknowledged.push({ id: agent.id, measuredAt: base + i });
        if (!killed && acknowledged.length >= 150) {
          killed = true;
          hub.proc.kill("SIGKILL");
        }
      } catch {
        // the server died under this request
      }
    });
    await Promise.all(posts);
    await hub.proc.exited;
    expect(killed).toBe(true);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    expect(acknowledged.length).toBeLessThan(list.length);

    const check = new Database(db);
    expect(check.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
    const stored = new Set(
      check
        .query<{ provision_id: string; measured_at: number }, []>("SELECT a.provision_id, r.measured_at FROM readings r JOIN agents a ON a.id = r.agent_id")
        .all()
        .map((r) => `${r.provision_id}@${r.measured_at}`),
    );
    check.close();
    const missing = acknowledged.filter((a) => !stored.has(`${a.id}@${a.measuredAt}`));
    expect(missing).toEqual([]);

    const again = await startHub({ args: ["--db", db], env });
    const payload = (await (await fetch(`${again.url}/api/v1/platforms/Windows/incentives`)).json()) as { status: string; regions: { isReal: boolean }[] };
    expect(payload.status).toBe("ok");
    expect(payload.regions[0]?.isReal).toBe(true);
    expect(await again.stop()).toBe(0);
  }, 60_000);

  test("a full disk: writes are 503 problems, the server stays up, and recovers when space returns", async () => {
    const mountPoint = join(scratch(), "small");
    mkdirSync(mountPoint);
    const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], { stderr: "pipe" }).exitCode === 0;
    if (!mounted) {
      console.warn("!!! cannot mount a tmpfs here (needs root): the real disk-full test is skipped; test/api/storage.test.ts covers it with SQLite's own limits !!!");
      return;
    }
    try {
      const db = join(mountPoint, "hub.db");
      const list = agents(400);
      const hub = await startHub({ args: ["--db", db], env: { PROVISION_AGENTS: provision(list), MIN_FREE_MB: "0" } });
      const statuses: number[] = [];
      let used = 0;
      for (const agent of list) {
        const status = await postReading(hub.url, agent.token, agent.region, Date.now(), { version: "v".repeat(64), category: "c".repeat(64) });
        statuses.push(status);
        used++;
        if (status === 503) break;
      }
      expect(statuses).toContain(503);
      expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
      expect((await fetch(`${hub.url}/healthz`)).status).toBe(503);
      expect((await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).status).toBe(200);

      expect(Bun.spawnSync(["mount", "-o", "remount,size=64m", mountPoint]).exitCode).toBe(0);
      const next = list[used];
      if (!next) throw new Error("not enough agents");
      expect(await postReading(hub.url, next.token, next.region, Date.now())).toBe(201);
      expect(await hub.stop()).toBe(0);
      const check = new Database(db, { readonly: true });
      expect(check.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
      const count = check.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM readings").get()?.n ?? 0;
      check.close();
      expect(count).toBe(statuses.filter((s) => s === 201).length + 1);
    } finally {
      Bun.spawnSync(["umount", "-l", mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  }, 60_000);

  test("a client that stops reading is dropped without delaying others or growing memory without bound", async () => {
    const db = join(scratch(), "hub.db");
    // One agent in every region of the catalogue.
    const list = agents(BUILT_IN_REGIONS.length).map((a, i) => ({ ...a, region: BUILT_IN_REGIONS[i]?.id ?? a.region }));
    const hub = await startHub({
      args: ["--db", db],
      env: { PROVISION_AGENTS: provision(list), ADMIN_BOOTSTRAP_USER: "root", ADMIN_BOOTSTRAP_PASSWORD: "correct horse battery", MFA_ENFORCED_ROLES: "", METRICS_TOKEN: "fault-metrics-token-1" },
    });
    try {
      for (const agent of list) expect(await postReading(hub.url, agent.token, agent.region, Date.now())).toBe(201);
      const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "root", password: "correct horse battery" }) });
      const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const session = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      const adminHeaders = { cookie, "x-csrf-token": session.csrfToken, "content-type": "application/json" };
      const openStreams = async () => {
        const text = await (await fetch(`${hub.url}/metrics`, { headers: { authorization: "Bearer fault-metrics-token-1" } })).text();
        return Number(/^hub_streams_open (\d+)$/m.exec(text)?.[1] ?? -1);
      };

      const port = new URL(hub.url).port;
      const stuck = Bun.spawn(
        [
          "python3",
          "-c",
          "import socket,sys,time\ns=socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)\n" +
            `s.connect(('127.0.0.1', ${port}))\ns.sendall(b'GET /api/v1/platforms/Windows/incentives/stream HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')\nsys.stdout.write('connected\\n'); sys.stdout.flush()\ntime.sleep(120)`,
        ],
        { stdout: "pipe", stderr: "inherit" },
      );
      const reader = stuck.stdout.getReader();
      await reader.read();
      const healthy = new SseReader(await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`));
      await healthy.nextMessage(2000);
      await Bun.sleep(100);
      const opened = await openStreams();
      expect(opened).toBe(2);
      const memoryBefore = rss(hub.proc.pid);

      let lastRevision = 0;
      let slowest = 0;
      for (let i = 0; i < 1500; i++) {
        const started = performance.now();
        const made = await fetch(`${hub.url}/api/v1/admin/events`, {
          method: "POST",
          headers: adminHeaders,
          body: JSON.stringify({ key: `e${i}`, label: `Event ${i}`, multiplier: 1 + (i % 7), startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() }),
        });
        const { event } = (await made.json()) as { event: { id: number } };
        const message = await healthy.nextMessage(1000);
        slowest = Math.max(slowest, performance.now() - started);
        expect(message).not.toBeNull();
        lastRevision = Number(message?.id);
        await (await fetch(`${hub.url}/api/v1/admin/events/${event.id}`, { method: "DELETE", headers: adminHeaders })).arrayBuffer();
        await healthy.nextMessage(1000);
      }
      expect(lastRevision).toBeGreaterThan(0);
      expect(slowest).toBeLessThan(1000);
      const deadline = Date.now() + 5000;
      while ((await openStreams()) !== 1 && Date.now() < deadline) await Bun.sleep(100);
      expect(await openStreams()).toBe(1);
      expect(rss(hub.proc.pid) - memoryBefore).toBeLessThan(64 * 1024 * 1024);
      await healthy.close();
      stuck.kill();
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 120_000);
});
