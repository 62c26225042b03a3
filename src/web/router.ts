/** Client routes (SPEC §17): the path decides the page, the query holds the board's filters. */
import { signal } from "@preact/signals";
import { isPlatform, type Platform } from "./api/client.ts";

export type Route =
  | { readonly page: "board"; readonly platform: Platform | null }
  | { readonly page: "region"; readonly platform: Platform; readonly region: string }
  | { readonly page: "contribute" }
  | { readonly page: "agents" }
  | { readonly page: "setup" }
  | { readonly page: "login" }
  | { readonly page: "account" }
  | { readonly page: "admin"; readonly section: string | null }
  | { readonly page: "notFound" };

const SINGLE = new Set(["contribute", "setup", "login", "account"]);

/** A path segment decoded, or as it is when it is not valid percent-encoding (such a path names no page, and must not throw). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRoute(pathname: string): Route {
  const parts = pathname.split("/").filter((p) => p !== "").map(decodeSegment);
  const [first, second, ...rest] = parts;
  if (first === undefined) return { page: "board", platform: null };
  if (first === "contribute" && second === "agents" && rest.length === 0) return { page: "agents" };
  if (SINGLE.has(first)) return second === undefined ? ({ page: first } as Route) : { page: "notFound" };
  if (first === "admin") return rest.length === 0 ? { page: "admin", section: second ?? null } : { page: "notFound" };
  if (!isPlatform(first) || rest.length > 0) return { page: "notFound" };
  return second === undefined ? { page: "board", platform: first } : { page: "region", platform: first, region: second };
}

/** False where the app's components are rendered to markup on the hub (the board's first paint), with no window. */
const IN_BROWSER = typeof window !== "undefined";

export const location = signal(IN_BROWSER ? { pathname: window.location.pathname, search: window.location.search } : { pathname: "/", search: "" });

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  const url = new URL(href, window.location.origin);
  const changedPage = url.pathname !== window.location.pathname;
  if (options.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  location.value = { pathname: url.pathname, search: url.search };
  if (changedPage) window.scrollTo({ top: 0 });
}

if (IN_BROWSER) {
  window.addEventListener("popstate", () => {
    location.value = { pathname: window.location.pathname, search: window.location.search };
  });
}

/** Follows same-origin links inside the app without a page load (modifier keys and new tabs keep their meaning). */
export function interceptLinks(root: HTMLElement): void {
  root.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest("a");
    if (!anchor || anchor.target || anchor.hasAttribute("download") || anchor.dataset.external !== undefined) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname.startsWith("/api/") || url.pathname.startsWith("/docs")) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
}
