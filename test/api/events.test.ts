/** GET /api/v1/events: the public schedule of Bloodpoint events (SPEC §7, §11.6). */
import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, json, testHub } from "../helpers.ts";
import { addAgent, post, reading, type ListedEvent } from "../live-helpers.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

const listed = async (hub: Parameters<typeof call>[0]) => (await json<{ events: ListedEvent[] }>(await call(hub, "GET", "/api/v1/events"))).events;

describe("GET /api/v1/events", () => {
  test("in force by end, then every upcoming one by start however far ahead, admin and agent events alike", async () => {
    const now = Date.now();
    const { hub, admin } = await adminHub();
    const make = async (key: string, from: number, to: number, platforms: string[] | null = null) =>
      expect((await admin.json("POST", "/api/v1/admin/events", { key, label: key, multiplier: 2, startsAt: iso(now + from * HOUR), endsAt: iso(now + to * HOUR), platforms })).status).toBe(201);
    await make("running-long", -1, 48);
    await make("later", 24, 30, ["EGS"]);
    await make("over", -5, -1);
    await make("far", 24 * 15, 24 * 16);
    const agent = addAgent(hub, "eu-west-1", "epic");
    const seen = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(now - HOUR), endsAt: iso(now + 2 * HOUR) };
    expect((await post(hub, agent, reading("EGS", "eu-west-1", now, { activeEvent: seen }))).status).toBe(201);

    const response = await call(hub, "GET", "/api/v1/events");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=120, stale-while-revalidate=480");
    const { events } = await json<{ events: ListedEvent[] }>(response);
    expect(events.map((e) => e.key)).toEqual(["BPEVENT_Bloodhunt_NAME", "running-long", "later", "far"]);
    expect(events[0]).toEqual({ ...seen, startsAt: seen.startsAt, platforms: ["EGS"], source: "agent" });
    expect(events[2]).toMatchObject({ platforms: ["EGS"], source: "admin" });
  });

  test("under the read gate: 401 without credentials while requireAuth is on", async () => {
    const hub = testHub({ env: { REQUIRE_AUTH: "true" } });
    expect((await call(hub, "GET", "/api/v1/events")).status).toBe(401);
    const open = testHub();
    expect(await listed(open)).toEqual([]);
  });
});
