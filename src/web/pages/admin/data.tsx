/**
 * Stored readings (SPEC §11.4): who reported a region, and deleting readings,
 * either the orphaned ones (no longer attributed to an agent) or one agent's
 * readings matching a filter. A deletion always shows first how many readings
 * would go (the hub's dry run) and acts only once confirmed.
 */
import { useState } from "preact/hooks";
import { getPrivate, Platform, PLATFORM_LABELS, send } from "../../api/client.ts";
import type { operations } from "../../api/schema";
import { Failed, Loading } from "../../components/common.tsx";
import { ConfirmButton, Field, FormError, Panel } from "../../components/forms.tsx";
import { formatNumber, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import {
  ADMIN,
  fromLocalInput,
  Listed,
  localZone,
  Notice,
  platformName,
  regionName,
  regionOptions,
  SelectField,
  TableWrap,
  useAction,
  useRegions,
  When,
  type Agent,
  type CatalogueRegion,
  type Option,
} from "./parts.tsx";

type Attribution = operations["whoReportedARegion"]["responses"][200]["content"]["application/json"];

function platformOptions(): Option[] {
  return Platform.map((p) => ({ value: p, label: PLATFORM_LABELS[p] }));
}

function agentLabel(agents: readonly Agent[], id: number): string {
  const agent = agents.find((a) => a.id === id);
  return agent?.label ? t("admin.agents.nameLabelled", { id, label: agent.label }) : t("admin.agents.name", { id });
}

function AttributionPanel({ regions, agents, version }: { regions: readonly CatalogueRegion[]; agents: readonly Agent[]; version: number }) {
  const [platform, setPlatform] = useState<string>(Platform[0]);
  const [region, setRegion] = useState(regions[0]?.region ?? "");
  const rows = useLoad(
    (signal) => getPrivate<Attribution>(`${ADMIN}/platforms/${encodeURIComponent(platform)}/regions/${encodeURIComponent(region)}/attribution`, signal),
    [platform, region, version],
  );
  const caption = t("admin.data.attributionCaption", { region: regionName(regions, region), platform: platformName(platform) });
  return (
    <Panel title={t("admin.data.attributionTitle")} id="data-attribution">
      <p class="form-hint">{t("admin.data.attributionHint")}</p>
      <div class="admin-filters">
        <SelectField label={t("admin.data.platform")} name="platform" value={platform} options={platformOptions()} onChange={setPlatform} />
        <SelectField label={t("admin.data.region")} name="region" value={region} options={regionOptions(regions)} onChange={setRegion} />
      </div>
      <Listed load={rows} empty={t("admin.data.attributionEmpty")} isEmpty={(d) => d.attribution.length === 0}>
        {(d) => (
          <TableWrap label={caption}>
            <table class="admin-table">
              <caption>{caption}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("admin.agents.agent")}</th>
                  <th scope="col">{t("admin.agents.readings")}</th>
                  <th scope="col">{t("admin.data.first")}</th>
                  <th scope="col">{t("admin.data.last")}</th>
                </tr>
              </thead>
              <tbody>
                {d.attribution.map((row) => (
                  <tr key={row.agentId ?? "orphans"} data-attribution={row.agentId ?? "orphans"}>
                    <th scope="row">{row.agentId === null ? t("admin.data.orphaned") : agentLabel(agents, row.agentId)}</th>
                    <td class="num">{formatNumber(row.readings, 0)}</td>
                    <td>
                      <When ms={row.firstAt} />
                    </td>
                    <td>
                      <When ms={row.lastAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Listed>
    </Panel>
  );
}

function OrphansPanel({ onDeleted }: { onDeleted: () => void }) {
  const [count, setCount] = useState<number | null>(null);
  const [removed, setRemoved] = useState<number | null>(null);
  const action = useAction();
  const path = `${ADMIN}/readings/orphans`;
  return (
    <Panel title={t("admin.data.orphansTitle")} id="data-orphans">
      <p class="form-hint">{t("admin.data.orphansHint")}</p>
      <div class="button-row">
        <button
          type="button"
          class="button"
          disabled={action.busy}
          onClick={() => {
            setRemoved(null);
            void action.run(async () => setCount((await send<{ removed: number }>("DELETE", `${path}?dryRun=true`)).removed));
          }}
        >
          {t("admin.data.count")}
        </button>
        {count !== null && count > 0 ? (
          <ConfirmButton
            label={t("admin.data.orphansDelete", { count: formatNumber(count, 0) })}
            action={t("admin.data.orphansDeleteAction", { count: formatNumber(count, 0) })}
            disabled={action.busy}
            onConfirm={() => {
              void action.run(async () => {
                setRemoved((await send<{ removed: number }>("DELETE", path)).removed);
                setCount(null);
                onDeleted();
              });
            }}
          />
        ) : null}
      </div>
      {count !== null ? <Notice>{count === 0 ? t("admin.data.orphansNone") : t("admin.data.orphansWould", { count: formatNumber(count, 0) })}</Notice> : null}
      {removed !== null ? <Notice>{t("admin.data.removed", { count: formatNumber(removed, 0) })}</Notice> : null}
      <FormError error={action.error} />
    </Panel>
  );
}

const FILTER_NUMBERS = ["survivorMin", "survivorMax", "killerMin", "killerMax"] as const;
const NUMBER_LABELS = { survivorMin: "admin.data.survivorMin", survivorMax: "admin.data.survivorMax", killerMin: "admin.data.killerMin", killerMax: "admin.data.killerMax" } as const;

interface Filter {
  readonly agent: string;
  readonly region: string;
  readonly platform: string;
  readonly from: string;
  readonly to: string;
  readonly survivorMin: string;
  readonly survivorMax: string;
  readonly killerMin: string;
  readonly killerMax: string;
}

/** The filter as the endpoint's query: empty fields are left out, local times become epoch ms. */
function queryOf(filter: Filter, dryRun: boolean): string {
  const query = new URLSearchParams();
  if (filter.region !== "") query.set("region", filter.region);
  if (filter.platform !== "") query.set("platform", filter.platform);
  for (const edge of ["from", "to"] as const) {
    const ms = fromLocalInput(filter[edge]);
    if (ms !== null) query.set(edge, String(ms));
  }
  for (const name of FILTER_NUMBERS) if (filter[name].trim() !== "") query.set(name, filter[name].trim());
  if (dryRun) query.set("dryRun", "true");
  return query.toString();
}

function AgentReadingsPanel({ regions, agents, onDeleted }: { regions: readonly CatalogueRegion[]; agents: readonly Agent[]; onDeleted: () => void }) {
  const [filter, setFilter] = useState<Filter>({ agent: String(agents[0]?.id ?? ""), region: "", platform: "", from: "", to: "", survivorMin: "", survivorMax: "", killerMin: "", killerMax: "" });
  // The count belongs to the filter it was made for: any change asks for a new count before deleting.
  const [count, setCount] = useState<number | null>(null);
  const [removed, setRemoved] = useState<number | null>(null);
  const action = useAction();
  const set = (field: keyof Filter) => (value: string) => {
    setFilter((f) => ({ ...f, [field]: value }));
    setCount(null);
  };
  const path = (dryRun: boolean) => `${ADMIN}/agents/${encodeURIComponent(filter.agent)}/readings?${queryOf(filter, dryRun)}`;
  const zone = localZone();

  async function countMatching(e: Event) {
    e.preventDefault();
    setRemoved(null);
    await action.run(async () => setCount((await send<{ removed: number }>("DELETE", path(true))).removed));
  }

  return (
    <Panel title={t("admin.data.agentTitle")} id="data-agent">
      <p class="form-hint">{t("admin.data.agentHint")}</p>
      {agents.length === 0 ? (
        <p class="state">{t("admin.agents.empty")}</p>
      ) : (
        <form class="stack" onSubmit={countMatching} noValidate>
          <SelectField label={t("admin.agents.agent")} name="agent" value={filter.agent} options={agents.map((a) => ({ value: String(a.id), label: agentLabel(agents, a.id) }))} onChange={set("agent")} error={action.error} />
          <div class="admin-filters">
            <SelectField label={t("admin.data.region")} name="region" value={filter.region} options={[{ value: "", label: t("admin.data.any") }, ...regionOptions(regions)]} onChange={set("region")} error={action.error} />
            <SelectField label={t("admin.data.platform")} name="platform" value={filter.platform} options={[{ value: "", label: t("admin.data.any") }, ...platformOptions()]} onChange={set("platform")} error={action.error} />
          </div>
          <div class="admin-filters">
            <Field label={t("admin.data.from")} name="from" type="datetime-local" value={filter.from} onInput={set("from")} error={action.error} hint={t("admin.events.timeHint", { zone })} />
            <Field label={t("admin.data.to")} name="to" type="datetime-local" value={filter.to} onInput={set("to")} error={action.error} hint={t("admin.events.timeHint", { zone })} />
          </div>
          <div class="admin-filters">
            {FILTER_NUMBERS.map((name) => (
              <Field key={name} label={t(NUMBER_LABELS[name])} name={name} value={filter[name]} onInput={set(name)} error={action.error} inputMode="numeric" autoComplete="off" />
            ))}
          </div>
          <p class="form-hint">{t("admin.data.boundsHint")}</p>
          <FormError error={action.error} />
          <div class="button-row">
            <button type="submit" class="button" disabled={action.busy}>
              {t("admin.data.countMatching")}
            </button>
            {count !== null && count > 0 ? (
              <ConfirmButton
                label={t("admin.data.agentDelete", { count: formatNumber(count, 0) })}
                action={t("admin.data.agentDeleteAction", { count: formatNumber(count, 0), agent: agentLabel(agents, Number(filter.agent)) })}
                disabled={action.busy}
                onConfirm={() => {
                  void action.run(async () => {
                    setRemoved((await send<{ removed: number }>("DELETE", path(false))).removed);
                    setCount(null);
                    onDeleted();
                  });
                }}
              />
            ) : null}
          </div>
          {count !== null ? <Notice>{count === 0 ? t("admin.data.noneMatch") : t("admin.data.wouldGo", { count: formatNumber(count, 0) })}</Notice> : null}
          {removed !== null ? <Notice>{t("admin.data.removed", { count: formatNumber(removed, 0) })}</Notice> : null}
        </form>
      )}
    </Panel>
  );
}

export function DataSection() {
  const regions = useRegions();
  const agents = useLoad((signal) => getPrivate<{ agents: Agent[] }>(`${ADMIN}/agents`, signal), []);
  // Bumped after a deletion so the attribution shows what remains.
  const [version, setVersion] = useState(0);
  const deleted = () => {
    setVersion((v) => v + 1);
    agents.retry();
  };
  const failure = regions.error ?? agents.error;
  if (failure) {
    return (
      <Failed
        error={failure}
        retry={() => {
          regions.retry();
          agents.retry();
        }}
      />
    );
  }
  if (regions.data === null || agents.data === null) return <Loading />;
  return (
    <>
      <AttributionPanel regions={regions.data} agents={agents.data.agents} version={version} />
      <OrphansPanel onDeleted={deleted} />
      <AgentReadingsPanel regions={regions.data} agents={agents.data.agents} onDeleted={deleted} />
    </>
  );
}
