/** Presence (SPEC §11.5): how many viewers are on the hub now, read again every 15 s while the section is open. */
import { useEffect, useState } from "preact/hooks";
import { getPrivate } from "../../api/client.ts";
import { now } from "../../clock.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { formatNumber, formatRelative, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN } from "./parts.tsx";

const REFRESH_MS = 15_000;

export function PresenceSection() {
  const [readAt, setReadAt] = useState(Date.now());
  const presence = useLoad(async (signal) => {
    const body = await getPrivate<{ online: number }>(`${ADMIN}/presence`, signal);
    setReadAt(Date.now());
    return body;
  }, []);
  const { retry } = presence;
  useEffect(() => {
    const timer = setInterval(retry, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <Panel title={t("admin.presence.title")} id="presence-title">
      {presence.error ? (
        <Failed error={presence.error} retry={retry} />
      ) : presence.data === null ? (
        <Loading />
      ) : (
        <>
          <p class="presence" data-testid="presence">
            <span>{t("admin.presence.online")}</span> <strong class="presence-count">{formatNumber(presence.data.online, 0)}</strong>
          </p>
          <p class="form-hint">
            {t("admin.presence.hint")} {t("admin.presence.updated", { time: formatRelative(readAt, Math.max(now.value, readAt)) })}
          </p>
        </>
      )}
    </Panel>
  );
}
