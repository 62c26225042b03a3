/**
 * Presence (SPEC §11.5): how many viewers are on the hub now and, behind GRIP
 * proxies (SPEC §20), how many connections each node reports holding; read
 * again every 15 s while the section is open.
 */
import { useEffect, useState } from "preact/hooks";
import { getPrivate } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { now } from "../../clock.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { formatNumber, formatRelative, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN, AdminTable, Ago } from "./parts.tsx";

type Presence = components["schemas"]["Presence"];
type Proxied = NonNullable<Presence["proxied"]>;

const REFRESH_MS = 15_000;

export function PresenceSection() {
  const [readAt, setReadAt] = useState(Date.now());
  const presence = useLoad(async (signal) => {
    const body = await getPrivate<Presence>(`${ADMIN}/presence`, signal);
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
          {presence.data.proxied ? <ProxyNodes proxied={presence.data.proxied} /> : null}
        </>
      )}
    </Panel>
  );
}

function ProxyNodes({ proxied }: { proxied: Proxied }) {
  return (
    <>
      <p class="presence" data-testid="presence-proxied">
        <span>{t("admin.presence.proxied")}</span> <strong class="presence-count">{formatNumber(proxied.viewers, 0)}</strong>
      </p>
      <p class="form-hint">{t("admin.presence.proxiedHint")}</p>
      {proxied.unknownNodes > 0 ? (
        <p class="form-hint" role="status">
          {t("admin.presence.unknownNodes", { count: formatNumber(proxied.unknownNodes, 0) })}
        </p>
      ) : null}
      <AdminTable caption={t("admin.presence.nodes")} columns={[t("admin.presence.node"), t("admin.presence.connections"), t("admin.presence.readAt"), t("admin.presence.status")]}>
        {proxied.nodes.map((node) => (
          <tr key={node.node} data-node={node.node}>
            <th scope="row">
              <code>{node.node}</code>
            </th>
            <td class="num">{node.viewers === null ? t("admin.presence.unknown") : formatNumber(node.viewers, 0)}</td>
            <td>{node.readAt === null ? t("admin.presence.unknown") : <Ago ms={Date.parse(node.readAt)} />}</td>
            <td>{node.problem === null ? t("admin.presence.answering") : t("admin.presence.notAnswering", { problem: node.problem })}</td>
          </tr>
        ))}
      </AdminTable>
    </>
  );
}
