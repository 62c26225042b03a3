/**
 * The field agent's event report through dist/hub (SPEC §9.1, issue 19):
 * posted as the field's agent posts it, then seen by every viewer (stream,
 * GET /api/v1/events, each platform's activeEvent), by the admin (list,
 * audit log, metrics) and by a webhook receiver, which gets each
 * event.started once, across a restart too.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { scratchDirs } from "../helpers.ts";
import { SseReader, type ListedEvent } from "../live-helpers.ts";
import { compiledHub } from "./compiled.ts";
import { eventually, freePort, signedIn, startHub, type RunningHub } from "./harness.ts";

const scratch = scratchDirs();
const PASSWORD = "correct horse battery";
const PLATFORMS = ["Windows", "EGS", "GRDK"] as const;
const AGENTS = [
  { id: "ev-steam", token: "agent-events-e2e-token-steam-00000000", provider: "steam" },
  { id: "ev-epic", token: "agent-events-e2e-token-epic-000000000", provider: "epic" },
  { id: "ev-grdk", token: "agent-events-e2e-token-grdk-000000000", provider: "grdk" },
] as const;
/** SPEC §9.1's example, byte for byte, as the field's agent sends it. */
const FIELD_EXAMPLE = '{"events":[{"key":"BPEVENT_Bloodhunt_NAME","label":"Bloodhunt","multiplier":2,"startsAt":"2026-11-26T15:00:00Z","endsAt":"2026-11-30T15:00:00Z"}]}';
const DAY = 86_400_000;
const METRICS_TOKEN = "agent-events-e2e-metrics-token";

const report = (hub: RunningHub, token: string, body: string) =>
  fetch(`${hub.url}/api/v1/agent/events`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body });

const listed = async (hub: RunningHub) => ((await (await fetch(`${hub.url}/api/v1/events`)).json()) as { events: ListedEvent[] }).events;
const activeEvent = async (hub: RunningHub, platform: string) =>
  ((await (await fetch(`${hub.url}/api/v1/platforms/${platform}/incentives`)).json()) as { activeEvent: { key: string; label: string } | null }).activeEvent;

describe("agent event reports through dist/hub", () => {
  test("the field agent's schedule reaches every viewer, the admin and a webhook, once, and survives a restart", async () => {
    const binary = await compiledHub();
    const db = join(scratch(), "hub.db");
    const env = {
      PROVISION_AGENTS: AGENTS.map((a) => `${a.id}:${a.token}:eu-west-1:${a.provider}`).join(","),
      ADMIN_BOOTSTRAP_USER: "root",
      ADMIN_BOOTSTRAP_PASSWORD: PASSWORD,
      MFA_ENFORCED_ROLES: "",
      WEBHOOK_ALLOW_PRIVATE: "true",
      METRICS_TOKEN: METRICS_TOKEN,
    };
    const [steam, epic, grdk] = AGENTS;
    const receiverPort = await freePort();
    const received: { type: string; key: string; label: string; platforms: string[] }[] = [];
    let verifier: Webhook | null = null;
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: receiverPort,
      fetch: async (request) => {
        const body = await request.text();
        if (!verifier) return new Response(null, { status: 503 });
        const message = verifier.verify(body, Object.fromEntries(request.headers)) as { type: string; data: { key: string; label: string; platforms: string[] } };
        received.push({ type: message.type, key: message.data.key, label: message.data.label, platforms: message.data.platforms });
        return new Response(null, { status: 204 });
      },
    });
    const now = Date.now();
    const running = {
      key: "BPEVENT_Anniversary_NAME",
      label: "\u0007 Anniversary <!channel> @everyone [y](https://x) ",
      multiplier: 3,
      startsAt: new Date(now - 3_600_000).toISOString(),
      endsAt: new Date(now + 2 * 3_600_000).toISOString(),
    };
    const shownLabel = "Anniversary <!channel> @everyone [y](https://x)";
    const exampleShown = Date.parse("2026-11-30T15:00:00Z") > now && Date.parse("2026-11-26T15:00:00Z") <= now + 14 * DAY;
    // The example's dates are fixed: while they hold, its event is in force from the first report on, and announced too.
    const exampleInForce = Date.parse("2026-11-26T15:00:00Z") <= now && now < Date.parse("2026-11-30T15:00:00Z");
    const exampleStarted = exampleInForce ? [{ type: "event.started", key: "BPEVENT_Bloodhunt_NAME", label: "Bloodhunt", platforms: [...PLATFORMS] }] : [];

    const first = await startHub({ cmd: [binary], args: ["--db", db], env });
    let before: ListedEvent[] = [];
    let atStop: typeof received = [];
    try {
      const api = await signedIn(first.url, "root", PASSWORD);
      const made = await api<{ secret: string }>("POST", "/api/v1/admin/webhooks", { url: `http://127.0.0.1:${receiverPort}/hook`, format: "json", onEvents: true });
      expect(made.status).toBe(201);
      verifier = new Webhook(made.body.secret);
      const streams = await Promise.all(PLATFORMS.map(async (p) => new SseReader(await fetch(`${first.url}/api/v1/platforms/${p}/incentives/stream`))));
      for (const stream of streams) expect(JSON.parse((await stream.nextMessage(2000))?.data ?? "{}").activeEvent).toBeNull();

      // The field agent's report, byte for byte; again within 15 s: 429 with Retry-After.
      const example = await report(first, steam.token, FIELD_EXAMPLE);
      expect(example.status).toBe(204);
      expect(await example.text()).toBe("");
      expect((await listed(first)).map((e) => e.key)).toEqual(exampleShown ? ["BPEVENT_Bloodhunt_NAME"] : []);
      if (exampleInForce) for (const stream of streams) expect(JSON.parse((await stream.nextMessage(2000))?.data ?? "{}").activeEvent).toMatchObject({ key: "BPEVENT_Bloodhunt_NAME" });
      const repeat = await report(first, steam.token, FIELD_EXAMPLE);
      expect(repeat.status).toBe(429);
      expect(Number(repeat.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(Number(repeat.headers.get("retry-after"))).toBeLessThanOrEqual(15);

      // Another agent's schedule: a bad entry skipped, the rest replacing the first.
      const schedule = { events: [JSON.parse(FIELD_EXAMPLE).events[0], running, { ...running, key: "BAD", multiplier: 0 }] };
      expect((await report(first, epic.token, JSON.stringify(schedule))).status).toBe(204);
      for (const stream of streams) expect(JSON.parse((await stream.nextMessage(2000))?.data ?? "{}").activeEvent).toMatchObject({ key: running.key, label: shownLabel, multiplier: 3 });
      for (const platform of PLATFORMS) expect(await activeEvent(first, platform)).toMatchObject({ key: running.key, label: shownLabel });
      // An empty report changes nothing.
      expect((await report(first, grdk.token, '{"events":[]}')).status).toBe(204);
      before = await listed(first);
      expect(before.map((e) => [e.key, e.label, e.platforms, e.source])).toEqual([
        [running.key, shownLabel, null, "agent"],
        ...(exampleShown ? [["BPEVENT_Bloodhunt_NAME", "Bloodhunt", null, "agent"]] : []),
      ]);

      const adminList = await api<{ events: { key: string; source: string; agentId: number | null; hidden: boolean }[] }>("GET", "/api/v1/admin/events");
      const agents = await api<{ agents: { id: number; provisionId: string }[] }>("GET", "/api/v1/admin/agents");
      const epicId = agents.body.agents.find((a) => a.provisionId === epic.id)?.id ?? null;
      expect(adminList.body.events.map((e) => [e.key, e.source, e.agentId, e.hidden]).sort()).toEqual([
        ["BPEVENT_Anniversary_NAME", "agent", epicId, false],
        ["BPEVENT_Bloodhunt_NAME", "agent", agents.body.agents.find((a) => a.provisionId === steam.id)?.id ?? null, false],
      ]);
      const audit = await api<{ entries: { target: string; via: string | null; detail: Record<string, number> }[] }>("GET", "/api/v1/admin/audit?action=events.reported");
      expect(audit.body.entries.map((e) => [e.target, e.via, e.detail])).toEqual([
        [`agent:${epicId}`, "config", { events: 2, added: 1, changed: 0, removed: 0 }],
        [expect.stringMatching(/^agent:\d+$/), "config", { events: 1, added: 1, changed: 0, removed: 0 }],
      ]);
      const metrics = await (await fetch(`${first.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
      expect(metrics).toContain('hub_event_entries_skipped_total{reason="multiplier"} 1');

      const runningStarted = { type: "event.started", key: running.key, label: shownLabel, platforms: [...PLATFORMS] };
      await eventually(() => received.some((r) => r.key === running.key));
      await Bun.sleep(500);
      expect(received.filter((r) => r.type === "event.started")).toEqual([...exampleStarted, runningStarted]);
      expect(received.filter((r) => r.key === running.key)).toEqual([runningStarted]);
      // The example's event, superseded by a higher multiplier, is also announced as ended then; otherwise nothing else is sent.
      if (!exampleInForce) expect(received).toEqual([runningStarted]);
      atStop = [...received];
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startHub({ cmd: [binary], args: ["--db", db], env });
    try {
      expect(await listed(second)).toEqual(before);
      for (const platform of PLATFORMS) expect((await activeEvent(second, platform))?.key).toBe(running.key);
      // Reported again after the restart: the event in force is not announced again.
      expect((await report(second, epic.token, JSON.stringify({ events: [running] }))).status).toBe(204);
      await Bun.sleep(1000);
      expect(received).toEqual(atStop);
    } finally {
      expect(await second.stop()).toBe(0);
      await receiver.stop(true);
    }
  }, 90_000);
});
