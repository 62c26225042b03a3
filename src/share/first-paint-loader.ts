/** The board's first paint, loaded when a board page is first asked for. */
import type { FirstPaintFor } from "../http/web.ts";
import type { Logger } from "../log.ts";
import type { FirstPaintDeps } from "./first-paint.tsx";

/**
 * First paints rendered by src/share/first-paint.tsx, whose code (the app's
 * components, the renderer, every language) is loaded on the first board
 * page asked for rather than at start-up, so a hub nobody has visited yet
 * starts and idles as it did without it.
 */
export function lazyFirstPaints(deps: FirstPaintDeps & { readonly log: Logger }): FirstPaintFor {
  let loading: Promise<FirstPaintFor> | null = null;
  let failed = false;
  return async (path, search, acceptLanguage) => {
    loading ??= import("./first-paint.tsx").then((module) => module.firstPaints(deps));
    try {
      return await (await loading)(path, search, acceptLanguage);
    } catch (error) {
      // The first paint is a head start, not the page: without it the app renders the board as before.
      if (!failed) deps.log.error("the board's first paint could not be rendered; pages are served without it", { error });
      failed = true;
      return null;
    }
  };
}
