/**
 * End to end through a real server: provisioned agents post readings as
 * agents do; viewers see them on the JSON endpoint and the stream within
 * 100 ms; a restart loses nothing a client can see.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { SseReader } from "../live-helpers.ts";
import { runCli, startHub } from "./harness.ts";

const dir = tempDir();
afterAll(() => dir.cleanup());
const db = join(dir.path, "hub.db");
const TOKENS = { a: "e2e-token-aaaaaaaaaaaaaaaa", b: "e2e-token-bbbbbbbbbbbbbbbb", c: "e2e-token-cccccccccccccccc" };
const env = {
  PROVISION_AGENTS: `euw:${TOKENS.a}:eu-west-1:steam,euw2:${TOKENS.b}:eu-west-1:steam`,
  AGENT1_ID: "use",
  AGENT1_TOKEN: TOKENS.c,
  AGENT1_REGION: "us-east-1",
  AGENT1_PROVIDER: "epic",
};

function body(platform: string, region: string, killer: number, ageMs = 0) {
  return JSON.stringify({ region, platform, survivor: 0, killer, ratio: 2, isReal: true, measuredAt: new Date(Date.now() - ageMs).toISOString(), version: "9.3.0" });
}

async function postReading(url: string, token: string, payload: string): Promise<Response> {
  return await fetch(`${url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: payload });
}

describe("live incentives end to end", () => {
  test("readings reach JSON and stream within 100 ms, and survive a restart", async () => {
    const hub = await startHub({ args: ["--db", db], env });
    let lastRevision = 0;
    try {
      const assignment = await (await fetch(`${hub.url}/api/v1/agent/assignment`, { headers: { authorization: `Bearer ${TOKENS.b}` } })).json();
      expect(assignment).toMatchObject({ region: "eu-west-1", platform: "Windows", pollMinSeconds: 300, pollMaxSeconds: 375, phaseOffsetSeconds: 169 });

      const stream = await fetch(`${hub.url}/api/v1/platforms/Windows/incentives/stream`);
      const sse = new SseReader(stream);
      const first = await sse.nextMessage(2000);
      expect(JSON.parse(first?.data ?? "{}").status).toBe("initializing");

      const started = performance.now();
      const response = await postReading(hub.url, TOKENS.b, body("Windows", "eu-west-1", 150));
      expect(response.status).toBe(201);
      expect((await response.json()).live).toBe(true);
      const pushed = await sse.nextMessage(100);
      const elapsed = performance.now() - started;
      expect(pushed).not.toBeNull();
      expect(elapsed).toBeLessThan(150);
      const payload = JSON.parse(pushed?.data ?? "{}");
      expect(payload.status).toBe("ok");
      expect(payload.regions[0]).toMatchObject({ region: "eu-west-1", killer: 150, isReal: true, stale: false });

      const json = await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).json();
      expect(json.regions[0].killer).toBe(150);
      lastRevision = Number(pushed?.id);

      expect((await postReading(hub.url, TOKENS.c, body("EGS", "us-east-1", 25))).status).toBe(201);
      expect((await postReading(hub.url, TOKENS.b, body("Windows", "eu-west-1", 100))).status).toBe(429);
      await sse.close();

      const created = await runCli(["agent", "create", "--db", db, "--region", "ap-south-1", "--provider", "GRDK", "--label", "late"]);
      expect(created.exitCode).toBe(0);
      const token = /token \(shown only now\): (\S+)/.exec(created.stdout)?.[1] ?? "";
      expect(token.length).toBe(86);
      const seen = await fetch(`${hub.url}/api/v1/agent/assignment`, { headers: { authorization: `Bearer ${token}` } });
      expect(seen.status).toBe(200);
      const deadline = Date.now() + 1000;
      let platforms: string[] = [];
      while (Date.now() < deadline) {
        platforms = (await (await fetch(`${hub.url}/api/v1/meta`)).json()).platforms;
        if (platforms.includes("GRDK")) break;
        await Bun.sleep(50);
      }
      expect(platforms).toEqual(["Windows", "EGS", "GRDK"]);
      const list = await runCli(["agent", "list", "--db", db]);
      expect(list.stdout).toContain("late");
      expect(list.stdout.split("\n").filter((l) => /^\d/.test(l)).length).toBe(4);
    } finally {
      expect(await hub.stop()).toBe(0);
    }

    const again = await startHub({ args: ["--db", db], env });
    try {
      const windows = await (await fetch(`${again.url}/api/v1/platforms/Windows/incentives`)).json();
      expect(windows.status).toBe("ok");
      expect(windows.regions[0]).toMatchObject({ region: "eu-west-1", killer: 150, isReal: true });
      const egs = await (await fetch(`${again.url}/api/v1/platforms/EGS/incentives`)).json();
      expect(egs.regions[0]).toMatchObject({ region: "us-east-1", killer: 25 });
      const stream = new SseReader(await fetch(`${again.url}/api/v1/platforms/Windows/incentives/stream`));
      const first = await stream.nextMessage(2000);
      expect(Number(first?.id)).toBeGreaterThan(lastRevision);
      await stream.close();
      const fast = await postReading(again.url, TOKENS.b, body("Windows", "eu-west-1", 100));
      expect(fast.status).toBe(429);
      const agents = (await (await fetch(`${again.url}/api/v1/platforms/Windows/coverage`)).json()).regions[0];
      expect(agents).toMatchObject({ agents: 2, freshAgents: 1 });
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });
});
