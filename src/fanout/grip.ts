/**
 * GRIP (SPEC §20): streams held by realtime proxies such as Pushpin or
 * Fastly Fanout. A stream request signed by a proxy is answered with hold
 * instructions and the catch-up bytes a direct client would get; every
 * content change is then published once to each proxy, which fans it out.
 * The live store and the direct streams know nothing of this.
 */
import type { Publisher } from "@fanoutio/grip";
import type { Config } from "../config/load.ts";
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";
import type { LiveStore, Published } from "../live/store.ts";
import { firstBytes, PING_INTERVAL_MS, STREAM_HEADERS } from "../live/streams.ts";
import type { Logger } from "../log.ts";
import type { GripProxyCounters } from "../metrics.ts";

/** How long a change is retried against a proxy that does not take it. */
export const PUBLISH_RETRY_MS = 60_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
const PUBLISH_TIMEOUT_MS = 10_000;
/** Changes queued per proxy; beyond it the oldest goes, and the proxy recovers it through the next link (prev-id). */
const MAX_QUEUED = 256;
/** The `: ping` comment of a direct stream, as a cstring escape, sent after as many seconds of silence. */
const KEEP_ALIVE = `: ping\\n\\n; format=cstring; timeout=${PING_INTERVAL_MS / 1000}`;
const NOTHING = new Uint8Array(0);
const decoder = new TextDecoder();

export function gripChannel(platform: Platform): string {
  return `incentives.${platform}`;
}

/** The last id a proxy already holds for the channel, from `Grip-Last: incentives.X; last-id=N[, …]`. */
export function gripLastId(header: string | null, channel: string): string | null {
  if (header === null) return null;
  for (const entry of header.split(",")) {
    const [name, ...params] = entry.split(";").map((part) => part.trim());
    if (name !== channel) continue;
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq !== -1 && param.slice(0, eq).trim() === "last-id") return param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    }
  }
  return null;
}

/**
 * How the hub and its proxies prove themselves to each other. Pushpin uses
 * one shared key both ways; Fastly Fanout signs Grip-Sig with its own public
 * key (as `fastly:<service id>`) and takes an API token for publishes.
 */
export interface GripAuth {
  /** What Grip-Sig is checked with: a shared key, or the proxy's PEM public key. */
  readonly verifyKey: string;
  /** The issuer a Grip-Sig must name; null accepts any (a shared key signs for this hub alone). */
  readonly verifyIss: string | null;
  /** How publishes are authenticated: a JWT signed with the shared key, or a bearer token. */
  readonly publish: { readonly key: string } | { readonly token: string };
}

/** The GRIP settings in force, or null when GRIP is off (the loader has already refused a half-configured GRIP). */
export function gripAuth(config: Pick<Config, "gripUrl" | "gripKey" | "gripVerifyKey" | "gripVerifyIss" | "gripPublishToken">): GripAuth | null {
  if (config.gripUrl.length === 0) return null;
  const verifyKey = config.gripVerifyKey ?? config.gripKey;
  const publish = config.gripPublishToken !== null ? { token: config.gripPublishToken } : config.gripKey !== null ? { key: config.gripKey } : null;
  if (verifyKey === null || publish === null) return null;
  return { verifyKey, verifyIss: config.gripVerifyIss, publish };
}

interface Pending {
  readonly channel: string;
  readonly id: string;
  readonly prevId: string;
  readonly content: string;
  /** performance.now() when the change happened. */
  readonly changedAt: number;
}

let gripLibrary: Promise<typeof import("@fanoutio/grip")> | null = null;

/** @fanoutio/grip, loaded when a hub with GRIP_URL builds its fan-out: a hub without proxies does not carry it in memory. */
function gripModule(): Promise<typeof import("@fanoutio/grip")> {
  gripLibrary ??= import("@fanoutio/grip");
  return gripLibrary;
}

/** One proxy's publishes, in order, each retried with backoff until it is PUBLISH_RETRY_MS old. */
class ProxyLink {
  readonly proxy: string;
  published = 0;
  failures = 0;
  private readonly publisher: Promise<Publisher>;
  private readonly queue: Pending[] = [];
  private draining = false;
  private stopped = false;
  private wake: (() => void) | null = null;

  constructor(
    url: string,
    publish: GripAuth["publish"],
    private readonly log: Logger,
    private readonly observeLag: (seconds: number) => void,
  ) {
    this.proxy = new URL(url).host;
    // The library sends a key without an issuer as a bearer token, and one with an issuer as a JWT it signs.
    this.publisher = gripModule().then(
      ({ Publisher }) =>
        new Publisher(
          "token" in publish ? { control_uri: url, key: publish.token } : { control_uri: url, control_iss: "hub", key: publish.key },
          { fetch: Object.assign((input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, signal: AbortSignal.timeout(PUBLISH_TIMEOUT_MS) }), { preconnect: fetch.preconnect }) },
        ),
    );
  }

  enqueue(item: Pending): void {
    if (this.stopped) return;
    this.queue.push(item);
    if (this.queue.length > MAX_QUEUED) this.queue.shift();
    void this.drain();
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.wake?.();
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    let backoff = FIRST_BACKOFF_MS;
    while (!this.stopped) {
      const item = this.queue[0];
      if (!item) break;
      try {
        await (await this.publisher).publishHttpStream(item.channel, item.content, item.id, item.prevId);
        this.published++;
        this.observeLag((performance.now() - item.changedAt) / 1000);
        if (this.queue[0] === item) this.queue.shift();
        backoff = FIRST_BACKOFF_MS;
      } catch (error) {
        this.failures++;
        if (performance.now() - item.changedAt >= PUBLISH_RETRY_MS) {
          if (this.queue[0] === item) this.queue.shift();
          this.log.warn("GRIP publish given up", { proxy: this.proxy, channel: item.channel, id: item.id, error: error instanceof Error ? error.message : String(error) });
        } else {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, backoff);
            this.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wake = null;
          backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        }
      }
    }
    this.draining = false;
  }
}

/** How far ahead a Grip-Sig may expire (SPEC §16.4): Pushpin and Fastly Fanout sign for an hour. */
export const GRIP_SIG_MAX_LIFE_SECONDS = 3600;
/**
 * How far a node's clock may run ahead of the hub's: a node signs with its own time in whole seconds, so even
 * clocks NTP keeps within milliseconds differ by a second across a second's boundary.
 */
export const GRIP_SIG_CLOCK_ALLOWANCE_SECONDS = 5;

/**
 * Whether a Grip-Sig's claims say when it expires, at most an hour ahead of
 * `nowMs` (give or take the clocks' allowance): a signature without `exp`, or good for longer, would let whoever
 * once saw one claim to be the proxy for ever, so it counts as none. Whether
 * it is signed, and not yet expired, is the library's check.
 */
export function gripSigExpiresInTime(signature: string, nowMs: number): boolean {
  const claims = signature.split(".")[1];
  if (claims === undefined) return false;
  try {
    const { exp } = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { exp?: unknown };
    return typeof exp === "number" && Number.isFinite(exp) && exp - Math.floor(nowMs / 1000) <= GRIP_SIG_MAX_LIFE_SECONDS + GRIP_SIG_CLOCK_ALLOWANCE_SECONDS;
  } catch {
    return false;
  }
}

export class GripFanout {
  private readonly verifier: Promise<Publisher>;
  private readonly links: ProxyLink[];
  private readonly lastRevision = new Map<Platform, number>();
  private readonly unsubscribe: () => void;
  private holdsAnswered = 0;

  constructor(
    urls: readonly string[],
    auth: GripAuth,
    private readonly live: LiveStore,
    log: Logger,
    observeLag: (seconds: number) => void,
  ) {
    // The library checks signatures through a client's verify key; the first endpoint carries it for all.
    this.verifier = gripModule().then(
      ({ Publisher }) => new Publisher(urls.slice(0, 1).map((url) => ({ control_uri: url, verify_key: auth.verifyKey, ...(auth.verifyIss === null ? {} : { verify_iss: auth.verifyIss }) }))),
    );
    this.links = urls.map((url) => new ProxyLink(url, auth.publish, log, observeLag));
    for (const platform of PLATFORMS) this.lastRevision.set(platform, live.current(platform).revision);
    this.unsubscribe = live.onChange((published) => this.publish(published));
  }

  /** Whether the request came through a proxy that holds the key: a valid Grip-Sig that expires within the hour. */
  async isProxied(request: Request): Promise<boolean> {
    const signature = request.headers.get("grip-sig");
    if (signature === null || !gripSigExpiresInTime(signature, Date.now())) return false;
    try {
      return (await (await this.verifier).validateGripSig(signature)).isSigned;
    } catch {
      // A token whose algorithm does not fit the key (HS256 against a public key) cannot even be checked.
      return false;
    }
  }

  /**
   * Hold instructions for the platform's channel, with the bytes a direct
   * stream would start with; a proxy recovering missed items (Grip-Last) gets
   * only what came after the id it holds.
   */
  hold(platform: Platform, request: Request, path: string): Response {
    const channel = gripChannel(platform);
    const current = this.live.current(platform);
    const lastId = gripLastId(request.headers.get("grip-last"), channel);
    const body = lastId !== null ? (lastId === String(current.revision) ? NOTHING : current.frame) : firstBytes(current, request.headers.get("last-event-id"));
    this.holdsAnswered++;
    // Every frame comes from a TextEncoder, so its buffer is a plain ArrayBuffer.
    return new Response(body as Uint8Array<ArrayBuffer>, {
      headers: {
        ...STREAM_HEADERS,
        "grip-hold": "stream",
        "grip-channel": `${channel}; prev-id=${current.revision}`,
        "grip-link": `<${path}>; rel=next`,
        "grip-keep-alive": KEEP_ALIVE,
      },
    });
  }

  get holds(): number {
    return this.holdsAnswered;
  }

  counters(): GripProxyCounters[] {
    return this.links.map(({ proxy, published, failures }) => ({ proxy, published, failures }));
  }

  stop(): void {
    this.unsubscribe();
    for (const link of this.links) link.stop();
  }

  private publish(published: Published): void {
    const previous = this.lastRevision.get(published.platform);
    this.lastRevision.set(published.platform, published.revision);
    const item: Pending = {
      channel: gripChannel(published.platform),
      id: String(published.revision),
      prevId: String(previous ?? published.revision - 1),
      content: decoder.decode(published.frame),
      changedAt: performance.now(),
    };
    for (const link of this.links) link.enqueue(item);
  }
}
