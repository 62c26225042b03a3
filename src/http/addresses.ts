/**
 * Addresses people type (SPEC §17.1): a store's or a platform's name in any
 * case goes to the canonical platform path with a permanent redirect, and an
 * unknown page asked for by a browser gets the app's own not-found page.
 */
import { PLATFORMS, type Platform } from "../domain/catalogue.ts";

const ALIASES: Readonly<Record<string, Platform>> = {
  steam: "Windows",
  windows: "Windows",
  epic: "EGS",
  egs: "EGS",
  xbox: "GRDK",
  microsoft: "GRDK",
  grdk: "GRDK",
};

/** Where an alias path lives (query kept), or null when the path is not one or is canonical already. */
export function platformRedirect(url: URL): string | null {
  const [, first = "", ...rest] = url.pathname.split("/");
  const platform = ALIASES[first.toLowerCase()];
  if (!platform || (PLATFORMS as readonly string[]).includes(first)) return null;
  return `/${[platform, ...rest].join("/")}${url.search}`;
}

/** Whether an unknown path should get the app's HTML page: a browser asking for a page, never an API path. */
export function wantsHtmlPage(request: Request, pathname: string): boolean {
  if (pathname === "/api" || pathname.startsWith("/api/")) return false;
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  return /\btext\/html\b/.test(request.headers.get("accept") ?? "");
}
