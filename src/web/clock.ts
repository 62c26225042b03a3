/** A clock that ticks for relative times ("2 minutes ago") without each card running its own timer. */
import { signal } from "@preact/signals";

export const now = signal(Date.now());

const TICK_MS = 10_000;
// Rendered on the hub (the board's first paint), the clock is set for each render instead of ticking.
if (typeof window !== "undefined") {
  setInterval(() => {
    now.value = Date.now();
  }, TICK_MS);
}
