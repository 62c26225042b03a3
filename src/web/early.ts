/**
 * Requests started by main.tsx before the first render, so the board's data
 * is on its way while the app's code is still being parsed and mounted
 * (otherwise each waits for the one before: code, then meta, then payload).
 * Each is handed out once; later reads fetch afresh.
 */
const started = new Map<string, Promise<unknown>>();

export function startEarly<T>(key: string, load: () => Promise<T>): void {
  const promise = load();
  // A failure is reported to whoever takes the request; until then it must not count as unhandled.
  promise.catch(() => undefined);
  started.set(key, promise);
}

export function takeEarly<T>(key: string): Promise<T> | null {
  const promise = started.get(key) as Promise<T> | undefined;
  started.delete(key);
  return promise ?? null;
}
