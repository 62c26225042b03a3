import { describe, expect, test } from "bun:test";
import { adminHub } from "../admin-helpers.ts";
import { call, scratchDirs } from "../helpers.ts";
import { addAgent, post, reading } from "../live-helpers.ts";
import pkg from "../../package.json" with { type: "json" };

const scratch = scratchDirs();

function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  test("Prometheus text with requests, streams, readings, latencies and database size", async () => {
    const { hub, admin } = await adminHub();
    const agent = addAgent(hub, "eu-west-1");
    // A known refresh time means no probe, so the second reading below meets rule 5 (no probe exemption).
    hub.ctx.agents.learnRefreshTime("Windows", "eu-west-1", 300, Date.now());
    await post(hub, agent, reading("Windows", "eu-west-1", Date.now()));
    await post(hub, agent, reading("Windows", "eu-west-1", Date.now()));
    await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { region: "eu-west-2" }));
    await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    await call(hub, "GET", "/nowhere/at/all");
    const stream = await call(hub, "GET", "/api/v1/platforms/Windows/incentives/stream");
    await Bun.sleep(5);
    const response = await admin.request("GET", "/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
    const text = await response.text();
    expect(value(text, 'hub_http_requests_total{route="/api/v1/agent/readings",method="POST",status="201"}')).toBe(1);
    expect(value(text, 'hub_http_requests_total{route="/api/v1/agent/readings",method="POST",status="429"}')).toBe(1);
    expect(value(text, 'hub_http_requests_total{route="/api/v1/platforms/:platform/incentives",method="GET",status="200"}')).toBe(1);
    expect(value(text, 'hub_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(value(text, "hub_streams_open")).toBe(1);
    expect(value(text, "hub_readings_accepted_total")).toBe(1);
    expect(value(text, 'hub_readings_rejected_total{reason="rule1"}')).toBe(1);
    expect(value(text, 'hub_readings_rejected_total{reason="rule5"}')).toBe(1);
    expect(value(text, "hub_ingest_duration_seconds_count")).toBe(3);
    expect(value(text, 'hub_ingest_duration_seconds_bucket{le="+Inf"}')).toBe(3);
    expect(text).toContain("# TYPE hub_history_duration_seconds histogram");
    expect(value(text, "hub_database_size_bytes")).toBeGreaterThan(0);
    expect(value(text, "hub_agents_enabled")).toBe(1);
    expect(value(text, "hub_regions_reporting")).toBe(1);
    for (const line of text.trim().split("\n")) expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+]+)$/);
    await stream.body?.cancel();
  });

  test("what runs (hub_build_info) and how often backups are due (hub_backup_schedule_period_seconds)", async () => {
    const dir = scratch();
    const periods: [Record<string, string>, number][] = [
      [{}, 0],
      [{ BACKUP_TARGET: dir, BACKUP_SCHEDULE: "every 6h" }, 21_600],
      [{ BACKUP_TARGET: dir, BACKUP_SCHEDULE: "daily 03:30" }, 86_400],
    ];
    for (const [env, period] of periods) {
      const { hub } = await adminHub({ METRICS_TOKEN: "scrape-me-please-123", ...env });
      const text = await (await call(hub, "GET", "/metrics", { headers: { authorization: "Bearer scrape-me-please-123" } })).text();
      expect(value(text, `hub_build_info{version="${pkg.version}"}`)).toBe(1);
      expect(text.match(/^hub_build_info\b/gm)?.length).toBe(1);
      expect(value(text, "hub_backup_schedule_period_seconds")).toBe(period);
    }
  });

  test("open with METRICS_TOKEN as a bearer token, otherwise admins only", async () => {
    const { hub } = await adminHub({ METRICS_TOKEN: "scrape-me-please-123" });
    expect((await call(hub, "GET", "/metrics", { headers: { authorization: "Bearer scrape-me-please-123" } })).status).toBe(200);
    expect((await call(hub, "GET", "/metrics", { headers: { authorization: "Bearer scrape-me-please-124" } })).status).toBe(401);
    expect((await call(hub, "GET", "/metrics")).status).toBe(401);
  });
});
