/**
 * The live payload of one platform: the JSON for the first paint, then the
 * event stream for every change. The browser's EventSource resends
 * Last-Event-ID when it reconnects, so a reconnect never repeats a message;
 * when the hub refuses the stream (503 at capacity) or the network drops, the
 * page says so and tries again.
 */
import { batch, signal, type Signal } from "@preact/signals";
import { ApiError, api, type IncentivesPayload, type Platform } from "./api/client.ts";
import { keepUnchanged } from "./board-model.ts";
import { readyEarly, takeEarly } from "./early.ts";
import { RegionSignals } from "./region-signals.ts";

export type Connection = "connecting" | "live" | "reconnecting" | "offline";

export interface LiveFeed {
  readonly payload: Signal<IncentivesPayload | null>;
  /** Each region of the payload on its own, so a message wakes only the cards of regions that changed. */
  readonly regions: RegionSignals;
  readonly connection: Signal<Connection>;
  readonly error: Signal<ApiError | null>;
  close(): void;
}

const RETRY_MS = 10_000;

type PayloadListener = (payload: IncentivesPayload) => void;
const listeners = new Set<PayloadListener>();

/** Called with every payload any open feed receives (the browser alerts watch them). */
export function onPayload(listener: PayloadListener): void {
  listeners.add(listener);
}

function published(payload: IncentivesPayload): void {
  for (const listener of listeners) listener(payload);
}

export function openFeed(platform: Platform): LiveFeed {
  // A payload that has already arrived is there from the start, so the first render is the populated board.
  const ready = readyEarly<IncentivesPayload>(`incentives:${platform}`);
  const payload = signal<IncentivesPayload | null>(ready ?? null);
  const regions = new RegionSignals();
  if (ready) regions.update(ready.regions);
  const connection = signal<Connection>("connecting");
  const error = signal<ApiError | null>(null);
  const first = new AbortController();
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  const apply = (data: string) => {
    const next = JSON.parse(data) as IncentivesPayload;
    if (next.platform !== platform) return;
    if (payload.value) keepUnchanged(payload.value.regions, next.regions);
    batch(() => {
      regions.update(next.regions);
      payload.value = next;
    });
    published(next);
  };

  const connect = () => {
    if (closed) return;
    source = new EventSource(api.streamUrl(platform));
    source.onopen = () => {
      connection.value = "live";
    };
    source.onmessage = (event: MessageEvent<string>) => {
      connection.value = "live";
      error.value = null;
      apply(event.data);
    };
    source.onerror = () => {
      if (!source || source.readyState === EventSource.CLOSED) {
        connection.value = "offline";
        source?.close();
        source = null;
        retry = setTimeout(connect, RETRY_MS);
      } else {
        connection.value = "reconnecting";
      }
    };
  };

  if (ready) {
    published(ready);
  } else {
    (takeEarly<IncentivesPayload>(`incentives:${platform}`) ?? api.incentives(platform, first.signal))
      .then((body) => {
        if (payload.value !== null) return;
        batch(() => {
          regions.update(body.regions);
          payload.value = body;
        });
        published(body);
      })
      .catch((failure: unknown) => {
        if (failure instanceof ApiError) error.value = failure;
      });
  }
  connect();

  const offline = () => {
    connection.value = "offline";
  };
  // Back online, the stream is opened again at once, rather than when the browser's own retry comes round, so "Offline" does not outlast the outage.
  const online = () => {
    if (closed) return;
    // A stream that outlived a short outage is still live.
    if (source?.readyState === EventSource.OPEN) {
      connection.value = "live";
      return;
    }
    source?.close();
    source = null;
    if (retry) clearTimeout(retry);
    connection.value = "reconnecting";
    connect();
  };
  window.addEventListener("offline", offline);
  window.addEventListener("online", online);

  return {
    payload,
    regions,
    connection,
    error,
    close() {
      closed = true;
      first.abort();
      source?.close();
      if (retry) clearTimeout(retry);
      window.removeEventListener("offline", offline);
      window.removeEventListener("online", online);
    },
  };
}
