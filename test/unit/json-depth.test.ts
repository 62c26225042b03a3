import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "../../src/http/errors.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const nested = (levels: number, open = "[", close = "]"): string => open.repeat(levels) + close.repeat(levels);

describe("nestedDeeperThan", () => {
  test("counts objects and arrays alike, up to and past the limit", () => {
    expect(nestedDeeperThan(bytes(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
    expect(nestedDeeperThan(bytes(nested(MAX_JSON_DEPTH + 1)), MAX_JSON_DEPTH)).toBe(true);
    const objects = '{"a":'.repeat(MAX_JSON_DEPTH + 1) + "1" + "}".repeat(MAX_JSON_DEPTH + 1);
    expect(nestedDeeperThan(bytes(objects), MAX_JSON_DEPTH)).toBe(true);
    expect(nestedDeeperThan(bytes('{"a":'.repeat(MAX_JSON_DEPTH) + "1" + "}".repeat(MAX_JSON_DEPTH)), MAX_JSON_DEPTH)).toBe(false);
  });

  test("depth is the deepest point, not the number of brackets", () => {
    const wide = `[${Array.from({ length: 1000 }, () => "[[1]]").join(",")}]`;
    expect(nestedDeeperThan(bytes(wide), 3)).toBe(false);
    expect(nestedDeeperThan(bytes(wide), 2)).toBe(true);
  });

  test("brackets inside strings and after escaped quotes do not count", () => {
    const inString = JSON.stringify({ text: "[".repeat(1000) + '\\"[[[' + "{".repeat(1000) });
    expect(nestedDeeperThan(bytes(inString), 1)).toBe(false);
    const escapedQuote = JSON.stringify({ a: 'say \\"' });
    expect(nestedDeeperThan(bytes(`[${escapedQuote},[[1]]]`), 3)).toBe(false);
    expect(nestedDeeperThan(bytes(`[${escapedQuote},[[[1]]]]`), 3)).toBe(true);
  });

  test("a string ending in an escaped backslash closes where JSON says", () => {
    const text = JSON.stringify(["a\\", [[["b"]]]]);
    expect(nestedDeeperThan(bytes(text), 3)).toBe(true);
    expect(nestedDeeperThan(bytes(text), 4)).toBe(false);
  });
});
