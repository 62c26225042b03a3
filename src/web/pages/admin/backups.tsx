/**
 * Backups (SPEC §25): the target's backups with time and size, each one's
 * file to download, "Back up now", the last error and the next run. Read
 * again every 2 s while a run is under way, so its outcome shows by itself.
 */
import { useEffect, useState } from "preact/hooks";
import { getPrivate, send } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Failed, Loading } from "../../components/common.tsx";
import { FormError, Panel } from "../../components/forms.tsx";
import { formatNumber, language, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN, AdminTable, Ago, Notice, useAction, When } from "./parts.tsx";

type Backups = components["schemas"]["Backups"];

const RUNNING_REFRESH_MS = 2000;
const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** "3.4 MB": a size in the admin's language, in the largest unit under 1024 of it. */
function formatSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return new Intl.NumberFormat(language.value, { style: "unit", unit: UNITS[unit], unitDisplay: "short", maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value);
}

export function BackupsSection() {
  const load = useLoad((signal) => getPrivate<Backups>(`${ADMIN}/backups`, signal), []);
  const action = useAction();
  const [started, setStarted] = useState(false);
  const running = load.data?.running ?? false;
  const { retry } = load;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(retry, RUNNING_REFRESH_MS);
    return () => clearInterval(timer);
  }, [running]);

  return (
    <Panel title={t("admin.nav.backups")} id="backups-title">
      {load.error ? (
        <Failed error={load.error} retry={retry} />
      ) : load.data === null ? (
        <Loading />
      ) : load.data.target === null ? (
        <p class="lead">{t("admin.backups.notSetUp")}</p>
      ) : (
        <>
          <dl class="profile-facts">
            <dt>{t("admin.backups.target")}</dt>
            <dd>
              <code>{load.data.target}</code>
            </dd>
            <dt>{t("admin.backups.schedule")}</dt>
            <dd>
              <code>{load.data.schedule}</code>
            </dd>
            <dt>{t("admin.backups.last")}</dt>
            <dd>{load.data.last === null ? t("admin.backups.never") : <Ago ms={load.data.last} />}</dd>
            <dt>{t("admin.backups.next")}</dt>
            <dd>{load.data.next === null ? t("admin.backups.notPlanned") : <When ms={load.data.next} />}</dd>
            <dt>{t("admin.backups.encrypted")}</dt>
            <dd>{load.data.encrypted ? t("admin.backups.yes") : t("admin.backups.no")}</dd>
          </dl>
          {load.data.lastError === null ? null : (
            <p class="form-error" role="alert" data-testid="backup-error">
              {t("admin.backups.lastError", { error: load.data.lastError })}
            </p>
          )}
          <p>
            <button
              type="button"
              class="button"
              disabled={running || action.busy}
              onClick={() =>
                void action
                  .run(async () => {
                    await send("POST", `${ADMIN}/backups`);
                  })
                  .then((ok) => {
                    setStarted(ok);
                    retry();
                  })
              }
            >
              {running ? t("admin.backups.running") : t("admin.backups.now")}
            </button>
          </p>
          <FormError error={action.error} />
          {started && running ? <Notice>{t("admin.backups.started")}</Notice> : null}
          {load.data.listError === null ? null : <p class="form-error">{t("admin.backups.listError", { error: load.data.listError })}</p>}
          {load.data.listError !== null ? null : load.data.backups.length === 0 ? (
            <p>{t("admin.backups.empty")}</p>
          ) : (
            <AdminTable caption={t("admin.backups.caption")} columns={[t("admin.backups.time"), t("admin.backups.size"), t("admin.backups.schemaVersion"), t("admin.backups.encrypted"), t("admin.backups.download")]}>
              {load.data.backups.map((backup) => (
                <tr key={backup.name} data-backup={backup.name}>
                  <th scope="row">
                    <When ms={backup.createdAt} seconds />
                  </th>
                  <td class="num">{formatSize(backup.size)}</td>
                  <td class="num">{formatNumber(backup.schemaVersion, 0)}</td>
                  <td>{backup.encrypted ? t("admin.backups.yes") : t("admin.backups.no")}</td>
                  <td>
                    <a href={`${ADMIN}/backups/${encodeURIComponent(backup.name)}`} download={backup.name} aria-label={t("admin.backups.downloadName", { name: backup.name })}>
                      {t("admin.backups.download")}
                    </a>
                  </td>
                </tr>
              ))}
            </AdminTable>
          )}
        </>
      )}
    </Panel>
  );
}
