/** /setup. */
import { t } from "../i18n/index.ts";

export function SetupPage() {
  return <h1>{t("account.title")}</h1>;
}
