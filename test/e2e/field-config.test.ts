/** The compiled hub started with the field hub's config file, every key of it set (SPEC §22): the values are in effect. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import { FIELD_YAML } from "../field-fixture.ts";
import { compiledHub } from "./compiled.ts";
import { startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();

describe("the field hub's hub.yaml, given to this binary with HUB_CONFIG", () => {
  let hub: RunningHub;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = scratch();
    const config = join(dataDir, "hub.yaml");
    writeFileSync(config, FIELD_YAML);
    // The field lets a matching variable win over its file; REQUIRE_AUTH does so here, to leave the public reads open.
    hub = await startHub({ cmd: [await compiledHub()], env: { HUB_CONFIG: config, DATA_DIR: dataDir, REQUIRE_AUTH: "false", ALLOWED_HOSTS: "127.0.0.1" } });
  }, 60_000);

  afterAll(async () => {
    await hub.stop();
  });

  test("starts, with its database at dbPath", () => {
    expect(existsSync(join(dataDir, "bloodpoint-hub.db"))).toBe(true);
  });

  test("what visitors see comes from its keys", async () => {
    const meta = (await (await fetch(`${hub.url}/api/v1/meta`)).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      contactEmail: "ops@example.org",
      discordUrl: "https://discord.gg/example",
      matrixUrl: "https://matrix.to/#/#bloodpoints:example.org",
      agentSetupUrl: "https://github.com/Buco7854/bloodpoint-incentives#running-an-agent",
      contributeEnabled: true,
      pageSize: 12,
    });
  });

  test("its auth: block is in effect: the bootstrap admin, the https origin's cookie, its lifetime, API keys on, the variable winning over requireAuth", async () => {
    const login = await fetch(`${hub.url}/api/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "admin", password: "first-admin-password" }) });
    expect(login.status).toBe(200);
    expect(((await login.json()) as { next: string }).next).toBe("enroll_mfa");
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith("__Host-hub_session=")) ?? "";
    expect(cookie).toContain("Secure");
    expect(cookie).toContain(`Max-Age=${72 * 3600}`);
    const session = (await (await fetch(`${hub.url}/api/v1/auth/session`)).json()) as Record<string, unknown>;
    expect(session).toMatchObject({ enableApiKeys: true, requireAuth: false });
  });

  test("its corsAllowedOrigins are allowed", async () => {
    const preflight = await fetch(`${hub.url}/api/v1/meta`, { method: "OPTIONS", headers: { origin: "https://dash.example.org", "access-control-request-method": "GET" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://dash.example.org");
  });

  test("its provisioned agent and poll: block are in effect", async () => {
    const assignment = await fetch(`${hub.url}/api/v1/agent/assignment`, { headers: { authorization: "Bearer eu-1-token-abcdefghijklmnop" } });
    expect(assignment.status).toBe(200);
    const body = (await assignment.json()) as { region: string; pollMinSeconds: number; pollMaxSeconds: number };
    expect(body.region).toBe("eu-central-1");
    expect(body.pollMaxSeconds / body.pollMinSeconds).toBe(1.5);
  });
});
