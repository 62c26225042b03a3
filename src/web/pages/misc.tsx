/** The page for a path the app does not know. */
import { t } from "../i18n/index.ts";

export function NotFound() {
  return (
    <section class="panel">
      <h1>{t("notFound.title")}</h1>
      <p>
        <a href="/">{t("notFound.back")}</a>
      </p>
    </section>
  );
}
