/**
 * Every metric the built hub serves is in docs/reference/metrics.md, however
 * the code registers it: a family served at /metrics and missing from the
 * reference fails here (the push metrics once were).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { metricFamilies } from "../../scripts/docs.ts";
import { tempDir } from "../helpers.ts";
import { compiledHub } from "./compiled.ts";
import { ROOT, startHub } from "./harness.ts";

test("every metric family the compiled hub serves at /metrics is in the reference", async () => {
  const dir = tempDir();
  const token = "metrics-reference-test-token";
  const hub = await startHub({ cmd: [await compiledHub()], args: ["--db", join(dir.path, "hub.db"), "--backup-target", join(dir.path, "backups")], env: { METRICS_TOKEN: token } });
  try {
    const response = await fetch(`${hub.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const served = metricFamilies(await response.text()).map((family) => family.name);
    expect(served).toContain("hub_push_subscriptions");
    expect(served.length).toBeGreaterThan(15);
    const reference = readFileSync(join(ROOT, "docs", "reference", "metrics.md"), "utf8");
    expect(served.filter((name) => !reference.includes(`| \`${name}\` |`))).toEqual([]);
  } finally {
    await hub.stop();
    dir.cleanup();
  }
}, 120_000);
