/**
 * The length of a string in characters (Unicode code points), as JSON Schema
 * and people count it; `String.length` counts UTF-16 units, so one emoji is 2.
 */
export function characters(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
