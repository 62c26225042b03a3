/** Escaping for the formats that leave the hub, applied once at the edge that writes the format. */

const XML_ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text or attribute value in HTML, SVG or Atom: all three are safe with the same five entities. */
export function escapeMarkup(text: string): string {
  // Control characters other than tab and newlines are not allowed in XML at all, escaped or not.
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "").replace(/[&<>"']/g, (c) => XML_ENTITIES[c] ?? c);
}

/** JSON inside an HTML <script> element: `<` escaped so no `</script>` or `<!--` can close it. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}
