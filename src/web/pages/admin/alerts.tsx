/**
 * Alerts (SPEC §18): the hub's outbound webhooks. The list says where each
 * one posts, what fires it and whether it works (a failing or disabled
 * webhook is named above the table, not only in its row); create and edit
 * with the hub's validation at each field (alerts-form.tsx); the json
 * format's signing secret shown once, when made and when rotated; a test
 * message; the delivery log, a page at a time (alerts-manage.tsx).
 */
import { useState } from "preact/hooks";
import { getPrivate } from "../../api/client.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { formatBonus, formatDateTime, formatNumber, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { formatLabel, HOOKS, webhookName, type Webhook } from "./alerts-common.ts";
import { CreateWebhook } from "./alerts-form.tsx";
import { ManageWebhook } from "./alerts-manage.tsx";
import { DiscordSummaryPanel } from "./discord-summary.tsx";
import { PushSummaryPanel } from "./push-summary.tsx";
import { AdminTable, Ago, Listed, platformName, regionName, useRegions, type CatalogueRegion } from "./parts.tsx";

/** Whose bonus is watched decides the wording, so each case is its own message (languages inflect the role differently). */
const BONUS_TEXTS = {
  survivor: { any: "admin.alerts.fires.anySurvivor", atLeast: "admin.alerts.fires.survivor" },
  killer: { any: "admin.alerts.fires.anyKiller", atLeast: "admin.alerts.fires.killer" },
  either: { any: "admin.alerts.fires.anyEither", atLeast: "admin.alerts.fires.either" },
} as const;

function bonusText(hook: Webhook): string | null {
  if (hook.minBonus === null) return null;
  const [only] = hook.roles;
  const texts = BONUS_TEXTS[hook.roles.length === 1 && only ? only : "either"];
  // The hub fires on a bonus above 0 and at least minBonus, so 0 means any bonus at all.
  return hook.minBonus === 0 ? t(texts.any) : t(texts.atLeast, { bonus: formatBonus(hook.minBonus) });
}

/** Region names when there are few enough to read in a table cell, else how many. */
function regionsText(regions: readonly string[] | null, catalogue: readonly CatalogueRegion[] | null): string {
  if (regions === null) return t("admin.alerts.allRegions");
  if (regions.length > 3) return t("admin.alerts.regionCount", { count: formatNumber(regions.length, 0) });
  return regions.map((r) => regionName(catalogue, r)).join(", ");
}

/** What fires a webhook, in words: each kind of message on its own line, then where it listens. */
function Fires({ hook, regions }: { hook: Webhook; regions: readonly CatalogueRegion[] | null }) {
  const kinds = [bonusText(hook), hook.onStatus ? t("admin.alerts.fires.status") : null, hook.onEvents ? t("admin.alerts.fires.events") : null].filter((k) => k !== null);
  const platforms = hook.platforms === null ? t("admin.alerts.allPlatforms") : hook.platforms.map(platformName).join(", ");
  return (
    <>
      <ul class="webhook-fires">
        {kinds.length === 0 ? <li>{t("admin.alerts.fires.nothing")}</li> : kinds.map((k) => <li key={k}>{k}</li>)}
      </ul>
      <p class="webhook-scope">{t("admin.alerts.scope", { platforms, regions: regionsText(hook.regions, regions) })}</p>
    </>
  );
}

/** Webhooks that are failing or that the hub disabled, said above the table so they are not missed in a long list. */
function Trouble({ hooks }: { hooks: readonly Webhook[] }) {
  const notes = hooks.flatMap((h): { id: number; text: string; reason: string | null }[] => {
    if (h.disabledReason !== null) return [{ id: h.id, text: t("admin.alerts.troubleDisabled", { name: webhookName(h) }), reason: h.disabledReason }];
    if (h.failingSince !== null) return [{ id: h.id, text: t("admin.alerts.troubleFailing", { name: webhookName(h), time: formatDateTime(h.failingSince) }), reason: null }];
    return [];
  });
  if (notes.length === 0) return null;
  return (
    <ul class="webhook-trouble" data-testid="webhook-trouble">
      {notes.map((n) => (
        <li key={n.id} class="banner banner-error">
          <strong>{n.text}</strong>
          {n.reason !== null ? <span class="webhook-reason">{n.reason}</span> : null}
        </li>
      ))}
    </ul>
  );
}

function WebhookTable({ hooks, regions, managing, onManage }: { hooks: readonly Webhook[]; regions: readonly CatalogueRegion[] | null; managing: number | null; onManage: (id: number) => void }) {
  return (
    <AdminTable caption={t("admin.alerts.caption")} columns={[t("admin.alerts.webhook"), t("admin.alerts.format"), t("admin.alerts.fires"), t("admin.alerts.status"), t("admin.alerts.lastDelivery")]} actions>
      {hooks.map((h) => (
        <tr key={h.id} data-webhook={h.id}>
          <th scope="row">{webhookName(h)}</th>
          <td>{formatLabel(h.format)}</td>
          <td class="wrap">
            <Fires hook={h} regions={regions} />
          </td>
          <td class="wrap">
            <span class="webhook-badges">
              {h.enabled ? <span class="badge badge-on">{t("admin.enabled")}</span> : <span class="badge badge-off">{t("admin.disabled")}</span>}
              {h.failingSince !== null ? <span class="badge badge-failing">{t("admin.alerts.failing")}</span> : null}
            </span>
            {h.disabledReason !== null ? <p class="webhook-reason">{h.disabledReason}</p> : null}
          </td>
          <td>
            <Ago ms={h.lastDeliveryAt} />
          </td>
          <td>
            <button type="button" class="button button-small" aria-pressed={managing === h.id} aria-label={t("admin.alerts.manageOne", { name: webhookName(h) })} onClick={() => onManage(h.id)}>
              {t("admin.alerts.manage")}
            </button>
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

export function AlertsSection() {
  const hooks = useLoad((signal) => getPrivate<{ webhooks: Webhook[] }>(HOOKS, signal), []);
  const regions = useRegions();
  const [managing, setManaging] = useState<number | null>(null);
  const managed = hooks.data?.webhooks.find((h) => h.id === managing) ?? null;
  return (
    <>
      <Panel title={t("admin.alerts.title")} id="alerts-title">
        <div class="panel-head">
          <p class="lead">{t("admin.alerts.intro")}</p>
          <button type="button" class="button button-small" disabled={hooks.loading} onClick={hooks.retry}>
            {t("admin.refresh")}
          </button>
        </div>
        <Listed load={hooks} empty={t("admin.alerts.empty")} isEmpty={(d) => d.webhooks.length === 0}>
          {(d) => (
            <>
              <Trouble hooks={d.webhooks} />
              <WebhookTable hooks={d.webhooks} regions={regions.data} managing={managing} onManage={setManaging} />
            </>
          )}
        </Listed>
      </Panel>
      {managed && regions.data ? <ManageWebhook key={managed.id} hook={managed} regions={regions.data} onChanged={hooks.retry} onClose={() => setManaging(null)} /> : null}
      {regions.error ? (
        <Failed error={regions.error} retry={regions.retry} />
      ) : regions.data === null ? (
        <Loading />
      ) : (
        <CreateWebhook regions={regions.data} onCreated={hooks.retry} />
      )}
      <PushSummaryPanel />
      <DiscordSummaryPanel />
    </>
  );
}
