/** dist/hub for end-to-end tests: compiled once per test run, into a temporary directory removed at exit. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./harness.ts";

let built: Promise<string> | null = null;

/** The path of a freshly compiled hub, shared by every test file of this run. */
export function compiledHub(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "hub-compiled-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, "hub");
    const build = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", outfile], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
    if (code !== 0) throw new Error(`build failed: ${stderr}`);
    return outfile;
  })();
  return built;
}
