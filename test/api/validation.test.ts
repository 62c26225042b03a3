/**
 * Validation that means what it says: lengths in characters, impossible dates
 * refused, messages naming the field and the rule, ids without precision loss,
 * and literal routes never answered as if they were an {id}.
 */
import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, testHub } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

interface Problem {
  detail: string;
  errors?: { location: string; message: string; value?: unknown }[];
}

describe("lengths count characters", () => {
  test("120 emoji are 120 characters: a label of 120 fits, 121 does not", async () => {
    const { admin } = await adminHub();
    const fits = await admin.json<{ agent: { label: string } }>("POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "steam", label: "🎮".repeat(120) });
    expect(fits.status).toBe(201);
    expect([...fits.body.agent.label].length).toBe(120);
    const long = await admin.json<Problem>("POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "steam", label: "🎮".repeat(121) });
    expect(long.status).toBe(400);
    expect(long.body.errors?.[0]).toMatchObject({ location: "body.label", message: "must be a string of at most 120 characters or null" });
  });

  test("a password of 10 emoji is 10 characters; of 9 it is too short", async () => {
    const { admin } = await adminHub();
    expect((await admin.json("POST", "/api/v1/admin/users", { username: "emoji", role: "user", password: "🔑".repeat(10) })).status).toBe(201);
    const short = await admin.json<Problem>("POST", "/api/v1/admin/users", { username: "emoji2", role: "user", password: "🔑".repeat(9) });
    expect(short.status).toBe(400);
    expect(short.body.errors?.[0]).toEqual({ location: "body.password", message: "must be a string of 10 to 1024 characters" });
    expect(JSON.stringify(short.body)).not.toContain("🔑");
  });
});

describe("lengths count characters in readings too", () => {
  test("a version of 64 emoji meets rule 6; of 65 it does not", async () => {
    const hub = testHub();
    const agent = addAgent(hub, "eu-west-1");
    const refused = await post(hub, agent, { ...reading("Windows", "eu-west-1", Date.now()), version: "🎮".repeat(65) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Problem).detail).toStartWith("Rule 6");
    expect((await post(hub, agent, { ...reading("Windows", "eu-west-1", Date.now()), version: "🎮".repeat(64) })).status).toBe(201);
  });
});

describe("dates", () => {
  test("an impossible date is refused, never rolled over", async () => {
    const { admin } = await adminHub();
    const event = { key: "double-bp", label: "Double", multiplier: 2, startsAt: "2026-02-30T15:00:00Z", endsAt: "2026-03-05T15:00:00Z" };
    const refused = await admin.json<Problem>("POST", "/api/v1/admin/events", event);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain("startsAt");
    expect((await admin.json<{ events: unknown[] }>("GET", "/api/v1/admin/events")).body.events).toEqual([]);
    expect((await admin.json("POST", "/api/v1/admin/events", { ...event, startsAt: "2026-02-28T15:00:00Z" })).status).toBe(201);
  });

  test("a reading measured at an impossible time breaks rule 3", async () => {
    const hub = testHub();
    const agent = addAgent(hub, "eu-west-1");
    const response = await post(hub, agent, { ...reading("Windows", "eu-west-1", Date.now()), measuredAt: "2026-02-30T15:00:00Z" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Problem).detail).toStartWith("Rule 3");
  });
});

describe("messages name the field and the rule", () => {
  test("enums, types, ranges and missing fields in words", async () => {
    const { admin } = await adminHub();
    const role = await admin.json<Problem>("POST", "/api/v1/admin/users", { username: "bob", role: "superuser" });
    expect(role.status).toBe(400);
    expect(role.body.errors).toEqual([{ location: "body.role", message: 'must be one of "admin" or "user"', value: "superuser" }]);
    expect(role.body.detail).toBe('Invalid body.role: must be one of "admin" or "user".');

    const username = await admin.json<Problem>("POST", "/api/v1/admin/users", { username: "no spaces", role: "user" });
    expect(username.body.errors?.[0]?.message).toBe("must be 1 to 64 letters, digits, '.', '_' or '-'");

    const missing = await admin.json<Problem>("POST", "/api/v1/admin/agents", { provider: "steam" });
    expect(missing.body.errors?.[0]).toMatchObject({ location: "body.region" });
    expect(missing.body.errors?.[0]?.message).toStartWith('is required and must be one of "eu-west-1", "eu-west-2"');

    const provider = await admin.json<Problem>("POST", "/api/v1/admin/agents", { region: "eu-west-1", provider: "psn" });
    expect(provider.body.errors?.[0]).toEqual({ location: "body.provider", message: "must be steam, epic or grdk (in any case)", value: "psn" });

    const multiplier = await admin.json<Problem>("POST", "/api/v1/admin/events", { key: "x", label: "X", multiplier: 0, startsAt: "2026-11-27T15:00:00Z", endsAt: "2026-11-28T15:00:00Z" });
    expect(multiplier.body.errors?.[0]).toMatchObject({ location: "body.multiplier", message: "must be a number greater than 0" });

    const quoted = await admin.json<Problem>("PATCH", "/api/v1/admin/users/1", { enabled: "yes" });
    expect(quoted.body.errors?.[0]).toMatchObject({ location: "body.enabled", message: "must be true or false" });

    for (const problem of [role, username, missing, provider, multiplier, quoted]) {
      expect(JSON.stringify(problem.body)).not.toMatch(/undefined|should be one of|Expected/);
    }
  });
});

describe("ids", () => {
  test("an id out of range is a 400 that keeps every digit; a well-formed unknown id is a 404", async () => {
    const { admin } = await adminHub();
    for (const path of ["/api/v1/admin/agents/99999999999999999999", "/api/v1/admin/users/99999999999999999999", "/api/v1/admin/events/99999999999999999999"]) {
      const response = await admin.request("PATCH", path, { body: {} });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      const body = (await response.json()) as Problem;
      expect(body.errors?.[0]).toEqual({ location: "params.id", message: "must be an integer from 1 to 999999999999999", value: "99999999999999999999" });
    }
    for (const bad of ["0x10", "1e3", "1.0", "-1", "0"]) {
      expect({ bad, status: (await admin.request("DELETE", `/api/v1/admin/agents/${bad}`)).status }).toEqual({ bad, status: 400 });
    }
    const unknown = await admin.request("DELETE", "/api/v1/admin/agents/999999999999999");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Problem).detail).toContain("999999999999999");
  });
});

describe("literal routes", () => {
  test("never answer as if they were {id}, and Allow lists exactly their methods", async () => {
    const hub = testHub();
    const cases: [string, string, string][] = [
      ["DELETE", "/api/v1/admin/agents/export", "GET"],
      ["PATCH", "/api/v1/admin/agents/export", "GET"],
      ["POST", "/api/v1/admin/agents/export", "GET"],
      ["GET", "/api/v1/admin/agents/import", "POST"],
      ["DELETE", "/api/v1/admin/agents/import", "POST"],
      ["GET", "/api/v1/auth/mfa/passkeys/challenge", "POST"],
      ["DELETE", "/api/v1/auth/mfa/passkeys/challenge", "POST"],
      ["DELETE", "/api/v1/auth/mfa/passkeys/registration", "POST"],
      ["DELETE", "/api/v1/auth/mfa/passkeys/verification", "POST"],
      ["PUT", "/api/v1/admin/agents/5", "PATCH, DELETE"],
      ["GET", "/api/v1/admin/agents/5", "PATCH, DELETE"],
      ["DELETE", "/healthz", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await call(hub, method, path);
      expect({ method, path, status: response.status, allow: response.headers.get("allow") }).toEqual({ method, path, status: 405, allow });
      expectProblem(response);
    }
    expect((await call(hub, "GET", "/api/v1/admin/agents/export")).status).toBe(401);
  });
});
