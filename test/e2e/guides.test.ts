/**
 * Every guide runs as written (decision 0078): the shell blocks of
 * docs/guides/ marked `<!-- run -->` are run in order, one scratch folder per
 * guide, with the compiled hub first on PATH as `hub`, and their shown output
 * is compared. A reader's machine has port 3000 free and this one may not, so
 * `localhost:3000` in a block (and in its output) means the guide's own free
 * port, which `PORT` also names; that is the only change made to a block.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { guideBlocks, unmatchedLines } from "../../scripts/guide-blocks.ts";
import { compiledHub } from "./compiled.ts";
import { freePort, ROOT } from "./harness.ts";

const GUIDES = join(ROOT, "docs", "guides");
const BLOCK_TIMEOUT_MS = 30_000;

interface Background {
  readonly proc: Bun.Subprocess<"ignore", "pipe", "pipe">;
  readonly output: string[];
}

function collect(stream: ReadableStream<Uint8Array>, sink: string[]): void {
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) sink.push(decoder.decode(chunk, { stream: true }));
  })();
}

const scratches: string[] = [];
afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

const guides = readdirSync(GUIDES)
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => ({ name, ...guideBlocks(join(GUIDES, name)) }))
  .filter((guide) => guide.blocks.some((block) => block.marker?.kind !== "not-run"));

describe("the guides run as written, against the compiled hub", () => {
  test("some guides have blocks to run", () => {
    expect(guides.length).toBeGreaterThan(3);
  });

  for (const guide of guides) {
    test(
      `docs/guides/${guide.name}`,
      async () => {
        expect(guide.problems).toEqual([]);
        const hub = await compiledHub();
        const scratch = mkdtempSync(join(tmpdir(), "hub-guide-"));
        scratches.push(scratch);
        const port = await freePort();
        const local = (text: string) => text.replaceAll("localhost:3000", `localhost:${port}`);
        const env = { PATH: `${dirname(hub)}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: scratch, PORT: String(port), LANG: "C.UTF-8", LATENCY_PROBES: "false" };
        const background: Background[] = [];
        try {
          for (const block of guide.blocks) {
            const where = `docs/guides/${guide.name}:${block.line}`;
            const marker = block.marker;
            if (!marker || marker.kind === "not-run") continue;
            if (marker.kind === "background") {
              const proc = Bun.spawn(["bash", "-c", `exec ${local(block.script.trim())}`], { cwd: scratch, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
              const output: string[] = [];
              collect(proc.stdout, output);
              collect(proc.stderr, output);
              background.push({ proc, output });
              const deadline = Date.now() + 15_000;
              for (;;) {
                if (proc.exitCode !== null) throw new Error(`${where}: the background command exited with ${proc.exitCode}:\n${output.join("")}`);
                const answered = await fetch(`http://localhost:${port}/healthz`).then(
                  async (response) => (await response.arrayBuffer(), true),
                  () => false,
                );
                if (answered) break;
                if (Date.now() > deadline) throw new Error(`${where}: nothing answered http://localhost:3000/healthz in 15 s:\n${output.join("")}`);
                await Bun.sleep(50);
              }
              continue;
            }
            const proc = Bun.spawn(["bash", "-c", `exec 2>&1\nset -e -o pipefail\n${local(block.script)}`], { cwd: scratch, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
            const timer = setTimeout(() => proc.kill("SIGKILL"), BLOCK_TIMEOUT_MS);
            const [code, output] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
            clearTimeout(timer);
            if (code !== marker.exitCode) throw new Error(`${where}: the block exited with ${code}, not ${marker.exitCode}:\n${block.script}\n--- its output:\n${output}`);
            const missing = block.output ? unmatchedLines(block.output.map(local), output) : [];
            if (missing.length > 0) throw new Error(`${where}: the shown output does not match; missing, in order:\n${missing.join("\n")}\n--- the output was:\n${output}`);
          }
        } finally {
          for (const { proc } of background) {
            proc.kill("SIGTERM");
            await proc.exited;
          }
        }
      },
      120_000,
    );
  }
});
