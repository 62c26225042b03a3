/**
 * Where the app may send a viewer back to after signing in (SPEC §10.1): a
 * path on the hub's own origin, nothing else. The browser's URL parser is the
 * judge, not a prefix check: it reads `/\host` and `/<tab>/host` as `//host`,
 * another origin, which a look at the first characters would let through.
 * The answer is the parsed path (with query and fragment); a path that only
 * normalises to `//…` (such as `/.//host`) is refused too, since whoever
 * follows it next would read it as a host. Applying it twice changes nothing.
 */
export function returnTarget(next: string | null, origin: string): string {
  if (next === null || !next.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return "/";
  }
  if (url.origin !== new URL(origin).origin || url.pathname.startsWith("//")) return "/";
  return url.pathname + url.search + url.hash;
}
