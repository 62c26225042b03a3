/**
 * A real push service for tests: npm web-push-testing (it makes
 * subscriptions, checks the VAPID JWT and decrypts every message) on
 * loopback, behind a small TLS front with a self-signed certificate, since
 * the hub sends only to https endpoints. The front records each request's
 * headers and can play a service that refuses or is down.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface RecordedPush {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly status: number;
}

export interface TestSubscription {
  readonly endpoint: string;
  readonly keys: { p256dh: string; auth: string };
  readonly clientHash: string;
}

/** An answer the front gives instead of passing a request on. */
export interface ForcedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const SERVER_SCRIPT = join(import.meta.dir, "..", "node_modules", "web-push-testing", "src", "bin", "server.js");

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl. */
export function selfSignedCertificate(dir: string): { certPath: string; keyPath: string; cert: string; key: string } {
  const certPath = join(dir, "push-cert.pem");
  const keyPath = join(dir, "push-key.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyPath, "-out", certPath,
    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
  ], { stdio: "ignore" });
  return { certPath, keyPath, cert: readFileSync(certPath, "utf8"), key: readFileSync(keyPath, "utf8") };
}

export class PushService {
  readonly recorded: RecordedPush[] = [];
  /** Answers given, in order, to the next requests, instead of passing them on. */
  readonly forced: ForcedAnswer[] = [];
  private constructor(
    private readonly child: ChildProcess,
    private readonly innerPort: number,
    private readonly front: ReturnType<typeof Bun.serve>,
    readonly cert: string,
    readonly certPath: string,
  ) {}

  static async start(dir: string): Promise<PushService> {
    const innerPort = await freePort();
    const child = spawn("node", [SERVER_SCRIPT, String(innerPort)], { stdio: "ignore" });
    const { cert, key, certPath } = selfSignedCertificate(dir);
    const inner = `http://127.0.0.1:${innerPort}`;
    let service: PushService | null = null;
    const front = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert, key },
      fetch: async (request) => {
        const url = new URL(request.url);
        const headers: Record<string, string> = {};
        request.headers.forEach((value, name) => (headers[name] = value));
        const forced = service?.forced.shift();
        if (forced) {
          service?.recorded.push({ path: url.pathname, headers, status: forced.status });
          return new Response(forced.body ?? "", { status: forced.status, headers: forced.headers });
        }
        const passed = await fetch(`${inner}${url.pathname}`, { method: request.method, headers: request.headers, body: await request.arrayBuffer() });
        service?.recorded.push({ path: url.pathname, headers, status: passed.status });
        return new Response(await passed.arrayBuffer(), { status: passed.status, headers: { "content-type": passed.headers.get("content-type") ?? "text/plain" } });
      },
    });
    service = new PushService(child, innerPort, front, cert, certPath);
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${inner}/status`, { method: "POST" })).ok) break;
      } catch {
        // not listening yet
      }
      if (i > 200) throw new Error("web-push-testing did not start");
      await Bun.sleep(50);
    }
    return service;
  }

  get port(): number {
    return this.front.port ?? 0;
  }

  /** A subscription for the hub's key, its endpoint moved behind the TLS front. */
  async subscribe(applicationServerKey: string): Promise<TestSubscription> {
    const response = await fetch(`http://127.0.0.1:${this.innerPort}/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userVisibleOnly: "true", applicationServerKey }),
    });
    const { data } = (await response.json()) as { data: { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string } };
    const endpoint = new URL(data.endpoint);
    return { endpoint: `https://localhost:${this.port}${endpoint.pathname}`, keys: data.keys, clientHash: data.clientHash };
  }

  /** What the service decrypted for a subscription, in order. */
  async messages(clientHash: string): Promise<string[]> {
    const response = await fetch(`http://127.0.0.1:${this.innerPort}/get-notifications`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ clientHash }),
    });
    if (!response.ok) return [];
    const { data } = (await response.json()) as { data: { messages: string[] } };
    return data.messages;
  }

  async expire(clientHash: string): Promise<void> {
    await fetch(`http://127.0.0.1:${this.innerPort}/expire-subscription/${clientHash}`, { method: "POST" });
  }

  stop(): void {
    this.front.stop(true);
    this.child.kill();
  }
}

/** The claims of a VAPID Authorization header (`vapid t=<jwt>, k=<key>`). */
export function vapidClaims(authorization: string): { aud: string; exp: number; sub: string; key: string } {
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(authorization);
  if (!match?.[1] || !match[2]) throw new Error(`not a VAPID header: ${authorization}`);
  const [, payload = ""] = match[1].split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { aud: string; exp: number; sub: string };
  return { ...claims, key: match[2] };
}
