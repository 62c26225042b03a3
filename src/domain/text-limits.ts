/**
 * The longest text people give the hub that it keeps (names, labels,
 * e-mail), in characters, declared once: the API's schemas bound what
 * arrives with them, and the field's import bounds what it copies.
 */
export const TEXT_LIMITS = { name: 120, label: 120, email: 254 } as const;

export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

/** The first `max` characters (Unicode code points) of `value`, never half of one. */
export function cutToCharacters(value: string, max: number): string {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    if (count === max) return value.slice(0, i);
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return value;
}
