/** /account. */
import { t } from "../i18n/index.ts";

export function AccountPage() {
  return <h1>{t("account.title")}</h1>;
}
