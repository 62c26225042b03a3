/**
 * One webhook attempt on the wire (SPEC §18): connected to the checked
 * address with the name kept for Host and TLS, redirects followed at most
 * three times and each checked again, a time limit, and only the start of a
 * reply read.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Resolve } from "../../src/alerts/guard.ts";
import { resolveWithBun } from "../../src/alerts/guard.ts";
import { deliver, pinnedRequest, type Fetcher, type TransportOptions } from "../../src/alerts/transport.ts";

const REQUEST = { headers: { "content-type": "application/json" }, body: '{"type":"test"}' };

const NAMES: Record<string, readonly string[]> = {
  "public.test": ["93.184.215.14"],
  "next.test": ["93.184.215.15"],
  "internal.test": ["192.168.1.10"],
  "mixed.test": ["93.184.215.14", "10.1.1.1"],
};
const resolve: Resolve = async (hostname) => {
  const found = NAMES[hostname];
  if (!found) throw new Error("ENOTFOUND");
  return found;
};

interface Seen {
  readonly url: string;
  readonly host: string | null;
  readonly serverName: string | null;
  readonly method: string | undefined;
  readonly body: unknown;
}

/** A network in a box: answers by "host path", records what the hub asked of it. */
function network(routes: Record<string, () => Response>): { fetch: Fetcher; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: Fetcher = async (url, init) => {
    const headers = new Headers(init.headers);
    const host = headers.get("host");
    seen.push({ url, host, serverName: init.tls?.serverName ?? null, method: init.method, body: init.body });
    const route = routes[`${host} ${new URL(url).pathname}`];
    if (!route) throw Object.assign(new Error(`connect ECONNREFUSED ${url}`), { code: "ConnectionRefused" });
    return route();
  };
  return { fetch, seen };
}

const options = (overrides: Partial<TransportOptions>): TransportOptions => ({
  allowPrivate: false,
  timeoutMs: 2000,
  maxRedirects: 3,
  bodyCapBytes: 4096,
  resolve,
  fetch: network({}).fetch,
  ...overrides,
});

const redirect = (location: string, status = 307) => () => new Response(null, { status, headers: { location } });
const stop = new AbortController().signal;

describe("pinning the checked address", () => {
  test("the request goes to the address, with the name as Host and, over TLS, as the certificate's name", () => {
    expect(pinnedRequest(new URL("https://hooks.example.org/in?x=1"), "93.184.215.14")).toEqual({
      url: "https://93.184.215.14/in?x=1",
      host: "hooks.example.org",
      serverName: "hooks.example.org",
    });
    expect(pinnedRequest(new URL("http://hooks.example.org:8080/in"), "2606:4700::1")).toEqual({ url: "http://[2606:4700::1]:8080/in", host: "hooks.example.org:8080", serverName: null });
    expect(pinnedRequest(new URL("https://93.184.215.14/in"), "93.184.215.14")).toEqual({ url: "https://93.184.215.14/in", host: "93.184.215.14", serverName: null });
  });

  test("delivered to the resolved address; the body and method are sent as given", async () => {
    const net = network({ "public.test /hook": () => new Response(null, { status: 204 }) });
    const outcome = await deliver("https://public.test/hook", REQUEST, options({ fetch: net.fetch }), stop);
    expect(outcome).toEqual({ delivered: true, statusCode: 204, error: null });
    expect(net.seen).toEqual([{ url: "https://93.184.215.14/hook", host: "public.test", serverName: "public.test", method: "POST", body: REQUEST.body }]);
  });
});

describe("redirects", () => {
  test("followed, each target checked again, at most three", async () => {
    const net = network({
      "public.test /hook": redirect("https://next.test/moved"),
      "next.test /moved": redirect("/final", 308),
      "next.test /final": () => new Response("ok"),
    });
    expect(await deliver("http://public.test/hook", REQUEST, options({ fetch: net.fetch }), stop)).toEqual({ delivered: true, statusCode: 200, error: null });
    expect(net.seen.map((s) => [s.url, s.host, s.method, s.body])).toEqual([
      ["http://93.184.215.14/hook", "public.test", "POST", REQUEST.body],
      ["https://93.184.215.15/moved", "next.test", "POST", REQUEST.body],
      ["https://93.184.215.15/final", "next.test", "POST", REQUEST.body],
    ]);

    const loop = network({ "public.test /hook": redirect("/hook") });
    expect(await deliver("http://public.test/hook", REQUEST, options({ fetch: loop.fetch }), stop)).toEqual({ delivered: false, statusCode: 307, error: "more than 3 redirects" });
    expect(loop.seen.length).toBe(4);
  });

  test("a redirect from an allowed target to a private one is refused, and nothing is sent there", async () => {
    for (const location of ["http://10.0.0.1/x", "http://169.254.169.254/latest/meta-data/", "http://[::1]:8080/", "http://internal.test/", "http://mixed.test/", "http://localhost/"]) {
      const net = network({ "public.test /hook": redirect(location) });
      const outcome = await deliver("http://public.test/hook", REQUEST, options({ fetch: net.fetch }), stop);
      expect({ location, delivered: outcome.delivered, error: outcome.error }).toEqual({ location, delivered: false, error: expect.stringMatching(/^refused/) });
      expect(net.seen.length).toBe(1);
    }
    const net = network({ "public.test /hook": redirect("ftp://public.test/x") });
    expect((await deliver("http://public.test/hook", REQUEST, options({ fetch: net.fetch }), stop)).error).toBe("redirected to a URL that is not http or https");
  });

  test("a private target is refused before any request, unless the operator allows it", async () => {
    const net = network({ "10.0.0.1 /hook": () => new Response(null, { status: 204 }) });
    const refused = await deliver("http://10.0.0.1/hook", REQUEST, options({ fetch: net.fetch }), stop);
    expect(refused).toEqual({ delivered: false, statusCode: null, error: expect.stringContaining("WEBHOOK_ALLOW_PRIVATE") });
    expect(net.seen).toEqual([]);
    expect((await deliver("http://10.0.0.1/hook", REQUEST, options({ fetch: net.fetch, allowPrivate: true }), stop)).delivered).toBe(true);
  });
});

describe("failures, in words that never repeat the URL", () => {
  test("a refused connection and a non-2xx reply", async () => {
    const net = network({ "public.test /down": () => new Response("Unknown Webhook\n\tgone", { status: 404 }) });
    expect(await deliver("https://public.test/secret-token", REQUEST, options({ fetch: net.fetch }), stop)).toEqual({ delivered: false, statusCode: null, error: "request failed (ConnectionRefused)" });
    expect(await deliver("https://public.test/down", REQUEST, options({ fetch: net.fetch }), stop)).toEqual({ delivered: false, statusCode: 404, error: "HTTP 404: Unknown Webhook gone" });
  });
});

describe("on a real socket", () => {
  let hits = 0;
  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request): Response | Promise<Response> {
      hits++;
      const path = new URL(request.url).pathname;
      if (path === "/host") return new Response(null, { status: request.headers.get("host") === `localhost:${server.port}` ? 204 : 421 });
      if (path === "/slow") return Bun.sleep(5000).then(() => new Response("late"));
      // An endless reply: only its start may be read.
      const chunk = new TextEncoder().encode("x".repeat(1024));
      return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }), { status: 500 });
    },
  });
  afterAll(() => server.stop(true));
  const base = `http://localhost:${server.port}`;
  const local = (overrides: Partial<TransportOptions> = {}) => options({ allowPrivate: true, resolve: resolveWithBun, fetch, ...overrides });

  test("a name is resolved and connected to by address, keeping its Host", async () => {
    const outcome = await deliver(`${base}/host`, REQUEST, local(), stop);
    expect(outcome).toEqual({ delivered: true, statusCode: 204, error: null });
  });

  test("an endless reply is read only up to the cap, and the attempt ends at once", async () => {
    const started = performance.now();
    const outcome = await deliver(`${base}/endless`, REQUEST, local({ bodyCapBytes: 4096 }), stop);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(outcome.delivered).toBe(false);
    expect(outcome.statusCode).toBe(500);
    expect(outcome.error?.length ?? 0).toBeLessThan(400);
  });

  test("no reply within the time limit is a failure; so is the hub stopping", async () => {
    const started = performance.now();
    expect(await deliver(`${base}/slow`, REQUEST, local({ timeoutMs: 200 }), stop)).toEqual({ delivered: false, statusCode: null, error: "no reply within 0.2 s" });
    expect(performance.now() - started).toBeLessThan(2000);
    const stopping = new AbortController();
    setTimeout(() => stopping.abort(), 50);
    expect((await deliver(`${base}/slow`, REQUEST, local(), stopping.signal)).error).toMatch(/hub shut down/);
    expect(hits).toBeGreaterThan(0);
  });
});
