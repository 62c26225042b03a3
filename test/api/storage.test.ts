/** When the database cannot be written (full, read-only), writes are 503 problems, nothing is corrupted, and the hub recovers. */
import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, expectProblem, json } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";

function integrity(hub: Awaited<ReturnType<typeof adminHub>>["hub"]): string {
  return hub.ctx.db.sqlite.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check ?? "";
}

function counts(hub: Awaited<ReturnType<typeof adminHub>>["hub"]): { readings: number; agents: number; events: number; users: number } {
  const n = (table: string) => hub.ctx.db.sqlite.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0;
  return { readings: n("readings"), agents: n("agents"), events: n("events"), users: n("users") };
}

describe("storage failures", () => {
  test("a full database: 503 on writes, reads still served, recovery when space returns", async () => {
    const { hub, admin } = await adminHub();
    const first = addAgent(hub, "eu-west-1");
    const second = addAgent(hub, "eu-west-2");
    const third = addAgent(hub, "us-east-1");
    expect((await post(hub, first, reading("Windows", "eu-west-1", Date.now()))).status).toBe(201);
    const before = counts(hub);
    // Free pages (left by the migrations' table rebuilds) would let writes go on after the cap; VACUUM drops them.
    hub.ctx.db.sqlite.exec("VACUUM");
    const pages = hub.ctx.db.sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
    hub.ctx.db.sqlite.exec(`PRAGMA max_page_count = ${pages}`);
    const filler = "x".repeat(100_000);
    const refused = [];
    refused.push(await post(hub, second, reading("Windows", "eu-west-2", Date.now(), { version: "v", category: "c", activeEvent: { key: filler.slice(0, 64), label: "l", multiplier: 2, startsAt: new Date(Date.now() - 1000).toISOString(), endsAt: new Date(Date.now() + 3_600_000).toISOString() } })));
    refused.push(await admin.request("POST", "/api/v1/admin/events", { body: { key: "big", label: filler.slice(0, 120), multiplier: 2, startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-02T00:00:00Z" } }));
    for (let i = 0; i < 30 && refused.every((r) => r.status !== 503); i++) {
      refused.push(await admin.request("POST", "/api/v1/admin/agents", { body: { region: "eu-west-1", provider: "steam", label: filler.slice(0, 120) } }));
    }
    const unavailable = refused.filter((r) => r.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const response of unavailable) {
      expectProblem(response);
      expect(response.headers.get("retry-after")).not.toBeNull();
      expect(await response.text()).not.toContain("SQLITE");
    }
    expect(refused.every((r) => r.status === 201 || r.status === 503)).toBe(true);
    expect((await call(hub, "GET", "/api/v1/platforms/Windows/incentives")).status).toBe(200);
    const degraded = await call(hub, "GET", "/healthz");
    expect(degraded.status).toBe(503);
    expect(await json(degraded)).toMatchObject({ status: "degraded", db: "ok", storage: "full" });
    expect(integrity(hub)).toBe("ok");
    hub.ctx.db.sqlite.exec("PRAGMA max_page_count = 1073741823");
    // The periodic check's probe write succeeds now, so health says ok before any other write is tried.
    expect(hub.ctx.storage.check()).toBe("ok");
    expect(await json(await call(hub, "GET", "/healthz"))).toMatchObject({ status: "ok", storage: "ok" });
    const storedWhileFull = refused[0]?.status === 201 ? 1 : 0;
    expect((await post(hub, third, reading("Windows", "us-east-1", Date.now()))).status).toBe(201);
    const after = counts(hub);
    expect(after.readings).toBe(before.readings + storedWhileFull + 1);
    expect(integrity(hub)).toBe("ok");
  });

  test("a read-only database: 503 on writes, recovery when writable again", async () => {
    const { hub, admin } = await adminHub();
    const agent = addAgent(hub, "eu-west-1");
    hub.ctx.db.sqlite.exec("PRAGMA query_only = ON");
    const ingest = await post(hub, agent, reading("Windows", "eu-west-1", Date.now()));
    expect(ingest.status).toBe(503);
    expectProblem(ingest);
    const adminWrite = await admin.request("POST", "/api/v1/admin/agents", { body: { region: "eu-west-1", provider: "steam" } });
    expect(adminWrite.status).toBe(503);
    expectProblem(adminWrite);
    expect((await json<{ status: string }>(await call(hub, "GET", "/api/v1/platforms/Windows/incentives"))).status).toBe("initializing");
    expect(await json(await call(hub, "GET", "/healthz"))).toMatchObject({ status: "degraded", storage: "read-only" });
    hub.ctx.db.sqlite.exec("PRAGMA query_only = OFF");
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now()))).status).toBe(201);
    expect(counts(hub).readings).toBe(1);
  });
});
