/** Starting real hub processes (from source or the compiled binary) for end-to-end tests. */
import { join } from "node:path";
import { freePort } from "../../scripts/support/ports.ts";

export const ROOT = join(import.meta.dir, "..", "..");
export const SOURCE_CMD = [process.execPath, join(ROOT, "src", "main.ts")];

export { freePort };

export interface RunningHub {
  readonly proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  readonly output: () => string;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

export interface StartOptions {
  readonly cmd?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** A fixed port, to start a hub again where a proxy expects it. */
  readonly port?: number;
  /** /healthz statuses that count as started (a hub started on a full disk answers 503); 200 unless told. */
  readonly readyStatuses?: readonly number[];
}

function collect(stream: ReadableStream<Uint8Array>, sink: string[]): void {
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) sink.push(decoder.decode(chunk, { stream: true }));
  })();
}

export async function startHub(options: StartOptions = {}): Promise<RunningHub> {
  const port = options.port ?? (await freePort());
  const cmd = [...(options.cmd ?? SOURCE_CMD), "serve", "--port", String(port), "--host", "127.0.0.1", ...(options.args ?? [])];
  const proc = Bun.spawn(cmd, {
    cwd: options.cwd ?? ROOT,
    // The board's latency probes would reach the game's servers on the internet; tests that want them map those hosts to loopback.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", LATENCY_PROBES: "false", ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const chunks: string[] = [];
  collect(proc.stdout, chunks);
  collect(proc.stderr, chunks);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`hub exited with ${proc.exitCode} before answering:\n${chunks.join("")}`);
    try {
      const response = await fetch(`${url}/healthz`);
      await response.arrayBuffer();
      if ((options.readyStatuses ?? [200]).includes(response.status)) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`hub did not answer /healthz in time:\n${chunks.join("")}`);
    }
    await Bun.sleep(25);
  }
  return {
    proc,
    url,
    output: () => chunks.join(""),
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return await proc.exited;
    },
  };
}

export interface CliResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runCli(args: readonly string[], options: { env?: Record<string, string>; stdin?: string; cwd?: string; cmd?: readonly string[] } = {}): Promise<CliResult> {
  const proc = Bun.spawn([...(options.cmd ?? SOURCE_CMD), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode, stdout, stderr };
}

export type JsonCaller = <T>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

/** Signs a user in over HTTP and returns a JSON caller that sends the session's cookie and CSRF token. */
export async function signedIn(url: string, username: string, password: string): Promise<JsonCaller> {
  const login = await fetch(`${url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
  if (login.status !== 200) throw new Error(`signing in as ${username} answered ${login.status}`);
  const cookie = (login.headers.getSetCookie().find((c) => c.startsWith("hub_session=")) ?? "").split(";")[0] ?? "";
  const session = (await (await fetch(`${url}/api/v1/auth/session`, { headers: { cookie } })).json()) as { csrfToken: string };
  const headers = { cookie, "x-csrf-token": session.csrfToken, "content-type": "application/json" };
  return async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as T };
  };
}

/** Waits until `check` holds, and fails once `timeoutMs` has passed without it. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(50);
  }
}

/** Posts a reading for eu-west-1 on Steam as the agent with `token`; resolves to the status. */
export async function postReading(url: string, token: string, measuredAt: number, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await fetch(`${url}/api/v1/agent/readings`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ region: "eu-west-1", platform: "Windows", survivor: 0, killer: 50, ratio: 1.5, isReal: true, measuredAt: new Date(measuredAt).toISOString(), ...fields }),
  });
  await response.arrayBuffer();
  return response.status;
}
