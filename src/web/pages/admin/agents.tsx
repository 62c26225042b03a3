/**
 * Agents (SPEC §11.1): the list with readings and the newest reading; create
 * with the token shown once beside a ready-to-paste configuration; edit with
 * the hub's validation at each field; moving with the data mode explained;
 * enable, rotate, delete; export and import (agent-transfer.tsx).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getPrivate, send } from "../../api/client.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { ConfirmButton, Field, FormError, Panel, SaveButton } from "../../components/forms.tsx";
import { formatNumber, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import {
  ADMIN,
  Ago,
  Listed,
  Notice,
  platformName,
  providerOptions,
  RadioGroup,
  regionName,
  regionOptions,
  SelectField,
  useAction,
  useRegions,
  type Agent,
  type CatalogueRegion,
  type Choice,
  AdminTable,
} from "./parts.tsx";
import { AGENTS_GUIDE, agentName, TokenOnce } from "./agent-token.tsx";
import { Transfer } from "./agent-transfer.tsx";

type DataMode = "keep" | "orphan" | "delete";

/** How often the list reads itself again while an agent waits for its first reading. */
const WAITING_POLL_MS = 3000;

const SOURCE_LABELS = { manual: "admin.agents.source.manual", provisioned: "admin.agents.source.provisioned", imported: "admin.agents.source.imported" } as const;

/** What an optional text field sends: null when left empty, so the hub clears the value (or uses its default). */
const empty = (value: string) => (value.trim() === "" ? null : value.trim());

function CreateAgent({ regions, onCreated }: { regions: readonly CatalogueRegion[]; onCreated: () => void }) {
  const [region, setRegion] = useState(regions[0]?.region ?? "");
  const [provider, setProvider] = useState("steam");
  const [label, setLabel] = useState("");
  const [created, setCreated] = useState<{ agent: Agent; token: string } | null>(null);
  const action = useAction();
  async function submit(e: Event) {
    e.preventDefault();
    await action.run(async () => {
      const reply = await send<{ agent: Agent; token: string }>("POST", `${ADMIN}/agents`, { region, provider, label: empty(label) });
      setCreated(reply);
      setLabel("");
      onCreated();
    });
  }
  return (
    <Panel title={t("admin.agents.createTitle")} id="agent-create">
      {created ? (
        <TokenOnce agent={created.agent} token={created.token} onDone={() => setCreated(null)} />
      ) : (
        <form class="stack" onSubmit={submit} noValidate>
          <SelectField label={t("admin.agents.region")} name="region" value={region} options={regionOptions(regions)} onChange={setRegion} error={action.error} />
          <SelectField
            label={t("admin.agents.provider")}
            name="provider"
            value={provider}
            options={providerOptions()}
            onChange={setProvider}
            error={action.error}
            hint={t("admin.agents.providerHint")}
          />
          <Field label={t("admin.agents.label")} name="label" value={label} onInput={setLabel} error={action.error} maxLength={120} hint={t("admin.agents.labelHint")} />
          <FormError error={action.error} />
          <p>
            <button type="submit" class="button button-primary" disabled={action.busy}>
              {action.busy ? t("form.saving") : t("admin.agents.create")}
            </button>
          </p>
        </form>
      )}
    </Panel>
  );
}

function dataModeChoices(): Choice<DataMode>[] {
  return [
    { value: "keep", label: t("admin.agents.mode.keep"), hint: t("admin.agents.mode.keepHint") },
    { value: "orphan", label: t("admin.agents.mode.orphan"), hint: t("admin.agents.mode.orphanHint") },
    { value: "delete", label: t("admin.agents.mode.delete"), hint: t("admin.agents.mode.deleteHint") },
  ];
}

/** One agent's settings, its moves, its token and its removal. */
function EditAgent({ agent: initial, regions, onChanged, onClose }: { agent: Agent; regions: readonly CatalogueRegion[]; onChanged: () => void; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: "start" });
  }, []);
  // The editor keeps the hub's latest answer, so "moved" compares with where the agent is now.
  const [agent, setAgent] = useState(initial);
  const [form, setForm] = useState({ label: initial.label ?? "", provider: initial.provider, region: initial.region, pollMin: initial.pollMin ?? "", pollMax: initial.pollMax ?? "" });
  const [mode, setMode] = useState<DataMode>("keep");
  const [deleteMode, setDeleteMode] = useState<"orphan" | "delete">("orphan");
  const [token, setToken] = useState<string | null>(null);
  // Each message shows beside the control that caused it: the form's under the form, the actions' under their buttons.
  const [done, setDone] = useState<{ text: string; by: "form" | "actions" | "eventReports" } | null>(null);
  const save = useAction();
  const other = useAction();
  const eventReports = useAction();
  const moved = form.region !== agent.region || form.provider !== agent.provider;
  const set = (field: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [field]: value }));

  async function patch(body: Record<string, unknown>, message: string, by: "form" | "actions" | "eventReports" = "form") {
    const action = by === "form" ? save : by === "actions" ? other : eventReports;
    setDone(null);
    await action.run(async () => {
      const reply = await send<{ agent: Agent }>("PATCH", `${ADMIN}/agents/${agent.id}`, body);
      setAgent(reply.agent);
      setForm({ label: reply.agent.label ?? "", provider: reply.agent.provider, region: reply.agent.region, pollMin: reply.agent.pollMin ?? "", pollMax: reply.agent.pollMax ?? "" });
      setMode("keep");
      setDone({ text: message, by });
      onChanged();
    });
  }

  async function submit(e: Event) {
    e.preventDefault();
    await patch(
      {
        label: empty(form.label),
        provider: form.provider,
        region: form.region,
        pollMin: empty(form.pollMin),
        pollMax: empty(form.pollMax),
        ...(moved ? { dataMode: mode } : {}),
      },
      t("admin.saved"),
    );
  }

  const pollHint = t("admin.agents.pollHint");
  return (
    <section class="panel" aria-labelledby="agent-edit">
      <div class="panel-head">
        <h2 id="agent-edit" ref={heading} tabIndex={-1}>
          {t("admin.agents.editTitle", { name: agentName(agent) })}
        </h2>
        <button type="button" class="button" onClick={onClose}>
          {t("admin.close")}
        </button>
      </div>
      <p class="form-hint">
        {t("admin.agents.where", { platform: platformName(agent.platform), region: regionName(regions, agent.region), readings: formatNumber(agent.readings, 0) })}
      </p>
      <form class="stack" onSubmit={submit} noValidate>
        <Field label={t("admin.agents.label")} name="label" value={form.label} onInput={set("label")} error={save.error} maxLength={120} />
        <SelectField label={t("admin.agents.provider")} name="provider" value={form.provider} options={providerOptions()} onChange={set("provider")} error={save.error} hint={t("admin.agents.providerHint")} />
        <SelectField label={t("admin.agents.region")} name="region" value={form.region} options={regionOptions(regions)} onChange={set("region")} error={save.error} />
        {moved ? <RadioGroup legend={t("admin.agents.modeLegend", { readings: formatNumber(agent.readings, 0) })} name="dataMode" value={mode} choices={dataModeChoices()} onChange={setMode} /> : null}
        <Field label={t("admin.agents.pollMin")} name="pollMin" value={form.pollMin} onInput={set("pollMin")} error={save.error} hint={pollHint} placeholder={t("admin.agents.pollDefault")} />
        <Field label={t("admin.agents.pollMax")} name="pollMax" value={form.pollMax} onInput={set("pollMax")} error={save.error} hint={t("admin.agents.pollMaxHint")} placeholder={t("admin.agents.pollDefault")} />
        <FormError error={save.error} />
        <SaveButton busy={save.busy} />
      </form>
      {done?.by === "form" ? <Notice>{done.text}</Notice> : null}

      <h3>{t("admin.agents.actions")}</h3>
      <p class="form-hint">{agent.enabled ? t("admin.agents.enabledHint") : t("admin.agents.disabledHint")}</p>
      <div class="button-row">
        <button type="button" class="button" disabled={other.busy} onClick={() => void patch({ enabled: !agent.enabled }, agent.enabled ? t("admin.agents.wasDisabled") : t("admin.agents.wasEnabled"), "actions")}>
          {agent.enabled ? t("admin.agents.disable") : t("admin.agents.enable")}
        </button>
        <ConfirmButton
          label={t("admin.agents.rotate")}
          action={t("admin.agents.rotateAction")}
          disabled={other.busy}
          onConfirm={() => {
            setDone(null);
            void other.run(async () => {
              const reply = await send<{ token: string }>("POST", `${ADMIN}/agents/${agent.id}/token`);
              setToken(reply.token);
            });
          }}
        />
      </div>
      {done?.by === "actions" ? <Notice>{done.text}</Notice> : null}
      <FormError error={other.error} />
      <p class="form-hint">{t("admin.agents.rotateHint")}</p>
      {token ? <TokenOnce agent={agent} token={token} onDone={() => setToken(null)} /> : null}
      <p class="form-hint">{agent.eventReports === "ignored" ? t("admin.agents.eventsIgnoredHint") : t("admin.agents.eventsAcceptedHint")}</p>
      <p>
        <button
          type="button"
          class="button"
          disabled={eventReports.busy}
          onClick={() => void patch({ eventReports: agent.eventReports === "ignored" ? "accepted" : "ignored" }, t("admin.saved"), "eventReports")}
        >
          {agent.eventReports === "ignored" ? t("admin.agents.acceptEvents") : t("admin.agents.ignoreEvents")}
        </button>
      </p>
      {done?.by === "eventReports" ? <Notice>{done.text}</Notice> : null}
      <FormError error={eventReports.error} />

      <h3>{t("admin.agents.deleteTitle")}</h3>
      <RadioGroup
        legend={t("admin.agents.deleteLegend", { readings: formatNumber(agent.readings, 0) })}
        name="deleteMode"
        value={deleteMode}
        choices={[
          { value: "orphan", label: t("admin.agents.mode.orphan"), hint: t("admin.agents.mode.orphanHint") },
          { value: "delete", label: t("admin.agents.mode.delete"), hint: t("admin.agents.mode.deleteHint") },
        ]}
        onChange={setDeleteMode}
      />
      <p>
        <ConfirmButton
          label={t("admin.agents.delete")}
          action={t("admin.agents.deleteAction", { name: agentName(agent) })}
          disabled={other.busy}
          onConfirm={() => {
            void other.run(async () => {
              await send("DELETE", `${ADMIN}/agents/${agent.id}?dataMode=${deleteMode}`);
              onChanged();
              onClose();
            });
          }}
        />
      </p>
    </section>
  );
}

/** Enabled agents say whether they have reported yet: a new one waits for its first reading until it comes. */
function AgentStatus({ agent }: { agent: Agent }) {
  if (!agent.enabled) return <span class="badge badge-off">{t("admin.disabled")}</span>;
  if (agent.lastReadingAt === null) return <span class="badge badge-waiting" data-status="waiting">{t("admin.agents.waiting")}</span>;
  return <span class="badge badge-on" data-status="reporting">{t("admin.agents.reporting")}</span>;
}

function AgentTable({ agents, regions, editing, onEdit }: { agents: readonly Agent[]; regions: readonly CatalogueRegion[] | null; editing: number | null; onEdit: (id: number) => void }) {
  return (
    <AdminTable caption={t("admin.agents.caption")} columns={[t("admin.agents.agent"), t("admin.agents.platform"), t("admin.agents.region"), t("admin.agents.status"), t("admin.agents.source"), t("admin.agents.readings"), t("admin.agents.lastReading")]} actions>
      {agents.map((a) => (
        <tr key={a.id} data-agent={a.id}>
          <th scope="row">{agentName(a)}</th>
          <td>{platformName(a.platform)}</td>
          <td>{regionName(regions, a.region)}</td>
          <td>
            <AgentStatus agent={a} />
          </td>
          <td>
            {t(SOURCE_LABELS[a.source])}
            {a.provisionId ? <span class="region-id"> {a.provisionId}</span> : null}
          </td>
          <td class="num">{formatNumber(a.readings, 0)}</td>
          <td>
            <Ago ms={a.lastReadingAt} />
          </td>
          <td>
            <button type="button" class="button button-small" aria-pressed={editing === a.id} onClick={() => onEdit(a.id)} aria-label={t("admin.agents.editOne", { name: agentName(a) })}>
              {t("admin.edit")}
            </button>
          </td>
        </tr>
      ))}
    </AdminTable>
  );
}

export function AgentsSection() {
  const agents = useLoad((signal) => getPrivate<{ agents: Agent[] }>(`${ADMIN}/agents`, signal), []);
  // While an enabled agent has yet to report, the list reads itself again, so its first reading shows without a click.
  const waiting = agents.data?.agents.some((a) => a.enabled && a.lastReadingAt === null) ?? false;
  useEffect(() => {
    if (!waiting || agents.loading) return;
    const timer = setTimeout(agents.retry, WAITING_POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, agents.loading, agents.data]);
  const regions = useRegions();
  const [editing, setEditing] = useState<number | null>(null);
  const editingAgent = agents.data?.agents.find((a) => a.id === editing) ?? null;
  return (
    <>
      <Panel title={t("admin.agents.title")} id="agents-title">
        <div class="panel-head">
          <p class="lead">
            {t("admin.agents.intro")} <a href={AGENTS_GUIDE}>{t("guide.title")}</a>
          </p>
          <button type="button" class="button button-small" disabled={agents.loading} onClick={agents.retry}>
            {t("admin.refresh")}
          </button>
        </div>
        <Listed load={agents} empty={t("admin.agents.empty")} isEmpty={(d) => d.agents.length === 0}>
          {(d) => <AgentTable agents={d.agents} regions={regions.data} editing={editing} onEdit={setEditing} />}
        </Listed>
      </Panel>
      {editingAgent && regions.data ? <EditAgent key={editingAgent.id} agent={editingAgent} regions={regions.data} onChanged={agents.retry} onClose={() => setEditing(null)} /> : null}
      {regions.error ? (
        <Failed error={regions.error} retry={regions.retry} />
      ) : regions.data === null ? (
        <Loading />
      ) : (
        <CreateAgent regions={regions.data} onCreated={agents.retry} />
      )}
      <Transfer onImported={agents.retry} />
    </>
  );
}
