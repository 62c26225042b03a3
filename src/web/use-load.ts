/** One request's life in a component: loading, its data or its error, and a retry. Stale answers are dropped when the inputs change. */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api/client.ts";

export interface Load<T> {
  readonly data: T | null;
  readonly error: ApiError | null;
  readonly loading: boolean;
  retry(): void;
}

/** With `initial` (an answer already at hand), the first render shows it and the first load is skipped; changed inputs or a retry load again. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, inputs: readonly unknown[], initial?: T): Load<T> {
  const [state, setState] = useState<{ data: T | null; error: ApiError | null; loading: boolean }>(() =>
    initial === undefined ? { data: null, error: null, loading: true } : { data: initial, error: null, loading: false },
  );
  const [attempt, setAttempt] = useState(0);
  const skipFirst = useRef(initial !== undefined);
  useEffect(() => {
    if (skipFirst.current) {
      skipFirst.current = false;
      return;
    }
    const controller = new AbortController();
    setState((previous) => ({ data: previous.data, error: null, loading: true }));
    load(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ data, error: null, loading: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error));
        setState({ data: null, error: failure, loading: false });
      },
    );
    return () => controller.abort();
  }, [...inputs, attempt]);
  return { ...state, retry: () => setAttempt((n) => n + 1) };
}
