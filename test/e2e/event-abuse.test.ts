/**
 * Issue 32's event findings through dist/hub (SPEC §16.3): the review's
 * flood of 100 ms events schedules nothing; a wave of valid-length events
 * gives each webhook at most six event deliveries; an agent's ×100 goes when
 * it is disabled or deleted; its reports can be ignored; a reading's
 * multiplier is bounded; and an event 20 days ahead is listed.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { scratchDirs } from "../helpers.ts";
import type { ListedEvent } from "../live-helpers.ts";
import { compiledHub } from "./compiled.ts";
import { eventually, freePort, signedIn, startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();
const PASSWORD = "correct horse battery";
const ROGUE = "event-abuse-e2e-token-rogue-0000000000";
const OTHER = "event-abuse-e2e-token-other-0000000000";
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

const report = (hub: RunningHub, token: string, events: unknown[]) =>
  fetch(`${hub.url}/api/v1/agent/events`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ events }) });
const listedKeys = async (hub: RunningHub) => ((await (await fetch(`${hub.url}/api/v1/events`)).json()) as { events: ListedEvent[] }).events.map((e) => e.key).sort();

describe("event abuse through dist/hub (issue 32)", () => {
  test("floods are bounded, a rogue agent's events go with it, and far events are listed", async () => {
    const binary = await compiledHub();
    const receiverPort = await freePort();
    const received = new Map<string, string[]>();
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: receiverPort,
      fetch: async (request) => {
        const message = JSON.parse(await request.text()) as { type: string };
        const path = new URL(request.url).pathname;
        received.set(path, [...(received.get(path) ?? []), message.type]);
        return new Response(null, { status: 204 });
      },
    });
    const hub = await startHub({
      cmd: [binary],
      args: ["--db", join(scratch(), "hub.db")],
      env: {
        PROVISION_AGENTS: `rogue:${ROGUE}:eu-west-1:steam,other:${OTHER}:eu-west-2:steam`,
        ADMIN_BOOTSTRAP_USER: "root",
        ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
        MFA_ENFORCED_ROLES: "",
        WEBHOOK_ALLOW_PRIVATE: "true",
      },
    });
    try {
      const api = await signedIn(hub.url, "root", PASSWORD);
      for (const path of ["/a", "/b"]) expect((await api("POST", "/api/v1/admin/webhooks", { url: `http://127.0.0.1:${receiverPort}${path}`, format: "json", onEvents: true })).status).toBe(201);
      const agents = (await api<{ agents: { id: number; provisionId: string }[] }>("GET", "/api/v1/admin/agents")).body.agents;
      const rogueId = agents.find((a) => a.provisionId === "rogue")?.id ?? 0;
      const otherId = agents.find((a) => a.provisionId === "other")?.id ?? 0;

      // The review's flood: 200 events of 100 ms each, answered 204, all skipped.
      const t0 = Date.now();
      const flashes = Array.from({ length: 200 }, (_, i) => ({ key: `flash_${i}`, label: "Flash", multiplier: 100, startsAt: iso(t0 + 200 + i * 100), endsAt: iso(t0 + 200 + (i + 1) * 100) }));
      expect((await report(hub, ROGUE, flashes)).status).toBe(204);
      expect(await listedKeys(hub)).toEqual([]);

      // A wave within the bounds: 12 events of 10 minutes, 300 ms apart, each higher: 23 changes, 6 deliveries per webhook.
      const wave = Date.now() + 300;
      const waves = Array.from({ length: 12 }, (_, i) => ({ key: `wave_${i}`, label: `Wave ${i}`, multiplier: 2 + i, startsAt: iso(wave + i * 300), endsAt: iso(wave + i * 300 + 10 * MINUTE) }));
      expect((await report(hub, OTHER, waves)).status).toBe(204);
      await eventually(async () => {
        const payload = (await (await fetch(`${hub.url}/api/v1/platforms/Windows/incentives`)).json()) as { activeEvent: { key: string } | null };
        return payload.activeEvent?.key === "wave_11";
      });
      await eventually(() => (received.get("/a")?.length ?? 0) >= 6 && (received.get("/b")?.length ?? 0) >= 6);
      await Bun.sleep(1_000);
      expect(received.get("/a")).toHaveLength(6);
      expect(received.get("/b")).toHaveLength(6);

      // One report per agent per 15 s: the next ones wait for that.
      await Bun.sleep(Math.max(0, t0 + 15_500 - Date.now()));
      // The rogue's ×100 (as long as the bounds allow) beside an event the other agent also reports; an event 20 days ahead is listed.
      const now = Date.now();
      const hundredfold = { key: "HUNDREDFOLD", label: "×100", multiplier: 100, startsAt: iso(now - MINUTE), endsAt: iso(now + 31 * DAY - MINUTE) };
      const shared = { key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", multiplier: 2, startsAt: iso(now - MINUTE), endsAt: iso(now + DAY) };
      const far = { key: "FAR_AHEAD", label: "Later", multiplier: 2, startsAt: iso(now + 20 * DAY), endsAt: iso(now + 22 * DAY) };
      expect((await report(hub, OTHER, [shared])).status).toBe(204);
      expect((await report(hub, ROGUE, [hundredfold, shared, far])).status).toBe(204);
      expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "FAR_AHEAD", "HUNDREDFOLD"]);

      // Ignored: the entries only the rogue reported are withdrawn (its later reports are answered and dropped: test/api/agent-event-trust.test.ts).
      expect((await api("PATCH", `/api/v1/admin/agents/${rogueId}`, { eventReports: "ignored" })).status).toBe(200);
      expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME"]);
      expect((await api("PATCH", `/api/v1/admin/agents/${rogueId}`, { eventReports: "accepted" })).status).toBe(200);
      await Bun.sleep(15_000);
      expect((await report(hub, ROGUE, [hundredfold, shared])).status).toBe(204);
      expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME", "HUNDREDFOLD"]);
      // Disabled, then deleted: the ×100 goes, the shared event stays until the last agent vouching for it goes too.
      expect((await api("PATCH", `/api/v1/admin/agents/${rogueId}`, { enabled: false })).status).toBe(200);
      expect(await listedKeys(hub)).toEqual(["BPEVENT_Bloodhunt_NAME"]);
      expect((await api("DELETE", `/api/v1/admin/agents/${rogueId}`)).status).toBe(204);
      expect((await api("DELETE", `/api/v1/admin/agents/${otherId}`)).status).toBe(204);
      expect(await listedKeys(hub)).toEqual([]);
    } finally {
      expect(await hub.stop()).toBe(0);
      receiver.stop(true);
    }
  }, 120_000);

  test("a reading's activeEvent.multiplier of 1e308 is a 400", async () => {
    const binary = await compiledHub();
    const token = "event-abuse-e2e-token-reading-000000000";
    const hub = await startHub({ cmd: [binary], args: ["--db", join(scratch(), "hub.db")], env: { PROVISION_AGENTS: `r:${token}:eu-west-1:steam` } });
    try {
      const now = Date.now();
      const body = {
        region: "eu-west-1",
        platform: "Windows",
        survivor: 0,
        killer: 50,
        ratio: 1.5,
        isReal: true,
        measuredAt: iso(now),
        activeEvent: { key: "huge", label: "Huge", multiplier: 1e308, startsAt: iso(now - MINUTE), endsAt: iso(now + DAY) },
      };
      const response = await fetch(`${hub.url}/api/v1/agent/readings`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(((await response.json()) as { detail: string }).detail).toContain("activeEvent.multiplier");
    } finally {
      expect(await hub.stop()).toBe(0);
    }
  });
});
