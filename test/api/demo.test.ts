/**
 * The demo (`hub serve --demo`) with an operator's own regions: its agents
 * and history cover every platform × region pair whatever the number of
 * regions, not only when it is a multiple of the platforms' (issue 27).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILT_IN_REGIONS, PLATFORMS } from "../../src/domain/catalogue.ts";
import { seedDemo } from "../../src/sim/demo.ts";
import { call, json, memoryDb, scratchDirs, testConfig, testHub } from "../helpers.ts";

const scratch = scratchDirs();

interface Payload {
  readonly regions: readonly { region: string; isReal: boolean; lastUpdated: string | null }[];
}

describe("the demo with the operator's regions", () => {
  for (const extra of [1, 2]) {
    const total = BUILT_IN_REGIONS.length + extra;
    test(`${total} regions (${extra} of the config file's): an agent and a reading for every platform × region pair`, async () => {
      const config = join(scratch(), "hub.yaml");
      const own = Array.from({ length: extra }, (_, i) => `  - { id: xx-demo-${i + 1}, name: Demo ${i + 1}, tz: Asia/Dubai, flag: AE }`);
      writeFileSync(config, ["regions:", ...own, ""].join("\n"));
      const env = { HUB_CONFIG: config };
      const regions = testConfig([], env).catalogue.regions;
      expect(regions.length).toBe(total);

      const db = memoryDb();
      const now = Date.now();
      const world = seedDemo(db, regions, now);
      const pairs = PLATFORMS.flatMap((platform) => regions.map((region) => `${platform}/${region.id}`));
      expect(world.agents.map((a) => `${a.platform}/${a.region.id}`).sort()).toEqual([...pairs].sort());

      const hub = testHub({ db, env, now: () => now });
      const seen: string[] = [];
      for (const platform of PLATFORMS) {
        const payload = await json<Payload>(await call(hub, "GET", `/api/v1/platforms/${platform}/incentives`));
        for (const region of payload.regions) if (region.isReal && region.lastUpdated !== null) seen.push(`${platform}/${region.region}`);
        const coverage = await json<{ regions: { region: string; agents: number }[] }>(await call(hub, "GET", `/api/v1/platforms/${platform}/coverage`));
        expect(coverage.regions.filter((r) => r.agents !== 1)).toEqual([]);
      }
      expect(seen.sort()).toEqual([...pairs].sort());
    }, 60_000);
  }
});
