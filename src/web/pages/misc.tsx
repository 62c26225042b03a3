/** Pages with little in them: not found, and account pages not yet in the browser. */
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

export function Soon() {
  return (
    <section class="panel">
      <h1>{t("soon.title")}</h1>
      <p>{t("soon.body")}</p>
      <p>
        <a class="button" href="/docs" data-external="">
          {t("footer.api")}
        </a>
      </p>
    </section>
  );
}
