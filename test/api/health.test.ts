import { describe, expect, test } from "bun:test";
import { HUB_VERSION } from "../../src/version.ts";
import { call, json, memoryDb, testHub } from "../helpers.ts";

describe("GET /healthz", () => {
  test("200 with the summary, never cached", async () => {
    let now = 1_800_000_000_000;
    const hub = testHub({ now: () => now });
    now += 65_000;
    const response = await call(hub, "GET", "/healthz");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      status: "ok",
      version: HUB_VERSION,
      uptimeSeconds: 65,
      agentsConfigured: 0,
      regionsReporting: 0,
      db: "ok",
      storage: "ok",
      backup: { last: null, lastError: null, next: null },
    });
  });

  test("counts enabled agents and fresh (platform, region) pairs", async () => {
    const now = 1_800_000_000_000;
    const db = memoryDb();
    const { sqlite } = db;
    const agent = sqlite.query(
      "INSERT INTO agents (token_hash, provider, platform, region, enabled, created_at, updated_at) VALUES (?, 'steam', 'Windows', ?, ?, 0, 0)",
    );
    agent.run("a".repeat(64), "eu-west-1", 1);
    agent.run("b".repeat(64), "eu-west-2", 1);
    agent.run("c".repeat(64), "eu-west-2", 0);
    const reading = sqlite.query(
      "INSERT INTO readings (platform, region, survivor, killer, ratio, measured_at, received_at) VALUES (?, ?, 0, 50, 1.5, ?, ?)",
    );
    reading.run("Windows", "eu-west-1", now - 60_000, now);
    reading.run("Windows", "eu-west-1", now - 30_000, now);
    reading.run("EGS", "eu-west-1", now - 120_000, now);
    reading.run("Windows", "eu-west-2", now - 901_000, now);
    const hub = testHub({ db, now: () => now });
    const body = await json(await call(hub, "GET", "/healthz"));
    expect(body.agentsConfigured).toBe(2);
    expect(body.regionsReporting).toBe(2);
  });

  test("503 unhealthy when the database does not answer", async () => {
    const hub = testHub();
    hub.ctx.db.sqlite.close();
    const response = await call(hub, "GET", "/healthz");
    expect(response.status).toBe(503);
    const body = await json(response);
    expect(body.status).toBe("unhealthy");
    expect(body.db).toBe("error");
    expect(body.version).toBe(HUB_VERSION);
  });
});
