/** The console's view of Discord (the interactions endpoint): whether the hub answers, the URL to give Discord, the last interaction, the invite. */
import { getPrivate } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { formatDateTime, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";

type DiscordSummary = components["schemas"]["DiscordSummary"];

export function DiscordSummaryPanel() {
  const summary = useLoad((signal) => getPrivate<DiscordSummary>("/api/v1/admin/discord", signal), []);
  const data = summary.data;
  return (
    <Panel title={t("admin.discord.title")} id="discord-title">
      {summary.error ? (
        <Failed error={summary.error} retry={summary.retry} />
      ) : data === null ? (
        <Loading />
      ) : !data.configured ? (
        <p class="lead">{t("admin.discord.off")}</p>
      ) : (
        <>
          <p class="lead">{t("admin.discord.on")}</p>
          <p>
            <code class="discord-endpoint">{data.endpointUrl}</code>
          </p>
          {data.answersCommands ? null : <p class="hint">{t("admin.discord.blocked")}</p>}
          <dl class="push-summary">
            <div>
              <dt>{t("admin.discord.last")}</dt>
              <dd>{data.lastInteractionAt === null ? t("admin.discord.never") : formatDateTime(data.lastInteractionAt)}</dd>
            </div>
          </dl>
          {data.inviteUrl ? (
            <p>
              <a href={data.inviteUrl} rel="noopener noreferrer" target="_blank">
                {t("admin.discord.invite")}
              </a>
            </p>
          ) : null}
        </>
      )}
    </Panel>
  );
}
