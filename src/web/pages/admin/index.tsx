/** /admin. */
import { t } from "../../i18n/index.ts";

export function AdminPage({ section }: { section: string | null }) {
  return <h1>{t("admin.title")}{section}</h1>;
}
