/** Starts the web app: the language first (so the first paint is already translated), then the shell. */
import { render } from "preact";
import { api } from "./api/client.ts";
import { App, boardPlatformOf } from "./app.tsx";
import { nameCollator } from "./board-model.ts";
import { honestyDismissed } from "./components/answer.tsx";
import { earlySettled, startEarly } from "./early.ts";
import { formatNumber, initialLanguage, prepareFormatters, storedLanguage, switchLanguage, t } from "./i18n/index.ts";
import { onPayload } from "./live.ts";
import { notify } from "./notify.ts";
import { registerServiceWorker } from "./push.ts";
import { browserZone } from "./regions.ts";
import { interceptLinks, navigate } from "./router.ts";

const EARLY_WAIT_MS = 200;

const root = document.getElementById("app");
if (root) {
  // The hub's first paint shows the honesty banner on top, not knowing this browser dismissed it: it goes before the first render.
  if (honestyDismissed()) root.querySelector(".banner-honesty")?.remove();
  startEarly("meta", () => api.meta());
  const platform = boardPlatformOf(window.location.pathname);
  if (platform) startEarly(`incentives:${platform}`, () => api.incentives(platform));
  interceptLinks(document.body);
  registerServiceWorker();
  onPayload((payload) =>
    notify(
      payload,
      ({ rule, displayName, bonus }) => {
        const role = t(`role.${rule.role}`);
        return {
          title: t("alerts.notifyTitle", { region: displayName, role, bonus }),
          body: t("alerts.notifyBody", { role, multiplier: `×${formatNumber(1 + bonus / 100, 2)}` }),
        };
      },
      navigate,
    ),
  );
  // The first render waits briefly for the early requests, so it is already the populated page rather than a loading state
  // followed by several re-renders; a slow answer stops holding it up after EARLY_WAIT_MS and arrives as before.
  const code = initialLanguage(storedLanguage(), navigator.languages);
  const ready = Promise.allSettled([switchLanguage(code, false), earlySettled(EARLY_WAIT_MS)]);
  // Intl's first use in a page is its costliest part (ICU's set-up): done while those requests are in flight, not in the render.
  browserZone();
  nameCollator();
  prepareFormatters(code);
  // The hub's first paint (src/share/first-paint.tsx), when the page came with one, is taken over in place by the first render.
  void ready.then(() => {
    render(<App />, root);
    root.removeAttribute("data-first-paint");
  });
}
