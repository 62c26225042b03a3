/** The console's view of Web Push (SPEC §23): devices subscribed, and messages sent and failed in the last 24 hours; never an endpoint. */
import { getPrivate } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { formatNumber, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";

type PushSummary = components["schemas"]["PushSummary"];

export function PushSummaryPanel() {
  const summary = useLoad((signal) => getPrivate<PushSummary>("/api/v1/admin/push", signal), []);
  const data = summary.data;
  return (
    <Panel title={t("admin.push.title")} id="push-title">
      {summary.error ? (
        <Failed error={summary.error} retry={summary.retry} />
      ) : data === null ? (
        <Loading />
      ) : !data.enabled ? (
        <p class="lead">{data.offReason ?? t("admin.push.off")}</p>
      ) : (
        <dl class="push-summary">
          <div>
            <dt>{t("admin.push.subscriptions")}</dt>
            <dd>{formatNumber(data.subscriptions, 0)}</dd>
          </div>
          <div>
            <dt>{t("admin.push.delivered")}</dt>
            <dd>{formatNumber(data.delivered24h, 0)}</dd>
          </div>
          <div>
            <dt>{t("admin.push.failed")}</dt>
            <dd>{formatNumber(data.failed24h, 0)}</dd>
          </div>
          <div>
            <dt>{t("admin.push.failing")}</dt>
            <dd>{formatNumber(data.failing, 0)}</dd>
          </div>
        </dl>
      )}
    </Panel>
  );
}
