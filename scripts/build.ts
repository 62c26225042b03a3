/**
 * Compiles the hub into one self-contained executable, dist/hub: the server,
 * the migrations and every static asset. Pass --target bun-linux-arm64 (or
 * another Bun target) to cross-compile, --outfile PATH to write elsewhere.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { rmSync } from "node:fs";
import { writeIcons } from "./icons.ts";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string", default: join(root, "dist", "hub") } },
});
const outfile = values.outfile ?? join(root, "dist", "hub");
mkdirSync(dirname(outfile), { recursive: true });
// The checkpoint, field-import and backup workers are entry points too, so the executable carries them. Splitting lets the web app
// load its region page, chart library and each language as separate chunks.
// The PNG icons are drawn now from the one source drawing and embedded as files (Bun.embeddedFiles). They are
// written inside src/ so the entry points keep src/ as their common root, where the checkpoint worker is looked up.
const iconDir = join(root, "src", ".build", "icons");
process.once("exit", () => rmSync(join(root, "src", ".build"), { recursive: true, force: true }));
const icons = await writeIcons(iconDir);
const args = [process.execPath, "build", "--compile", "--minify", "--splitting", "--sourcemap", join(root, "src", "main.ts"), join(root, "src", "db", "checkpointer.ts"), ...icons, join(root, "src", "field", "import-worker.ts"), join(root, "src", "backup", "worker.ts"), "--outfile", outfile];
if (values.target) args.push(`--target=${values.target}`);
const started = performance.now();
const result = Bun.spawnSync(args, { cwd: root, stdout: "inherit", stderr: "inherit" });
if (result.exitCode !== 0) process.exit(result.exitCode ?? 1);
console.log(`built ${outfile} in ${Math.round(performance.now() - started)} ms`);
