/**
 * The pushpin container's start script (deploy/pushpin/container-start.sh),
 * run on this host with Debian's pushpin, in front of dist/hub: pointed by its
 * variables at a temporary directory, loopback ports and the hub's address as
 * compose.pushpin.yaml points it at hub:3000, it must produce a node that the
 * hub holds streams on (signed with the GRIP_KEY it was given) and that
 * carries a posted reading to the proxied viewer. The image build around it
 * needs a registry and is not run here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { eventually, freePort, postReading, ROOT, signedIn, startHub, type RunningHub } from "./harness.ts";
import { PUSHPIN, pushpinAvailable } from "../../scripts/support/pushpin.ts";

const SCRIPT = join(ROOT, "deploy", "pushpin", "container-start.sh");
// Characters that a sed substitution would take as its own, to show the key reaches sig_key untouched.
const KEY = "container&key/0123|456789abcdef";
const TOKEN = "container-e2e-token-0001-abcdef";
const STREAM = "/api/v1/platforms/Windows/incentives/stream";
const METRICS_TOKEN = "metrics-token-0123456789";
const ADMIN_PASSWORD = "container pushpin password";

const enabled = pushpinAvailable();
const dir = tempDir("hub-pushpin-container-");
let hub: RunningHub | null = null;
let node: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
const output: string[] = [];
let viewerUrl = "";
let publishUrl = "";
let statsUrl = "";

function collect(stream: ReadableStream<Uint8Array>): void {
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) output.push(decoder.decode(chunk, { stream: true }));
  })();
}

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${hub?.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : Number.NaN;
}

/** Until the node holds the stream: a node just started may answer before its handler takes holds. */
async function held(): Promise<Response> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await fetch(`${viewerUrl}${STREAM}`);
    if (response.status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) return response;
    const text = await response.text();
    if (Date.now() > deadline) throw new Error(`the node never held the stream: ${response.status} ${text}\n${output.join("")}`);
    await Bun.sleep(200);
  }
}

beforeAll(async () => {
  if (!enabled) return;
  const binary = await compiledHub();
  const ports = { http: await freePort(), publish: await freePort(), metrics: await freePort(), pull: await freePort(), sub: await freePort(), command: await freePort() };
  viewerUrl = `http://127.0.0.1:${ports.http}`;
  publishUrl = `http://127.0.0.1:${ports.publish}`;
  statsUrl = `http://127.0.0.1:${ports.metrics}/metrics`;
  hub = await startHub({
    cmd: [binary],
    args: ["--db", join(dir.path, "hub.db")],
    env: {
      PROVISION_AGENTS: `a0:${TOKEN}:eu-west-1:steam`,
      GRIP_URL: publishUrl,
      GRIP_KEY: KEY,
      GRIP_STATS_URL: statsUrl,
      METRICS_TOKEN,
      ADMIN_BOOTSTRAP_USER: "root",
      ADMIN_BOOTSTRAP_PASSWORD: ADMIN_PASSWORD,
      MFA_ENFORCED_ROLES: "",
    },
  });
  node = Bun.spawn([SCRIPT], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GRIP_KEY: KEY,
      PUSHPIN_DIR: join(dir.path, "pushpin"),
      HUB_UPSTREAM: new URL(hub.url).host,
      PUSHPIN_HTTP_PORT: `127.0.0.1:${ports.http}`,
      PUSHPIN_PUBLISH_ADDR: "127.0.0.1",
      PUSHPIN_PUBLISH_PORT: String(ports.publish),
      PUSHPIN_METRICS_PORT: `127.0.0.1:${ports.metrics}`,
      PUSHPIN_PULL_PORT: String(ports.pull),
      PUSHPIN_SUB_PORT: String(ports.sub),
      PUSHPIN_COMMAND_PORT: String(ports.command),
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  collect(node.stdout);
  collect(node.stderr);
  const deadline = Date.now() + 20_000;
  const answers = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(1000) }).then(async (r) => (await r.arrayBuffer(), r.status === 200), () => false);
  for (;;) {
    if (node.exitCode !== null) throw new Error(`container-start.sh exited with ${node.exitCode}:\n${output.join("")}`);
    const ready = await Promise.all([answers(`${viewerUrl}/healthz`), answers(`${publishUrl}/publish/`, { method: "POST", body: '{"items":[]}', headers: { "content-type": "application/json" } })]);
    if (ready.every(Boolean)) break;
    if (Date.now() > deadline) throw new Error(`the node did not start in time:\n${output.join("")}`);
    await Bun.sleep(100);
  }
}, 90_000);

afterAll(async () => {
  if (node !== null) {
    // The script execs pushpin's runner, which stops condure, zurl, the proxy and the handler on SIGTERM.
    node.kill("SIGTERM");
    await node.exited;
  }
  await hub?.stop();
  dir.cleanup();
});

describe.skipIf(!enabled)("deploy/pushpin/container-start.sh in front of dist/hub", () => {
  test("the script execs Pushpin itself and keeps the configuration holding the key to its own user", async () => {
    expect(PUSHPIN).not.toBeNull();
    // exec: the script's process is Pushpin's runner, so the container's stop signal reaches it.
    const cmdline = (await Bun.file(`/proc/${node?.pid}/cmdline`).text()).split("\0");
    expect(cmdline).toContain("--config");
    expect(cmdline).toContain(join(dir.path, "pushpin", "pushpin.conf"));
    expect(statSync(join(dir.path, "pushpin", "pushpin.conf")).mode & 0o077).toBe(0);
    expect(output.join("")).not.toContain(KEY);
  });

  test("a viewer through the node is held by the hub (Grip-Sig signed with the key given) and gets a posted reading", async () => {
    const holds = await metric("hub_grip_holds_total");
    const response = await held();
    expect(await metric("hub_grip_holds_total")).toBeGreaterThan(holds);
    // Pushpin, not the hub, holds the connection.
    expect(await metric("hub_streams_open")).toBe(0);
    if (!response.body) throw new Error("no body");
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const frames = () => text.split("\n\n").filter((block) => block.startsWith("event: message")).length;
    const until = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while (frames() < count) {
        if (Date.now() > deadline) throw new Error(`the viewer got ${frames()} frames, not ${count}:\n${text}`);
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended:\n${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    try {
      await until(1);
      // Pushpin needs a moment to subscribe the held connection to the channel.
      await Bun.sleep(300);
      const measuredAt = Date.now();
      expect(await postReading(hub?.url ?? "", TOKEN, measuredAt, { killer: 75 })).toBe(201);
      await until(2);
      const last = text.split("\n\n").filter((block) => block.startsWith("event: message")).at(-1) ?? "";
      expect(last).toContain('"eu-west-1"');
      expect(last).toContain(new Date(measuredAt).toISOString());
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }, 60_000);

  test("an admin signs in through the node, and presence counts the viewers it holds from the metrics GRIP_STATS_URL names", async () => {
    expect(await (await fetch(statsUrl)).text()).toMatch(/^connection_connected \d+$/m);
    const admin = await signedIn(viewerUrl, "root", ADMIN_PASSWORD);
    const node = new URL(publishUrl).host;
    const viewers = async () => (await admin<{ proxied: { nodes: { node: string; viewers: number | null }[] } | null }>("GET", "/api/v1/admin/presence")).body.proxied?.nodes.find((n) => n.node === node)?.viewers;
    const response = await held();
    try {
      await eventually(async () => ((await viewers()) ?? 0) >= 1, 20_000);
    } finally {
      await response.body?.cancel();
    }
  }, 60_000);
});

describe("deploy/pushpin/container-start.sh without a key", () => {
  test("refuses to start and says which variable to set, writing nothing", async () => {
    const empty = join(dir.path, "no-key");
    const proc = Bun.spawn([SCRIPT], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PUSHPIN_DIR: empty }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).not.toBe(0);
    expect(stderr).toContain("set GRIP_KEY");
    expect(existsSync(empty)).toBe(false);
  });
});
