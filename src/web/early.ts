/**
 * Requests started by main.tsx before the first render, so the board's data
 * is on its way while the app's code is still being parsed and mounted
 * (otherwise each waits for the one before: code, then meta, then payload).
 * Each is handed out once; later reads fetch afresh. An answer that has
 * already arrived can be taken at once (readyEarly), so the first render
 * shows it instead of waiting for an effect and a promise first.
 */
const started = new Map<string, Promise<unknown>>();
const arrived = new Map<string, unknown>();

export function startEarly<T>(key: string, load: () => Promise<T>): void {
  const promise = load();
  promise.then(
    (value) => {
      if (started.get(key) === promise) arrived.set(key, value);
    },
    // A failure is reported to whoever takes the request; until then it must not count as unhandled.
    () => undefined,
  );
  started.set(key, promise);
}

export function takeEarly<T>(key: string): Promise<T> | null {
  const promise = started.get(key) as Promise<T> | undefined;
  started.delete(key);
  arrived.delete(key);
  return promise ?? null;
}

/** The early answer for `key` when it has already arrived (taken, so it is handed out once), else undefined. */
export function readyEarly<T>(key: string): T | undefined {
  if (!arrived.has(key)) return undefined;
  const value = arrived.get(key) as T;
  takeEarly(key);
  return value;
}

/** Resolves once every early request has settled, or after `ms`, whichever comes first. */
export function earlySettled(ms: number): Promise<void> {
  const all = Promise.allSettled([...started.values()]).then(() => undefined);
  return Promise.race([all, new Promise<void>((resolve) => setTimeout(resolve, ms))]);
}
