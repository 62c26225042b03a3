import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/open.ts";
import { MAX_TICK_MS } from "../../src/live/store.ts";
import { rememberSocketAddress } from "../../src/http/client-ip.ts";
import { call, expectProblem, json, memoryLog, tempDir, testHub } from "../helpers.ts";
import { addAgent, post, reading, SseReader } from "../live-helpers.ts";

const STREAM = "/api/v1/platforms/Windows/incentives/stream";

function open(hub: ReturnType<typeof testHub>, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return hub.app.handle(new Request(`http://localhost${STREAM}`, { headers, signal }));
}

/** A stream opened as if from this client address. */
function openFrom(hub: ReturnType<typeof testHub>, ip: string) {
  const request = new Request(`http://localhost${STREAM}`);
  rememberSocketAddress(request, ip);
  return hub.app.handle(request);
}

describe("the incentives stream", () => {
  test("sends the current payload at once, in the SSE shape", async () => {
    const hub = testHub();
    const response = await open(hub);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const sse = new SseReader(response);
    const first = await sse.next(200);
    expect(first?.event).toBe("message");
    expect(first?.retry).toBe("3000");
    const current = await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    expect(first?.id).toBe((current.headers.get("etag") ?? "").replaceAll('"', ""));
    expect(first?.data).toBe(await current.text());
    expect(first?.data?.includes("\n")).toBe(false);
    await sse.close();
  });

  test("pushes each content change within 100 ms, once, and never an unchanged payload", async () => {
    const hub = testHub();
    const agent = addAgent(hub, "eu-west-1");
    const other = addAgent(hub, "eu-west-1");
    const sse = new SseReader(await open(hub));
    const first = await sse.nextMessage();
    const started = performance.now();
    expect((await post(hub, agent, reading("Windows", "eu-west-1", Date.now(), { killer: 125 }))).status).toBe(201);
    const pushed = await sse.nextMessage(100);
    expect(performance.now() - started).toBeLessThan(100);
    expect(Number(pushed?.id)).toBeGreaterThan(Number(first?.id));
    expect(JSON.parse(pushed?.data ?? "{}").regions[0].killer).toBe(125);
    expect((await post(hub, other, reading("Windows", "eu-west-1", Date.now() - 120_000, { killer: 0 }))).status).toBe(201);
    await call(hub, "GET", "/api/v1/platforms/Windows/incentives");
    hub.ctx.live.invalidate();
    hub.ctx.live.flush();
    expect(await sse.nextMessage(150)).toBeNull();
    await sse.close();
  });

  test("a client that reconnects with the current revision gets no duplicate first message", async () => {
    const hub = testHub();
    const revision = (await call(hub, "GET", "/api/v1/platforms/Windows/incentives")).headers.get("etag")?.replaceAll('"', "") ?? "";
    const sse = new SseReader(await open(hub, { "last-event-id": revision }));
    const first = await sse.next(200);
    expect(first?.data).toBeUndefined();
    expect(first?.comments.length).toBe(1);
    expect(await sse.nextMessage(100)).toBeNull();
    const stale = new SseReader(await open(hub, { "last-event-id": "12" }));
    expect((await stale.nextMessage(200))?.id).toBe(revision);
    await sse.close();
    await stale.close();
  });

  test("keep-alive comments", async () => {
    const hub = testHub();
    const sse = new SseReader(await open(hub));
    await sse.nextMessage();
    hub.ctx.streams.ping();
    expect((await sse.next(200))?.comments).toEqual(["ping"]);
    await sse.close();
  });

  test("beyond MAX_STREAMS: 503 with Retry-After", async () => {
    const hub = testHub({ env: { MAX_STREAMS: "2" } });
    const a = new SseReader(await open(hub));
    const b = new SseReader(await open(hub));
    const third = await open(hub);
    expect(third.status).toBe(503);
    expectProblem(third);
    expect(third.headers.get("retry-after")).toBe("5");
    expect(third.headers.get("x-frame-options")).toBe("DENY");
    await a.close();
    await Bun.sleep(0);
    const fourth = await open(hub);
    expect(fourth.status).toBe(200);
    await b.close();
    await fourth.body?.cancel();
  });

  test("one client holds at most MAX_STREAMS_PER_CLIENT streams; others are unaffected; a closed stream frees its slot at once", async () => {
    const { log, lines } = memoryLog("info");
    const hub = testHub({ log });
    expect(hub.ctx.config.maxStreamsPerClient).toBe(32);
    const mine: SseReader[] = [];
    for (let i = 0; i < 32; i++) {
      const response = await openFrom(hub, "198.51.100.7");
      expect(response.status).toBe(200);
      mine.push(new SseReader(response));
    }
    const refused = await openFrom(hub, "198.51.100.7");
    expect(refused.status).toBe(503);
    expectProblem(refused);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await json(refused)).detail).toContain("32 open streams");
    // Either spelling of the address is the same client.
    expect((await openFrom(hub, "::ffff:198.51.100.7")).status).toBe(503);
    const other = await openFrom(hub, "198.51.100.8");
    expect(other.status).toBe(200);
    await mine[0]?.close();
    const again = await openFrom(hub, "198.51.100.7");
    expect(again.status).toBe(200);
    expect((await openFrom(hub, "198.51.100.7")).status).toBe(503);
    const warned = lines.filter((l) => l.msg === "refused at a limit");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ level: "warn", ip: "198.51.100.7", status: 503 });
    expect(String(warned[0]?.reason)).toContain("MAX_STREAMS_PER_CLIENT");
    expect(lines.some((l) => l.level === "error" || l.msg === "storage unavailable")).toBe(false);
    for (const reader of mine.slice(1)) await reader.close();
    await new SseReader(again).close();
    await other.body?.cancel();
    expect(hub.ctx.streams.openCount).toBe(0);
    expect(hub.ctx.streams.clientCount).toBe(0);
  });

  test("an IPv6 client is one client across its /64", async () => {
    const hub = testHub({ env: { MAX_STREAMS_PER_CLIENT: "2" } });
    const a = await openFrom(hub, "2001:db8:1:2::10");
    const b = await openFrom(hub, "2001:db8:1:2:ffff::1");
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await openFrom(hub, "2001:db8:1:2::99")).status).toBe(503);
    const elsewhere = await openFrom(hub, "2001:db8:1:3::10");
    expect(elsewhere.status).toBe(200);
    for (const response of [a, b, elsewhere]) await response.body?.cancel();
  });

  test("thousands of streams opened and dropped leave nothing behind", async () => {
    const hub = testHub({ env: { MAX_STREAMS_PER_CLIENT: "1000" } });
    for (let round = 0; round < 5; round++) {
      const controllers: AbortController[] = [];
      const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
      for (let i = 0; i < 1000; i++) {
        const abort = new AbortController();
        const response = await open(hub, {}, abort.signal);
        expect(response.status).toBe(200);
        if (i % 2 === 0) controllers.push(abort);
        else readers.push((response.body as ReadableStream<Uint8Array>).getReader());
      }
      expect(hub.ctx.streams.openCount).toBe(1000);
      for (const abort of controllers) abort.abort();
      await Promise.all(readers.map((r) => r.cancel()));
      await Bun.sleep(0);
      expect(hub.ctx.streams.openCount).toBe(0);
      expect(hub.ctx.streams.clientCount).toBe(0);
    }
  });

  // Dropping such a client needs a socket that stops draining: test/e2e/stream-stalls.test.ts runs that against dist/hub.
  test("a client that stops reading never delays the others: they get every message", async () => {
    const hub = testHub();
    const stuck = await open(hub);
    const reader = new SseReader(await open(hub));
    await reader.nextMessage();
    const base = Date.now();
    for (let i = 0; i < 1000; i++) {
      hub.ctx.live.offer("Windows", "eu-west-1", { id: i, survivor: i % 1000, killer: 0, ratio: 1, measuredAt: base + i, version: null, category: null, agentId: null, activeEvent: null });
      hub.ctx.live.flush();
      const message = await reader.nextMessage(200);
      expect(JSON.parse(message?.data ?? "{}").regions[0].survivor).toBe(i % 1000);
    }
    await reader.close();
    await stuck.body?.cancel().catch(() => {});
  });

  test("turning stale is pushed on time by the timer, without a new reading", async () => {
    const hub = testHub({ env: { STALE_AFTER_SECONDS: "60" } });
    const agent = addAgent(hub, "eu-west-1");
    await post(hub, agent, reading("Windows", "eu-west-1", Date.now() - 60_000 + 150));
    const sse = new SseReader(await open(hub));
    const fresh = JSON.parse((await sse.nextMessage())?.data ?? "{}");
    expect(fresh.status).toBe("ok");
    hub.start();
    try {
      const pushed = JSON.parse((await sse.nextMessage(1000))?.data ?? "{}");
      expect(pushed.status).toBe("degraded");
      expect(pushed.regions[0].stale).toBe(true);
    } finally {
      await hub.stop();
    }
    expect(MAX_TICK_MS).toBeLessThanOrEqual(30_000);
  });

  test("an admin event starting and ending is pushed on time", async () => {
    const hub = testHub();
    const now = Date.now();
    hub.ctx.db.sqlite
      .query("INSERT INTO events (key, label, multiplier, starts_at, ends_at, platforms, created_at, updated_at) VALUES ('bp', 'Bloodpoints', 2, ?, ?, NULL, 0, 0)")
      .run(now + 150, now + 400);
    hub.reloadExternal();
    const sse = new SseReader(await open(hub));
    expect(JSON.parse((await sse.nextMessage())?.data ?? "{}").activeEvent).toBeNull();
    hub.start();
    try {
      expect(JSON.parse((await sse.nextMessage(1000))?.data ?? "{}").activeEvent?.key).toBe("bp");
      expect(JSON.parse((await sse.nextMessage(1000))?.data ?? "{}").activeEvent).toBeNull();
    } finally {
      await hub.stop();
    }
  });

  test("the revision never goes backwards across a restart", async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "hub.db");
      let now = Date.parse("2026-11-21T18:00:00.000Z");
      const first = testHub({ db: openDatabase(path), now: () => now });
      const agent = addAgent(first, "eu-west-1");
      await post(first, agent, reading("Windows", "eu-west-1", now));
      for (let i = 0; i < 50; i++) first.ctx.live.offer("Windows", "eu-west-1", { id: i, survivor: i, killer: 0, ratio: 1, measuredAt: now + i + 1, version: null, category: null, agentId: null, activeEvent: null });
      const before = first.ctx.live.current("Windows").revision;
      first.ctx.db.sqlite.close();
      now += 1;
      const second = testHub({ db: openDatabase(path), now: () => now });
      const after = second.ctx.live.current("Windows").revision;
      expect(after).toBeGreaterThan(before);
      const payload = await json<{ regions: { killer: number; isReal: boolean }[] }>(await call(second, "GET", "/api/v1/platforms/Windows/incentives"));
      expect(payload.regions[0]).toMatchObject({ killer: 50, isReal: true });
      second.ctx.db.sqlite.close();
    } finally {
      dir.cleanup();
    }
  });
});
