/** A vocabulary read aloud in messages and help: "steam, epic or grdk". */
export function listOr(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1) ?? ""}`;
}
