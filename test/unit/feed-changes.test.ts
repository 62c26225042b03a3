/** The changes a feed view keeps (src/share/feed.ts): pruning never changes what any min shows. */
import { describe, expect, test } from "bun:test";
import { FEED_MAX_ENTRIES, reachableChanges } from "../../src/share/feed.ts";

/** What a feed at `min` lists: the newest FEED_MAX_ENTRIES changes at or above it. */
const shown = (changes: readonly { value: number; n: number }[], min: number) =>
  changes
    .filter((c) => c.value >= min)
    .slice(-FEED_MAX_ENTRIES)
    .map((c) => c.n);

describe("reachableChanges", () => {
  test("every min from 0 to 1000 lists the same entries from the kept changes as from all of them, and far fewer are kept", () => {
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (const levels of [[0, 25, 50, 75, 100], [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 150, 200, 300, 500, 1000], Array.from({ length: 60 }, (_, i) => i * 17)]) {
      const all = Array.from({ length: 5000 }, (_, n) => ({ n, value: levels[next() % levels.length] ?? 0 }));
      const kept = reachableChanges(all);
      expect(kept.length).toBeLessThanOrEqual(FEED_MAX_ENTRIES * levels.length);
      for (let min = 0; min <= 1000; min++) expect(shown(kept, min)).toEqual(shown(all, min));
    }
  });

  test("values past the bonus limit count as the limit, and nothing is lost below FEED_MAX_ENTRIES", () => {
    const few = [5, 2000, 7, 1000].map((value, n) => ({ n, value }));
    expect(reachableChanges(few)).toEqual(few);
  });
});
