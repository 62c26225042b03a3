/**
 * Alerts (SPEC §18): the time from an accepted reading to its webhook being
 * delivered to a receiver on loopback, with 100 other webhooks subscribed,
 * beside the time the reading's own request took (the baseline: what the
 * agent waits for anyway).
 */
import { newAgentToken, sha256Hex } from "../../src/domain/tokens.ts";
import { insertAgent } from "../../src/db/agents.ts";
import { openDatabase } from "../../src/db/open.ts";
import { benchHub, checkLatencies, fmt, percentile, printBenchRows, type BenchRow } from "./common.ts";

const READINGS = Number(process.env.BENCH_WEBHOOK_READINGS ?? 300);
const OTHER_WEBHOOKS = 100;

function cookieOf(response: Response): string {
  return response.headers.getSetCookie().map((line) => line.split(";")[0] ?? "").join("; ");
}

export async function webhooksBench(): Promise<BenchRow[]> {
  const arrivals = new Map<string, number>();
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      const body = (await request.json()) as { type: string; data?: { measuredAt?: string } };
      if (body.type === "bonus.reached" && body.data?.measuredAt) arrivals.set(body.data.measuredAt, performance.now());
      return new Response(null, { status: 204 });
    },
  });
  const hub = benchHub(openDatabase(":memory:"), ["--webhook-allow-private", "--mfa-enforced-roles", ""]);
  hub.start();
  try {
    const call = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      hub.app.handle(new Request(`http://localhost${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));
    const setup = await call("POST", "/api/v1/auth/setup", { username: "bench", password: "bench password 1" });
    const cookie = cookieOf(setup);
    const session = (await (await hub.app.handle(new Request("http://localhost/api/v1/auth/session", { headers: { cookie } }))).json()) as { csrfToken: string };
    const admin = { cookie, "x-csrf-token": session.csrfToken };
    // The others never fire (no bonus reaches 1000 %), but every reading is judged against all of them.
    for (let i = 0; i < OTHER_WEBHOOKS; i++) await call("POST", "/api/v1/admin/webhooks", { url: `http://127.0.0.1:${receiver.port}/other/${i}`, format: "json", minBonus: 1000 }, admin);
    const watched = await call("POST", "/api/v1/admin/webhooks", { url: `http://127.0.0.1:${receiver.port}/watched`, format: "json", minBonus: 50, roles: ["killer"], regions: ["eu-west-1"], platforms: ["Windows"] }, admin);
    if (watched.status !== 201) throw new Error(`could not create the webhook: ${await watched.text()}`);

    const sent = new Map<string, number>();
    const requestMs: number[] = [];
    let at = Date.now() - READINGS * 1000;
    for (let i = 0; i < READINGS; i++) {
      at += 1000;
      const token = newAgentToken();
      insertAgent(hub.ctx.db.orm, { tokenHash: sha256Hex(token), provider: "steam", region: "eu-west-1", label: null, source: "manual" }, Date.now());
      hub.reloadExternal();
      // Alternate the bonus so the condition becomes true on every second reading and fires each time.
      const killer = i % 2 === 0 ? 75 : 0;
      const measuredAt = new Date(at).toISOString();
      const started = performance.now();
      if (killer > 0) sent.set(measuredAt, started);
      const response = await call("POST", "/api/v1/agent/readings", { region: "eu-west-1", platform: "Windows", survivor: 0, killer, ratio: 1.5, isReal: true, measuredAt }, { authorization: `Bearer ${token}` });
      requestMs.push(performance.now() - started);
      if (response.status !== 201) throw new Error(`reading refused: ${await response.text()}`);
      await Bun.sleep(5);
    }
    const deadline = Date.now() + 5000;
    while (arrivals.size < sent.size && Date.now() < deadline) await Bun.sleep(20);
    const latencies = [...sent].flatMap(([key, start]) => {
      const arrived = arrivals.get(key);
      return arrived === undefined ? [] : [arrived - start];
    });
    const p99 = percentile(latencies, 0.99);
    const requestP99 = percentile(requestMs, 0.99);
    await checkLatencies("reading to delivered webhook, p50 / p99", [percentile(latencies, 0.5), p99]);
    return [
      {
        figure: `Reading to delivered webhook on loopback, p50 / p99 (${latencies.length} of ${sent.size} delivered; ${OTHER_WEBHOOKS} more subscribed)`,
        value: `${fmt(percentile(latencies, 0.5), 1)} / ${fmt(p99, 1)} ms`,
        budget: "p99 < 1 s, every one delivered",
        baseline: `the reading's own request: ${fmt(percentile(requestMs, 0.5), 1)} / ${fmt(requestP99, 1)} ms`,
        ratio: `${(p99 / Math.max(requestP99, 0.1)).toFixed(1)}×`,
        ok: p99 < 1000 && latencies.length === sent.size,
      },
    ];
  } finally {
    await hub.stop();
    await receiver.stop(true);
  }
}

if (import.meta.main) printBenchRows("Alerts", await webhooksBench());
