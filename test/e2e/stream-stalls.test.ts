/**
 * Stalled stream clients are dropped (SPEC §8, §16.2): a stream whose socket
 * has not drained for STREAM_STALL_MS, or that has more than 1 MiB unsent, is
 * closed and its slot freed, and /metrics counts it; readers that keep up
 * get every message. Unsent bytes include the connection's kernel send queue
 * (SPEC §16.3), so a client that stops reading on a quiet platform, where the
 * runtime never pushes back, is found too.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { scratchDirs } from "../helpers.ts";
import { SseReader } from "../live-helpers.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();
const METRICS_TOKEN = "stall-metrics-token-1";
const STREAM = "/api/v1/platforms/Windows/incentives/stream";

/**
 * N raw sockets with a tiny receive buffer that ask for the stream and never
 * read ("statuses": read each answer's status line; "headers": read each
 * answer's headers, then stop). On "check" it reads what each socket holds and
 * prints how many the hub closed (end of stream or reset) and how many are
 * still open.
 */
const STUCK_CLIENTS = `
import socket, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
path = sys.argv[4] if len(sys.argv) > 4 else "${STREAM}"
socks = []
for _ in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET " + path.encode() + b" HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
    socks.append(s)
statuses = {}
mode = sys.argv[3] if len(sys.argv) > 3 else ""
for s in socks:
    if mode == "statuses":
        s.settimeout(5)
        status = s.recv(12).split(b" ")[1].decode()
        statuses[status] = statuses.get(status, 0) + 1
    elif mode == "headers":
        s.settimeout(5)
        head = b""
        while b"\\r\\n\\r\\n" not in head:
            head += s.recv(1)
        status = head.split(b" ")[1].decode()
        statuses[status] = statuses.get(status, 0) + 1
print("connected", " ".join(f"{k}:{v}" for k, v in sorted(statuses.items())), flush=True)
sys.stdin.readline()
closed = 0
for s in socks:
    s.settimeout(0.05)
    try:
        while True:
            if not s.recv(65536):
                closed += 1
                break
    except (ConnectionResetError, BrokenPipeError):
        closed += 1
    except socket.timeout:
        pass
print("closed", closed, "open", len(socks) - closed, flush=True)
`;

interface Stuck {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "inherit">;
  readonly lines: ReadableStreamDefaultReader<Uint8Array>;
}

async function readUntil(lines: ReadableStreamDefaultReader<Uint8Array>, pattern: RegExp): Promise<RegExpExecArray | null> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const match = pattern.exec(text);
    if (match) return match;
    const { value, done } = await lines.read();
    if (done) return null;
    text += decoder.decode(value, { stream: true });
  }
}

async function stuckClients(hub: RunningHub, n: number, mode = "", path = STREAM): Promise<Stuck & { statuses: string }> {
  const proc = Bun.spawn(["python3", "-c", STUCK_CLIENTS, new URL(hub.url).port, String(n), mode, path], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = proc.stdout.getReader();
  const match = await readUntil(lines, /connected ?(.*)\n/);
  expect(match).not.toBeNull();
  return { proc, lines, statuses: match?.[1] ?? "" };
}

/** Opens n streams at once and counts the answers by status ("200:507 503:1"); they stay open until `close`. */
async function openStreams(hub: RunningHub, n: number): Promise<{ statuses: string; close: () => void }> {
  const proc = Bun.spawn(["python3", "-c", STUCK_CLIENTS, new URL(hub.url).port, String(n), "statuses"], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const match = await readUntil(proc.stdout.getReader(), /connected (.*)\n/);
  return { statuses: match?.[1] ?? "", close: () => proc.kill() };
}

/** How many of the stuck sockets the hub has closed. */
async function closedByHub(stuck: Stuck): Promise<{ closed: number; open: number }> {
  stuck.proc.stdin.write("check\n");
  await stuck.proc.stdin.flush();
  const match = await readUntil(stuck.lines, /closed (\d+) open (\d+)\n/);
  stuck.proc.kill();
  return { closed: Number(match?.[1] ?? -1), open: Number(match?.[2] ?? -1) };
}

/** One agent per region, each with a reading, so that every message carries the whole board (a few kilobytes). */
function agentsEverywhere(): { env: string; tokens: { token: string; region: string }[] } {
  const tokens = BUILT_IN_REGIONS.map((region, i) => ({ token: `stall-agent-token-${String(i).padStart(5, "0")}`, region: region.id }));
  return { env: tokens.map((a, i) => `s${i}:${a.token}:${a.region}:steam`).join(","), tokens };
}

async function fillBoard(hub: RunningHub, tokens: readonly { token: string; region: string }[]): Promise<void> {
  for (const { token, region } of tokens) {
    const response = await fetch(`${hub.url}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ region, platform: "Windows", survivor: 0, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date().toISOString() }),
    });
    expect(response.status).toBe(201);
  }
}

async function metric(hub: RunningHub, name: string): Promise<number> {
  const text = await (await fetch(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? -1);
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await Bun.sleep(100);
}

function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
}

/** An admin session, to change the payload quickly through events (readings are spaced per agent). */
async function admin(hub: RunningHub): Promise<Record<string, string>> {
  const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "root", password: "correct horse battery" }) });
  const cookie = (login.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
  const session = (await (await fetch(`${hub.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
  return { cookie, "x-csrf-token": session.csrfToken, "content-type": "application/json" };
}

/** Two content changes: an event starts, then ends. Every healthy reader must see both. */
/**
 * One change of the payload each: an event added, then removed. The caller reads each change's message before
 * making the next, since the hub pushes the newest payload and two changes within FLUSH_SPACING_MS may be one.
 */
async function addEvent(hub: RunningHub, headers: Record<string, string>, i: number, label: string, platforms: string[] | null = null): Promise<number> {
  const made = await fetch(`${hub.url}/api/v1/admin/events`, {
    method: "POST",
    headers,
    body: JSON.stringify({ key: `e${i}`, label, platforms, multiplier: 1 + (i % 7), startsAt: new Date(Date.now() - 60_000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() }),
  });
  expect(made.status).toBe(201);
  return ((await made.json()) as { event: { id: number } }).event.id;
}

async function removeEvent(hub: RunningHub, headers: Record<string, string>, id: number): Promise<void> {
  expect((await fetch(`${hub.url}/api/v1/admin/events/${id}`, { method: "DELETE", headers })).status).toBe(204);
}

const ENV = { ADMIN_BOOTSTRAP_USER: "root", ADMIN_BOOTSTRAP_PASSWORD: "correct horse battery", MFA_ENFORCED_ROLES: "", METRICS_TOKEN };

describe("stalled stream clients", () => {
  test("500 clients that never read are dropped once their sockets stop draining; their slots come back; healthy readers get every message", async () => {
    const bin = await compiledHub();
    const perClient = 510;
    const agents = agentsEverywhere();
    const hub = await startHub({
      cmd: [bin],
      args: ["--db", join(scratch(), "hub.db")],
      env: { ...ENV, PROVISION_AGENTS: agents.env, MAX_STREAMS_PER_CLIENT: String(perClient), STREAM_STALL_MS: "2000" },
    });
    try {
      await fillBoard(hub, agents.tokens);
      const headers = await admin(hub);
      const healthy = await Promise.all(Array.from({ length: 3 }, async () => new SseReader(await fetch(`${hub.url}${STREAM}`))));
      for (const reader of healthy) expect(await reader.nextMessage(2000)).not.toBeNull();
      const stuck = await stuckClients(hub, 500);
      await until(async () => (await metric(hub, "hub_streams_open")) === 503, 10_000);
      expect(await metric(hub, "hub_streams_open")).toBe(503);
      const memoryBefore = rss(hub.proc.pid);

      const label = "x".repeat(60);
      const received: number[][] = healthy.map(() => []);
      for (let i = 0; (await metric(hub, "hub_streams_dropped_total")) < 500 && i < 400; i++) {
        const takeOne = async () => {
          for (const [n, reader] of healthy.entries()) {
            const message = await reader.nextMessage(2000);
            expect(message).not.toBeNull();
            received[n]?.push(Number(message?.id));
          }
        };
        const id = await addEvent(hub, headers, i, label);
        await takeOne();
        await removeEvent(hub, headers, id);
        await takeOne();
        await Bun.sleep(20);
      }
      await until(async () => (await metric(hub, "hub_streams_dropped_total")) >= 500, 10_000);
      expect(await metric(hub, "hub_streams_dropped_total")).toBe(500);
      expect(await metric(hub, "hub_streams_open")).toBe(3);
      expect(rss(hub.proc.pid) - memoryBefore).toBeLessThan(64 * 1024 * 1024);
      // Every reader saw the same messages, in order, none skipped.
      for (const ids of received) {
        expect(ids).toEqual(received[0] ?? []);
        expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true);
      }
      expect(await closedByHub(stuck)).toEqual({ closed: 500, open: 0 });

      // The slots are free again: this client may open streams up to its cap once more, and no further.
      const more = await openStreams(hub, perClient - 3 + 1);
      expect(more.statuses).toBe(`200:${perClient - 3} 503:1`);
      more.close();
      for (const reader of healthy) await reader.close();
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 180_000);

  test("a client with more than 1 MiB unsent is dropped well before the stall time; one that keeps reading is not", async () => {
    const bin = await compiledHub();
    const agents = agentsEverywhere();
    const hub = await startHub({ cmd: [bin], args: ["--db", join(scratch(), "hub.db")], env: { ...ENV, PROVISION_AGENTS: agents.env } });
    try {
      await fillBoard(hub, agents.tokens);
      const headers = await admin(hub);
      const healthy = new SseReader(await fetch(`${hub.url}${STREAM}`));
      expect(await healthy.nextMessage(2000)).not.toBeNull();
      const stuck = await stuckClients(hub, 2);
      await until(async () => (await metric(hub, "hub_streams_open")) === 3, 10_000);
      const started = Date.now();
      const label = "y".repeat(120);
      let changes = 0;
      while ((await metric(hub, "hub_streams_dropped_total")) < 2 && Date.now() - started < 40_000) {
        const id = await addEvent(hub, headers, changes++, label);
        expect(await healthy.nextMessage(2000)).not.toBeNull();
        await removeEvent(hub, headers, id);
        expect(await healthy.nextMessage(2000)).not.toBeNull();
      }
      // The default stall time is 60 s: only the unsent bytes can have dropped them this soon.
      expect(Date.now() - started).toBeLessThan(45_000);
      expect(await metric(hub, "hub_streams_dropped_total")).toBe(2);
      expect(await metric(hub, "hub_streams_open")).toBe(1);
      expect(await closedByHub(stuck)).toEqual({ closed: 2, open: 0 });
      await healthy.close();
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 120_000);
});

describe("stalled stream clients on a quiet platform", () => {
  test("clients that read the headers then stop are closed within 70 s although the runtime never reports back-pressure, with pushes or only pings; a reader stays", async () => {
    const bin = await compiledHub();
    const agents = agentsEverywhere();
    // On Windows one change a second follows the burst; on EGS nothing but the pings.
    const pushed = 30;
    const pinged = 10;
    const stalled = pushed + pinged;
    const hub = await startHub({ cmd: [bin], args: ["--db", join(scratch(), "hub.db")], env: { ...ENV, PROVISION_AGENTS: agents.env, MAX_STREAMS_PER_CLIENT: "100" } });
    try {
      await fillBoard(hub, agents.tokens);
      const headers = await admin(hub);
      const healthy = new SseReader(await fetch(`${hub.url}${STREAM}`));
      expect(await healthy.nextMessage(2000)).not.toBeNull();
      const stuck = await stuckClients(hub, pushed, "headers");
      expect(stuck.statuses).toBe(`200:${pushed}`);
      const quiet = await stuckClients(hub, pinged, "headers", "/api/v1/platforms/EGS/incentives/stream");
      expect(quiet.statuses).toBe(`200:${pinged}`);
      await until(async () => (await metric(hub, "hub_streams_open")) === stalled + 1, 10_000);
      expect(await metric(hub, "hub_streams_open")).toBe(stalled + 1);

      // A short burst (well under the kernel's send buffer of each stalled socket, so Bun never pushes back), then one change a second.
      const label = "q".repeat(60);
      let changes = 0;
      const change = async (platforms: string[] | null = ["Windows"]): Promise<void> => {
        const id = await addEvent(hub, headers, changes++, label, platforms);
        expect(await healthy.nextMessage(5000)).not.toBeNull();
        await removeEvent(hub, headers, id);
        expect(await healthy.nextMessage(5000)).not.toBeNull();
      };
      for (let i = 0; i < 10; i++) await change(null);
      // From here on the stalled clients get one push a second (Windows) or only pings (EGS): each is closed within 70 s.
      const quietFrom = Date.now();
      while ((await metric(hub, "hub_streams_dropped_total")) < stalled && Date.now() - quietFrom < 70_000) {
        await change();
        await Bun.sleep(1000);
      }
      expect(await metric(hub, "hub_streams_dropped_total")).toBe(stalled);
      expect(Date.now() - quietFrom).toBeLessThan(70_000);
      expect(await metric(hub, "hub_streams_open")).toBe(1);
      expect(await closedByHub(stuck)).toEqual({ closed: pushed, open: 0 });
      expect(await closedByHub(quiet)).toEqual({ closed: pinged, open: 0 });
      // The reader is still served.
      await change();
      await healthy.close();
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  }, 120_000);
});
