/** /login. */
import { t } from "../i18n/index.ts";

export function LoginPage() {
  return <h1>{t("account.title")}</h1>;
}
