/**
 * Who is signed in, for every page: the session body, read at start and
 * again after each sign-in, sign-out or refusal. A call that finds the
 * session gone sends the viewer to /login and, once signed in, back to where
 * they were.
 */
import { signal } from "@preact/signals";
import { api, sessionChanged, whenSignedOut, type SessionBody } from "./api/client.ts";
import { returnTarget } from "./return-path.ts";
import { location, navigate } from "./router.ts";

export const session = signal<SessionBody | null>(null);

export async function refreshSession(): Promise<SessionBody> {
  sessionChanged();
  const body = await api.session();
  session.value = body;
  return body;
}

/** The path to come back to after signing in: where the viewer is now. */
export function here(): string {
  return location.value.pathname + location.value.search;
}

/** Sends the viewer to sign in, and back to `next` afterwards. */
export function goSignIn(next = here()): void {
  if (window.location.pathname === "/login") return;
  navigate(`/login?next=${encodeURIComponent(next)}`, { replace: true });
}

/** Where to go after signing in: the page on this hub named by ?next=, else the board. */
export function nextPath(search: string): string {
  return returnTarget(new URLSearchParams(search).get("next"), window.location.origin);
}


whenSignedOut(() => {
  session.value = null;
  sessionChanged();
  goSignIn();
});
