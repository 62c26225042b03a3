/** Starts the web app: the language first (so the first paint is already translated), then the shell. */
import { render } from "preact";
import { App } from "./app.tsx";
import { initialLanguage, storedLanguage, switchLanguage } from "./i18n/index.ts";
import { interceptLinks } from "./router.ts";

const root = document.getElementById("app");
if (root) {
  interceptLinks(document.body);
  void switchLanguage(initialLanguage(storedLanguage(), navigator.languages), false).finally(() => render(<App />, root));
}
