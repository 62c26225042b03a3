/** `hub serve --demo`: a full board at once, on a database that is gone when the hub stops. */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { compiledHub } from "./compiled.ts";
import { startHub } from "./harness.ts";

describe("demo mode", () => {
  test("14 days of history and live simulated agents on every platform and region, on a throw-away database", async () => {
    const binary = await compiledHub();
    const hub = await startHub({ cmd: [binary], args: ["--demo"], timeoutMs: 60_000 });
    let db = "";
    try {
      const meta = (await (await fetch(`${hub.url}/api/v1/meta`)).json()) as { platforms: string[] };
      expect(meta.platforms).toEqual(["Windows", "EGS", "GRDK"]);
      for (const platform of meta.platforms) {
        const payload = (await (await fetch(`${hub.url}/api/v1/platforms/${platform}/incentives`)).json()) as { status: string; regions: { isReal: boolean }[] };
        expect(payload.status).toBe("ok");
        expect(payload.regions.length).toBe(15);
        expect(payload.regions.every((r) => r.isReal)).toBe(true);
      }
      const history = (await (await fetch(`${hub.url}/api/v1/platforms/EGS/regions/ap-south-1/history?from=0`)).json()) as { firstAt: number; lastAt: number };
      expect(history.lastAt - history.firstAt).toBeGreaterThan(13.9 * 86_400_000);
      const coverage = (await (await fetch(`${hub.url}/api/v1/platforms/GRDK/coverage`)).json()) as { regions: { agents: number }[] };
      expect(coverage.regions.every((r) => r.agents >= 1)).toBe(true);
      db = /"db":"([^"]+hub\.db)"/.exec(hub.output())?.[1] ?? "";
      expect(existsSync(db)).toBe(true);
      expect((await fetch(`${hub.url}/`)).status).toBe(200);
    } finally {
      expect(await hub.stop()).toBe(0);
    }
    expect(existsSync(dirname(db))).toBe(false);
  }, 120_000);
});
