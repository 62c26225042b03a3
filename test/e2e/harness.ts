/** Starting real hub processes (from source or the compiled binary) for end-to-end tests. */
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");
export const SOURCE_CMD = [process.execPath, join(ROOT, "src", "main.ts")];

export async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port;
  await probe.stop(true);
  if (port === undefined) throw new Error("no free port");
  return port;
}

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
  const port = await freePort();
  const cmd = [...(options.cmd ?? SOURCE_CMD), "serve", "--port", String(port), "--host", "127.0.0.1", ...(options.args ?? [])];
  const proc = Bun.spawn(cmd, {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env },
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
