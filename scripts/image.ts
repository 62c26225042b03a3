/**
 * `npm run image`: builds the container image incentives-hub:latest from the
 * Containerfile and dist/hub (built first by the npm script), with podman when
 * it is installed, else docker.
 */
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const tool = Bun.which("podman") ?? Bun.which("docker");
if (tool === null) {
  console.error("npm run image needs podman or docker on the PATH");
  process.exit(1);
}
// podman writes OCI images by default, which drop HEALTHCHECK; the docker format keeps it.
const format = tool.endsWith("podman") ? ["--format", "docker"] : [];
const args = [tool, "build", ...format, "-f", "Containerfile", "-t", "incentives-hub:latest", "."];
const result = Bun.spawnSync(args, { cwd: root, stdout: "inherit", stderr: "inherit" });
process.exit(result.exitCode ?? 1);
