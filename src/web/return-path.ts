/**
 * Where the app may send a viewer back to after signing in (SPEC §10.1): a
 * path on the hub's own origin, nothing else. The browser's URL parser is the
 * judge, not a prefix check: it reads `/\host` and `/<tab>/host` as `//host`,
 * another origin, which a look at the first characters would let through.
 * The answer is the absolute URL, so a path that normalises to `//…` (such
 * as `/.//host`) cannot be read again as a host by whoever follows it.
 */
export function returnTarget(next: string | null, origin: string): string {
  const home = new URL("/", origin).href;
  if (next === null || !next.startsWith("/")) return home;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return home;
  }
  return url.origin === new URL(origin).origin ? url.href : home;
}
