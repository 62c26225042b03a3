/**
 * The web app's budgets (SPEC §17), measured in Debian's Chromium against a
 * freshly compiled binary, each figure beside a baseline from the same run:
 * the board's first load in compressed bytes (against the same files
 * uncompressed), the region page's extra code, the time to the first
 * populated board (against DOMContentLoaded of the same loads and a trivial
 * static page), the main-thread time a 45-region stream message takes to
 * apply (against JSON.parse of the same payload), and the page's heap over
 * 10,000 messages (against 10,000 parses alone).
 *
 * The hub runs with 30 regions added by a config file and 45 provisioned
 * Steam agents, each with one real reading, so the board shows 45 real cards.
 */
import { existsSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { buildHub, checkLatencies, fmt, freePort, median, percentile, printBenchRows, scratch, startProcess, type BenchRow, type Running } from "./common.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const EXTRA_REGIONS = 30;
const LOADS = 10;
const MESSAGES = 500;
/** Messages applied before the timed ones, so the JIT and Preact's pools are warm. */
const MESSAGE_WARMUP = 20;
const HEAP_WARMUP = 1_000;
const HEAP_MESSAGES = 10_000;
/**
 * After forced GC the heap still ends some tens of KB apart from one reading to the next (code the JIT compiled meanwhile,
 * caches); 5 % of a heap of about 2.5 MB is above that, and far below a leak of anything per message: one payload a
 * message would be 80 MB, a dozen bytes a message already 120 KB.
 */
const HEAP_GROWTH_BUDGET = 0.05;
/** Code loading has settled once no document, script or stylesheet has been in flight for this long. */
const QUIET_MS = 500;
const CODE_TYPES = new Set(["document", "script", "stylesheet"]);

const EXTRA = Array.from({ length: EXTRA_REGIONS }, (_, i) => ({ id: `xx-bench-${i + 1}`, name: `Bench region ${i + 1}`, tz: "Europe/Berlin", flag: "DE" }));
const AGENTS = [...BUILT_IN_REGIONS.map((r) => r.id), ...EXTRA.map((r) => r.id)].map((region, i) => ({
  id: `web-${i}`,
  token: `web-bench-token-${String(i).padStart(3, "0")}-abcdefgh`,
  region,
}));
const REGIONS = AGENTS.length;

/** The config file: YAML, with each string written as a JSON string (valid YAML) so nothing needs escaping rules of its own. */
function configYaml(): string {
  const q = (value: string) => JSON.stringify(value);
  return [
    "regions:",
    ...EXTRA.map((r) => `  - { id: ${q(r.id)}, name: ${q(r.name)}, tz: ${q(r.tz)}, flag: ${q(r.flag)} }`),
    "provision:",
    ...AGENTS.map((a) => `  - { id: ${q(a.id)}, token: ${q(a.token)}, region: ${q(a.region)}, provider: steam }`),
    "",
  ].join("\n");
}

async function seedReadings(url: string): Promise<void> {
  for (const [i, agent] of AGENTS.entries()) {
    const response = await fetch(`${url}/api/v1/agent/readings`, {
      method: "POST",
      headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
      body: JSON.stringify({ region: agent.region, platform: "Windows", survivor: (i % 4) * 25, killer: ((i + 1) % 3) * 25, ratio: 0.5 + (i % 10) / 5, isReal: true, measuredAt: new Date().toISOString() }),
    });
    if (response.status !== 201) throw new Error(`reading for ${agent.region} refused: ${response.status} ${await response.text()}`);
  }
}

function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === "data:" || protocol === "blob:" || protocol === "about:") return true;
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

/** What the init script leaves on the page for the bench to read. */
interface BenchGlobals {
  /** performance.now() when the first article.card entered the DOM, -1 until then. */
  firstCard: number;
  /** Every EventSource the page opened, oldest first. */
  sources: EventSource[];
}
type BenchWindow = Window & { __webBench?: BenchGlobals };

/**
 * Runs before any of the page's own scripts (an init script, which the page's
 * CSP does not govern): remembers every EventSource the app opens, so the
 * bench can hand it messages, and notes when the first card appears. A
 * MutationObserver's callback runs in the microtask right after the DOM
 * change, so the time is that of the commit that added the card.
 */
function instrument(): void {
  const globals: BenchGlobals = { firstCard: -1, sources: [] };
  (window as BenchWindow).__webBench = globals;
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(url: string | URL, init?: EventSourceInit) {
      super(url, init);
      globals.sources.push(this);
    }
  };
  const observer = new MutationObserver(() => {
    if (document.querySelector("article.card")) {
      globals.firstCard = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { childList: true, subtree: true });
}

async function newContext(browser: Browser, leaks: string[]): Promise<BrowserContext> {
  // A fixed locale and time zone, so every load picks the same language and "your region".
  const context = await browser.newContext({ locale: "en-US", timezoneId: "Europe/Berlin", serviceWorkers: "block" });
  context.on("request", (request) => {
    if (!isLoopback(request.url())) leaks.push(request.url());
  });
  await context.addInitScript(instrument);
  return context;
}

/**
 * Every request that leaves loopback goes to a proxy on a port nothing
 * listens on, so it fails at once; loopback bypasses it. Unlike intercepting
 * each request in Playwright (which would add a round trip to every request
 * and disable the HTTP cache), this blocks without touching the timings.
 */
async function launchBrowser(): Promise<Browser> {
  const deadPort = await freePort();
  return await chromium.launch({
    executablePath: CHROMIUM,
    proxy: { server: `http://127.0.0.1:${deadPort}`, bypass: "127.0.0.1,localhost,[::1]" },
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Proves the block: a page outside loopback must fail on the dead proxy, not load, and not fail for another reason. */
async function checkBlocked(browser: Browser): Promise<void> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const outcome = await page.goto("http://192.0.2.1/", { timeout: 5_000 }).then(
      () => "loaded",
      (error: unknown) => String(error),
    );
    if (!outcome.includes("ERR_PROXY_CONNECTION_FAILED")) throw new Error(`a non-loopback request was not blocked by the dead proxy: ${outcome}`);
  } finally {
    await context.close();
  }
}

interface Transfer {
  readonly url: string;
  readonly type: string;
  /** Body bytes as they crossed the wire (compressed). */
  readonly encoded: number;
  /** Body bytes once decoded. */
  readonly decoded: number;
}

/** Records the page's HTML, JS and CSS responses from now on, and tells when their loading has gone quiet. */
function watchCode(page: Page): { take: () => Promise<Transfer[]>; quiet: () => Promise<void> } {
  let pending: Promise<Transfer>[] = [];
  let inFlight = 0;
  let lastChange = performance.now();
  page.on("request", (request) => {
    if (!CODE_TYPES.has(request.resourceType())) return;
    inFlight++;
    lastChange = performance.now();
  });
  const settled = (request: { resourceType(): string }) => {
    if (!CODE_TYPES.has(request.resourceType())) return;
    inFlight--;
    lastChange = performance.now();
  };
  page.on("requestfinished", settled);
  page.on("requestfailed", settled);
  page.on("response", (response) => {
    const request = response.request();
    if (!CODE_TYPES.has(request.resourceType())) return;
    const transfer = Promise.all([request.sizes(), response.body()]).then(([sizes, body]) => ({
      url: response.url(),
      type: request.resourceType(),
      encoded: sizes.responseBodySize,
      decoded: body.byteLength,
    }));
    // A response still being read when its context closes rejects; only one that was taken (and awaited) may fail the bench.
    transfer.catch(() => undefined);
    pending.push(transfer);
  });
  return {
    async take() {
      const taken = await Promise.all(pending);
      pending = [];
      return taken;
    },
    async quiet() {
      const deadline = performance.now() + 15_000;
      while (inFlight > 0 || performance.now() - lastChange < QUIET_MS) {
        if (performance.now() > deadline) throw new Error("the page's code never stopped loading");
        await Bun.sleep(25);
      }
    },
  };
}

const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;
const sum = (transfers: readonly Transfer[], key: "encoded" | "decoded") => transfers.reduce((total, t) => total + t[key], 0);

function describeFiles(transfers: readonly Transfer[]): string {
  const count = (type: string) => transfers.filter((t) => t.type === type).length;
  const parts = [count("document") ? "HTML" : "", count("script") ? `${count("script")} JS` : "", count("stylesheet") ? `${count("stylesheet")} CSS` : ""];
  return parts.filter((p) => p !== "").join(" + ");
}

function largest(transfers: readonly Transfer[]): string {
  const top = [...transfers].sort((a, b) => b.encoded - a.encoded)[0];
  return top ? `${new URL(top.url).pathname} ${kb(top.encoded)} (${kb(top.decoded)} raw)` : "none";
}

interface Tour {
  readonly board: Transfer[];
  readonly region: Transfer[];
}

/** A fresh context opens the board, then follows a card's link into its region page inside the app. */
async function tour(browser: Browser, url: string, leaks: string[]): Promise<Tour> {
  const context = await newContext(browser, leaks);
  try {
    const page = await context.newPage();
    const code = watchCode(page);
    await page.goto(`${url}/Windows`);
    await page.waitForSelector("article.card");
    await code.quiet();
    const board = await code.take();
    await page.click("article.card h3 a");
    await page.waitForSelector("#history-title");
    await code.quiet();
    const region = await code.take();
    if (region.some((t) => t.type === "document")) throw new Error("following a card's link loaded a new document instead of navigating inside the app");
    return { board, region };
  } finally {
    await context.close();
  }
}

interface Load {
  readonly firstCard: number;
  readonly domContentLoaded: number;
}

/** One fresh context (empty cache) loading `url`; with `cards`, also waits for the first card. */
async function freshLoad(browser: Browser, url: string, leaks: string[], cards: boolean): Promise<Load> {
  const context = await newContext(browser, leaks);
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    if (cards) await page.waitForFunction(() => ((window as BenchWindow).__webBench?.firstCard ?? -1) >= 0, undefined, { timeout: 15_000 });
    return await page.evaluate(() => {
      const navigation = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
      return { firstCard: (window as BenchWindow).__webBench?.firstCard ?? -1, domContentLoaded: navigation?.domContentLoadedEventEnd ?? Number.NaN };
    });
  } finally {
    await context.close();
  }
}

interface Loads {
  readonly firstCard: number[];
  readonly domContentLoaded: number[];
  readonly trivial: number[];
}

/** LOADS fresh loads of the board and of a trivial page, alternating so the machine's drift hits both alike; one of each first to warm up. */
async function loads(browser: Browser, url: string, leaks: string[]): Promise<Loads> {
  const trivialServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response("<!doctype html><html lang=en><title>trivial</title><p>A trivial page.</p>", { headers: { "content-type": "text/html; charset=utf-8" } }),
  });
  try {
    const result: Loads = { firstCard: [], domContentLoaded: [], trivial: [] };
    for (let i = 0; i <= LOADS; i++) {
      const board = await freshLoad(browser, `${url}/Windows`, leaks, true);
      const trivial = await freshLoad(browser, `http://127.0.0.1:${trivialServer.port}/`, leaks, false);
      if (i === 0) continue;
      result.firstCard.push(board.firstCard);
      result.domContentLoaded.push(board.domContentLoaded);
      result.trivial.push(trivial.domContentLoaded);
    }
    return result;
  } finally {
    await trivialServer.stop(true);
  }
}

interface MessageTimes {
  /** From just before dispatch until Preact has committed the render. */
  readonly apply: number[];
  /** The same, plus the style and layout the change forces. */
  readonly layout: number[];
  /** JSON.parse of the same payload, measured the same way. */
  readonly parse: number[];
  /** Messages after which the first card's text had not changed (the render had not flushed in time). */
  readonly unchanged: number;
}

/** The in-page part of the stream figures. Serialised into the page, so it uses nothing from outside its own body. */
interface InPageArgs {
  readonly base: string;
  readonly count: number;
  readonly warmup: number;
  readonly mode: "time" | "apply" | "parse";
  readonly offset: number;
}

async function inPage(args: InPageArgs): Promise<MessageTimes> {
  const source = (window as BenchWindow).__webBench?.sources.at(-1);
  if (!source) throw new Error("the page opened no EventSource");
  const template = JSON.parse(args.base) as { regions: { survivor: number; killer: number }[] };
  // Every region changes in every message: the survivor bonus cycles through four levels and the killer's through three, out of step.
  const payloadAt = (i: number): string => {
    template.regions.forEach((r, k) => {
      r.survivor = 25 * ((i + k) % 4);
      r.killer = 25 * ((i + 2 * k + 1) % 3);
    });
    return JSON.stringify(template);
  };
  // Preact renders in a queueMicrotask after the signal changes, and @preact/signals applies text bindings two microtasks later;
  // eight microtask turns let every such chain finish within the same task. A task-based wait (setTimeout, MessageChannel) or a
  // requestAnimationFrame would let the browser render a frame, or run unrelated tasks, inside the measured time.
  const drain = async () => {
    for (let n = 0; n < 8; n++) await Promise.resolve();
  };
  // Each timed message starts in a task of its own after a rendered frame, as a message from the network would.
  const afterFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const dispatch = (data: string) => source.dispatchEvent(new MessageEvent("message", { data }));
  const result = { apply: [] as number[], layout: [] as number[], parse: [] as number[], unchanged: 0 };
  if (args.mode !== "time") {
    // The heap figures: many messages back to back, a frame every hundred so the page also renders as it would.
    for (let i = 0; i < args.count; i++) {
      const data = payloadAt(args.offset + i);
      if (args.mode === "apply") dispatch(data);
      else JSON.parse(data);
      await drain();
      if (i % 100 === 99) await afterFrame();
    }
    return result;
  }
  // Payloads are made before timing, so stringifying them is not measured. A page that is not cross-origin isolated
  // sees performance.now() in steps of 0.1 ms, so the baseline's small figures are only good to that step.
  const payloads = Array.from({ length: args.warmup + args.count }, (_, i) => payloadAt(args.offset + i));
  for (const [i, data] of payloads.entries()) {
    await afterFrame();
    const before = document.querySelector("article.card")?.textContent;
    const t0 = performance.now();
    dispatch(data);
    await drain();
    const t1 = performance.now();
    // Reading a layout property forces the style and layout the new DOM needs, which the next frame would otherwise do.
    document.body.getBoundingClientRect();
    const t2 = performance.now();
    const changed = document.querySelector("article.card")?.textContent !== before;
    // The baseline alternates with the real thing, so the machine's drift hits both alike.
    await afterFrame();
    const p0 = performance.now();
    JSON.parse(data);
    await drain();
    const p1 = performance.now();
    if (i < args.warmup) continue;
    result.apply.push(t1 - t0);
    result.layout.push(t2 - t0);
    result.parse.push(p1 - p0);
    if (!changed) result.unchanged++;
  }
  return result;
}

interface Heap {
  readonly jsBefore: number;
  readonly jsAfter: number;
  readonly jsAfterParse: number;
  readonly domBefore: number;
  readonly domAfter: number;
  readonly nodesBefore: number;
  readonly nodesAfter: number;
}

interface Stream {
  readonly times: MessageTimes;
  readonly heap: Heap;
  readonly payloadBytes: number;
}

/** Only the timed messages of the stream figure, for the run beside a CPU-bound process. */
async function streamTimes(browser: Browser, url: string, leaks: string[]): Promise<MessageTimes> {
  const context = await newContext(browser, leaks);
  try {
    const page = await context.newPage();
    await page.goto(`${url}/Windows`);
    await page.waitForFunction((n) => document.querySelectorAll("article.card").length === n, REGIONS, { timeout: 15_000 });
    await page.waitForFunction(() => (window as BenchWindow).__webBench?.sources.at(-1)?.readyState === EventSource.OPEN, undefined, { timeout: 15_000 });
    const base = await (await fetch(`${url}/api/v1/platforms/Windows/incentives`)).text();
    return await page.evaluate<MessageTimes, InPageArgs>(inPage, { base, count: MESSAGES, warmup: MESSAGE_WARMUP, mode: "time", offset: 0 });
  } finally {
    await context.close();
  }
}

/**
 * Runs `measure` beside a process that keeps one core busy (SPEC §17.1: a
 * busy machine), pinned to the second core when taskset is there.
 */
async function besideCpuHog<T>(measure: () => Promise<T>): Promise<T> {
  const spin = [process.execPath, "-e", "for (;;) {}"];
  const taskset = Bun.which("taskset");
  const hog = Bun.spawn(taskset ? [taskset, "-c", "1", ...spin] : spin, { stdout: "ignore", stderr: "ignore" });
  try {
    await Bun.sleep(300);
    return await measure();
  } finally {
    hog.kill();
    await hog.exited;
  }
}

async function stream(browser: Browser, url: string, leaks: string[]): Promise<Stream> {
  const context = await newContext(browser, leaks);
  try {
    const page = await context.newPage();
    await page.goto(`${url}/Windows`);
    await page.waitForFunction((n) => document.querySelectorAll("article.card").length === n, REGIONS, { timeout: 15_000 });
    await page.waitForFunction(() => (window as BenchWindow).__webBench?.sources.at(-1)?.readyState === EventSource.OPEN, undefined, { timeout: 15_000 });
    // The real payload, as the stream sends it (the stream's data is the same JSON as the endpoint's body).
    const base = await (await fetch(`${url}/api/v1/platforms/Windows/incentives`)).text();
    const times = await page.evaluate<MessageTimes, InPageArgs>(inPage, { base, count: MESSAGES, warmup: MESSAGE_WARMUP, mode: "time", offset: 0 });

    const cdp = await context.newCDPSession(page);
    const settle = async () => {
      // Three collections a moment apart, keeping the smallest reading: a single one can still hold garbage that only a
      // later one frees (weak references, finalizers) or catch a timer's short-lived allocations, and either looks like growth.
      let smallest = { js: Number.POSITIVE_INFINITY, embedder: Number.POSITIVE_INFINITY, nodes: Number.POSITIVE_INFINITY };
      for (let n = 0; n < 3; n++) {
        await cdp.send("HeapProfiler.collectGarbage");
        await Bun.sleep(50);
        const [heap, dom] = await Promise.all([cdp.send("Runtime.getHeapUsage"), cdp.send("Memory.getDOMCounters")]);
        smallest = { js: Math.min(smallest.js, heap.usedSize), embedder: Math.min(smallest.embedder, heap.embedderHeapUsedSize), nodes: Math.min(smallest.nodes, dom.nodes) };
      }
      return smallest;
    };
    await page.evaluate<MessageTimes, InPageArgs>(inPage, { base, count: HEAP_WARMUP, warmup: 0, mode: "apply", offset: 0 });
    const before = await settle();
    await page.evaluate<MessageTimes, InPageArgs>(inPage, { base, count: HEAP_MESSAGES, warmup: 0, mode: "apply", offset: HEAP_WARMUP });
    const after = await settle();
    await page.evaluate<MessageTimes, InPageArgs>(inPage, { base, count: HEAP_MESSAGES, warmup: 0, mode: "parse", offset: 0 });
    const afterParse = await settle();
    return {
      times,
      payloadBytes: new TextEncoder().encode(base).byteLength,
      heap: {
        jsBefore: before.js,
        jsAfter: after.js,
        jsAfterParse: afterParse.js,
        domBefore: before.embedder,
        domAfter: after.embedder,
        nodesBefore: before.nodes,
        nodesAfter: after.nodes,
      },
    };
  } finally {
    await context.close();
  }
}

const signedKb = (bytes: number) => `${bytes >= 0 ? "+" : "−"}${fmt(Math.abs(bytes) / 1024)} KB`;
// One decimal: performance.now() in the page moves in steps of 0.1 ms.
const msTriple = (values: readonly number[]) => `${fmt(median(values))} / ${fmt(percentile(values, 0.95))} / ${fmt(Math.max(...values))} ms`;

export async function webBench(): Promise<BenchRow[]> {
  // Without a browser the other benchmarks still run; the missing figures are said, not silently dropped.
  if (!existsSync(CHROMIUM)) {
    console.warn(`web bench: ${CHROMIUM} is missing (apt-get install chromium, or set CHROMIUM_PATH); the web app's figures are not measured`);
    return [{ figure: "Web app budgets", value: "not measured", budget: "—", baseline: `no browser at ${CHROMIUM}`, ratio: "—", ok: null }];
  }
  const dir = scratch("web");
  let hub: Running | null = null;
  let browser: Browser | null = null;
  try {
    const binary = join(dir.path, "hub");
    await buildHub(binary);
    const config = join(dir.path, "hub.yaml");
    writeFileSync(config, configYaml());
    const port = await freePort();
    hub = await startProcess(
      [binary, "serve", "--config", config, "--db", join(dir.path, "hub.db"), "--host", "127.0.0.1", "--port", String(port), "--log-level", "warn"],
      `http://127.0.0.1:${port}/healthz`,
      // Latency probes would time the game's servers on the internet; the bench stays on loopback.
      { PAGE_SIZE: "50", LATENCY_PROBES: "false" },
    );
    await seedReadings(hub.url);

    browser = await launchBrowser();
    await checkBlocked(browser);
    // Other work on the machine moves every time figure; the load average says how much there was.
    const loadBefore = loadavg()[0] ?? Number.NaN;
    const leaks: string[] = [];
    const visited = await tour(browser, hub.url, leaks);
    const timed = await loads(browser, hub.url, leaks);
    const live = await stream(browser, hub.url, leaks);
    const loaded = await besideCpuHog(async () => ({ timed: await loads(browser as Browser, (hub as Running).url, leaks), times: await streamTimes(browser as Browser, (hub as Running).url, leaks) }));
    const loadedFirstCard = median(loaded.timed.firstCard);
    const loadedApplyP95 = percentile(loaded.times.apply, 0.95);
    console.log(`web bench: load average ${fmt(loadBefore)} before the timed runs, ${fmt(loadavg()[0] ?? Number.NaN)} after, on ${availableParallelism()} cores`);
    if (leaks.length > 0) console.warn(`web bench: the page tried to leave loopback (blocked): ${[...new Set(leaks)].join(", ")}`);

    const boardBytes = sum(visited.board, "encoded");
    const boardRaw = sum(visited.board, "decoded");
    const regionBytes = sum(visited.region, "encoded");
    const regionRaw = sum(visited.region, "decoded");
    const firstCard = median(timed.firstCard);
    const domContentLoaded = median(timed.domContentLoaded);
    // Times from navigation start cross the loopback socket at least once; a stream message's apply does not, so it is not checked.
    await checkLatencies("first populated board, DOMContentLoaded, a trivial page, quiet and beside a CPU-bound process", [firstCard, domContentLoaded, median(timed.trivial), loadedFirstCard]);
    const applyP95 = percentile(live.times.apply, 0.95);
    const parseP95 = percentile(live.times.parse, 0.95);
    const growth = live.heap.jsAfter - live.heap.jsBefore;
    const growthShare = growth / live.heap.jsBefore;
    const noise = live.heap.jsAfterParse - live.heap.jsAfter;
    return [
      {
        figure: `Board's first load, brotli (${describeFiles(visited.board)}; largest ${largest(visited.board)})`,
        value: kb(boardBytes),
        budget: "≤ 80 KB",
        baseline: `${kb(boardRaw)} uncompressed`,
        ratio: `${fmt(boardBytes / boardRaw, 2)}×`,
        ok: boardBytes <= 80 * 1024,
      },
      {
        figure: `Region page's extra code, in-app navigation (${describeFiles(visited.region) || "nothing"}; largest ${largest(visited.region)})`,
        value: kb(regionBytes),
        budget: "≤ 60 KB",
        baseline: `${kb(regionRaw)} uncompressed`,
        ratio: regionRaw > 0 ? `${fmt(regionBytes / regionRaw, 2)}×` : "—",
        ok: regionBytes <= 60 * 1024,
      },
      {
        figure: `First populated board (${REGIONS} cards), median of ${LOADS} fresh loads, from navigation start`,
        value: `${fmt(firstCard, 0)} ms (${fmt(Math.min(...timed.firstCard), 0)}–${fmt(Math.max(...timed.firstCard), 0)})`,
        budget: "< 300 ms",
        baseline: `DOMContentLoaded ${fmt(domContentLoaded, 0)} ms; a trivial static page ${fmt(median(timed.trivial), 0)} ms`,
        ratio: `${fmt(firstCard / domContentLoaded, 2)}× DCL; ${fmt(firstCard / median(timed.trivial), 1)}× the trivial page`,
        ok: firstCard < 300,
      },
      {
        figure: `Stream message for ${REGIONS} regions (${kb(live.payloadBytes)}) applied, main thread, p50 / p95 / max of ${MESSAGES}${live.times.unchanged ? ` (${live.times.unchanged} not rendered in time)` : ""}`,
        value: msTriple(live.times.apply),
        budget: "p95 < 8 ms",
        baseline: `JSON.parse alone: ${msTriple(live.times.parse)}`,
        // The parse can take less than the timer's 0.1 ms step, so it counts as at least one step.
        ratio: `${fmt(applyP95 / Math.max(parseP95, 0.1), 1)}× p95`,
        ok: applyP95 < 8 && live.times.unchanged === 0,
      },
      {
        figure: `First populated board, beside a CPU-bound process on the other core (median of ${LOADS})`,
        value: `${fmt(loadedFirstCard, 0)} ms (${fmt(Math.min(...loaded.timed.firstCard), 0)}–${fmt(Math.max(...loaded.timed.firstCard), 0)})`,
        budget: "≤ 300 ms",
        baseline: `DOMContentLoaded ${fmt(median(loaded.timed.domContentLoaded), 0)} ms; a trivial static page ${fmt(median(loaded.timed.trivial), 0)} ms; quiet run ${fmt(firstCard, 0)} ms`,
        ratio: `${fmt(loadedFirstCard / firstCard, 2)}× quiet; ${fmt(loadedFirstCard / median(loaded.timed.trivial), 1)}× the trivial page`,
        ok: loadedFirstCard <= 300,
      },
      {
        figure: `Stream message for ${REGIONS} regions applied, beside a CPU-bound process, p50 / p95 / max of ${MESSAGES}${loaded.times.unchanged ? ` (${loaded.times.unchanged} not rendered in time)` : ""}`,
        value: msTriple(loaded.times.apply),
        budget: "p95 ≤ 8 ms",
        baseline: `JSON.parse alone: ${msTriple(loaded.times.parse)}; quiet run p95 ${fmt(applyP95)} ms`,
        ratio: `${fmt(loadedApplyP95 / Math.max(applyP95, 0.1), 2)}× quiet`,
        ok: loadedApplyP95 <= 8 && loaded.times.unchanged === 0,
      },
      {
        figure: "The same, with the style and layout it forces",
        value: msTriple(live.times.layout),
        budget: "—",
        baseline: "the apply alone (row above)",
        ratio: `${fmt(percentile(live.times.layout, 0.95) / applyP95, 2)}× p95`,
        ok: null,
      },
      {
        figure: `Page heap over ${HEAP_MESSAGES.toLocaleString("en")} stream messages after ${HEAP_WARMUP.toLocaleString("en")} warm-up, forced GC (JS heap; Blink's DOM heap ${signedKb(live.heap.domAfter - live.heap.domBefore)}, nodes ${live.heap.nodesBefore} → ${live.heap.nodesAfter})`,
        value: `${signedKb(growth)} (${growth >= 0 ? "+" : "−"}${fmt(Math.abs(growthShare) * 100, 2)} % of ${kb(live.heap.jsBefore)}; ${fmt(growth / HEAP_MESSAGES, 1)} B a message)`,
        budget: `growth < ${fmt(HEAP_GROWTH_BUDGET * 100, 0)} %`,
        baseline: `${signedKb(noise)} over ${HEAP_MESSAGES.toLocaleString("en")} JSON.parse alone`,
        ratio: "—",
        ok: growthShare < HEAP_GROWTH_BUDGET,
      },
    ];
  } finally {
    await browser?.close();
    await hub?.stop();
    dir.cleanup();
  }
}

if (import.meta.main) printBenchRows("Web app", await webBench());
