import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError } from "../../src/config/load.ts";
import { listAgents } from "../../src/db/agents.ts";
import { openDatabase } from "../../src/db/open.ts";
import { ExternalChanges } from "../../src/live/watch.ts";
import { newAgentToken, sha256Hex } from "../../src/domain/tokens.ts";
import { insertAgent } from "../../src/db/agents.ts";
import { call, json, tempDir, testHub } from "../helpers.ts";

const TOKEN_A = "provisioned-token-aaaaaaaaaaaa";
const TOKEN_B = "provisioned-token-bbbbbbbbbbbb";

function withDb<T>(fn: (path: string) => T): T {
  const dir = tempDir();
  try {
    return fn(join(dir.path, "hub.db"));
  } finally {
    dir.cleanup();
  }
}

describe("provisioned agents", () => {
  test("upserted by provisionId at every boot, never duplicated; the admin's enabled flag is kept", () => {
    withDb((path) => {
      const boot = (env: Record<string, string>) => {
        const hub = testHub({ db: openDatabase(path), env });
        const agents = listAgents(hub.ctx.db.orm);
        hub.ctx.db.sqlite.close();
        return agents;
      };
      const first = boot({ PROVISION_AGENTS: `a1:${TOKEN_A}:eu-west-1:steam,a2:${TOKEN_B}:us-east-1:EPIC` });
      expect(first.map((a) => [a.provisionId, a.platform, a.region, a.provider, a.source, a.tokenHash])).toEqual([
        ["a1", "Windows", "eu-west-1", "steam", "provisioned", sha256Hex(TOKEN_A)],
        ["a2", "EGS", "us-east-1", "epic", "provisioned", sha256Hex(TOKEN_B)],
      ]);
      const db = openDatabase(path);
      db.sqlite.query("UPDATE agents SET enabled = 0 WHERE provision_id = 'a2'").run();
      db.sqlite.close();
      const second = boot({ PROVISION_AGENTS: `a1:${TOKEN_A}:eu-west-2:steam,a2:${TOKEN_B}:us-east-1:epic`, AGENT1_ID: "a3", AGENT1_TOKEN: `${TOKEN_A}-3`, AGENT1_REGION: "ap-south-1", AGENT1_PROVIDER: "grdk" });
      expect(second.length).toBe(3);
      expect(second.map((a) => a.id).slice(0, 2)).toEqual(first.map((a) => a.id));
      expect(second.find((a) => a.provisionId === "a1")?.region).toBe("eu-west-2");
      expect(second.find((a) => a.provisionId === "a2")?.enabled).toBe(false);
    });
  });

  test("a token already used by another agent stops start-up with a clear line", () => {
    withDb((path) => {
      const db = openDatabase(path);
      testHub({ db });
      insertAgent(db.orm, { tokenHash: sha256Hex(TOKEN_A), provider: "steam", region: "eu-west-1", label: null, source: "manual" }, 0);
      expect(() => testHub({ db, env: { PROVISION_AGENTS: `a1:${TOKEN_A}:eu-west-1:steam` } })).toThrow(ConfigError);
      expect(() => testHub({ db, env: { PROVISION_AGENTS: `a1:${TOKEN_A}:eu-west-1:steam` } })).toThrow(/already used by agent/);
      db.sqlite.close();
    });
  });

  test("provisioned agents authenticate with their configured token", async () => {
    const hub = testHub({ env: { PROVISION_AGENTS: `a1:${TOKEN_A}:eu-west-1:steam` } });
    const response = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${TOKEN_A}` } });
    expect(response.status).toBe(200);
    expect((await json(response)).region).toBe("eu-west-1");
  });
});

describe("changes made by another process", () => {
  test("an agent created elsewhere is seen at once by token and by the next watcher check", async () => {
    await withDb(async (path) => {
      const hub = testHub({ db: openDatabase(path) });
      const other = openDatabase(path);
      const token = newAgentToken();
      insertAgent(other.orm, { tokenHash: sha256Hex(token), provider: "grdk", region: "ap-east-1", label: null, source: "manual" }, 0);
      const meta = async () => (await json<{ platforms: string[] }>(await call(hub, "GET", "/api/v1/meta"))).platforms;
      expect(await meta()).toEqual([]);
      let seen = 0;
      const watcher = new ExternalChanges(hub.ctx.db, () => seen++);
      other.sqlite.query("UPDATE agents SET label = 'x'").run();
      watcher.check();
      expect(seen).toBe(1);
      watcher.check();
      expect(seen).toBe(1);
      const response = await call(hub, "GET", "/api/v1/agent/assignment", { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(await meta()).toEqual(["GRDK"]);
      other.sqlite.close();
      hub.ctx.db.sqlite.close();
    });
  });

  test("the running hub's watcher picks up another process's commit within a second", async () => {
    await withDb(async (path) => {
      const hub = testHub({ db: openDatabase(path) });
      hub.start();
      try {
        const other = openDatabase(path);
        insertAgent(other.orm, { tokenHash: sha256Hex(newAgentToken()), provider: "epic", region: "eu-west-1", label: null, source: "manual" }, 0);
        other.sqlite.close();
        const deadline = Date.now() + 1000;
        let platforms: string[] = [];
        while (Date.now() < deadline) {
          platforms = (await json<{ platforms: string[] }>(await call(hub, "GET", "/api/v1/meta"))).platforms;
          if (platforms.length > 0) break;
          await Bun.sleep(50);
        }
        expect(platforms).toEqual(["EGS"]);
      } finally {
        await hub.stop();
        hub.ctx.db.sqlite.close();
      }
    });
  });
});
