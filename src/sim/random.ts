/**
 * Deterministic randomness for the simulator: a seeded generator for
 * sequences, and a hash that turns (seed, slot, time step) into a number, so
 * any instant of simulated history can be computed on its own, in any order,
 * and always comes out the same.
 */

/** FNV-1a over the UTF-16 code units of a string, as an unsigned 32-bit integer. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The murmur3 finaliser: spreads every input bit over the output. */
function mix(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Folds one integer (up to 2^53, sign and all) into a running hash. */
function fold(h: number, value: number): number {
  const low = value | 0;
  const high = Math.floor(value / 0x1_0000_0000) | 0;
  return mix((h ^ low) + Math.imul(high, 0x27d4eb2f));
}

const HASH_START = 0x9e3779b9;

/** Hashes a few integers into an unsigned 32-bit integer. */
export function hashInts(...values: readonly number[]): number {
  let h = HASH_START;
  for (const value of values) h = fold(h, value);
  return mix(h);
}

/**
 * hashInts(a, b, c) mapped to [0, 1). Fixed at three arguments because the
 * simulator calls it for every game refresh of every slot, and a rest
 * parameter would allocate each time.
 */
export function unitHash(a: number, b: number, c: number): number {
  return mix(fold(fold(fold(HASH_START, a), b), c)) / 0x1_0000_0000;
}

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}
