/**
 * Alerts (SPEC §18): the hub's outbound webhooks. The list says where each
 * one posts, what fires it and whether it works (a failing or disabled
 * webhook is named above the table, not only in its row); create and edit
 * with the hub's validation at each field (a target on the hub's own network
 * is refused at the URL unless the operator allows it); the json format's
 * signing secret shown once, when made and when rotated; a test message; the
 * delivery log, a page at a time.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getPrivate, isPlatform, PLATFORM_LABELS, PLATFORMS, send, type ApiError, type Platform } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { now } from "../../clock.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { ConfirmButton, CopyValue, Field, FormError, Panel, SaveButton } from "../../components/forms.tsx";
import { formatBonus, formatDateTime, formatNumber, formatRelative, t, type MessageKey } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import {
  ADMIN,
  Ago,
  CheckField,
  Listed,
  Notice,
  platformName,
  RadioGroup,
  regionName,
  TableWrap,
  useAction,
  useRegions,
  When,
  type CatalogueRegion,
  type Choice, AdminTable } from "./parts.tsx";

type Schemas = components["schemas"];
type Webhook = Schemas["Webhook"];
type DeliveryPage = Schemas["WebhookDeliveryPage"];
type Format = Webhook["format"];
type Role = Webhook["roles"][number];
type DeliveryType = Schemas["WebhookDelivery"]["type"];
type DeliveryStatus = Schemas["WebhookDelivery"]["status"];

const HOOKS = `${ADMIN}/webhooks`;
const FORMATS: readonly Format[] = ["json", "discord", "slack", "ntfy"];
const ROLES: readonly Role[] = ["survivor", "killer"];
const DELIVERY_PAGE_SIZE = 25;
/** A pending delivery changes on its own (sent, retried, given up), so a log showing one reads itself again this often. */
const PENDING_POLL_MS = 3000;

const FORMAT_LABELS: Readonly<Record<Format, { label: MessageKey; hint: MessageKey }>> = {
  json: { label: "admin.alerts.format.json", hint: "admin.alerts.format.jsonHint" },
  discord: { label: "admin.alerts.format.discord", hint: "admin.alerts.format.discordHint" },
  slack: { label: "admin.alerts.format.slack", hint: "admin.alerts.format.slackHint" },
  ntfy: { label: "admin.alerts.format.ntfy", hint: "admin.alerts.format.ntfyHint" },
};

/** Whose bonus is watched decides the wording, so each case is its own message (languages inflect the role differently). */
const BONUS_TEXTS = {
  survivor: { any: "admin.alerts.fires.anySurvivor", atLeast: "admin.alerts.fires.survivor" },
  killer: { any: "admin.alerts.fires.anyKiller", atLeast: "admin.alerts.fires.killer" },
  either: { any: "admin.alerts.fires.anyEither", atLeast: "admin.alerts.fires.either" },
} as const;

const TYPE_LABELS: Readonly<Record<DeliveryType, MessageKey>> = {
  "bonus.reached": "admin.alerts.type.bonusReached",
  "status.changed": "admin.alerts.type.statusChanged",
  "event.started": "admin.alerts.type.eventStarted",
  "event.ended": "admin.alerts.type.eventEnded",
  test: "admin.alerts.type.test",
};

const STATUS_LABELS: Readonly<Record<DeliveryStatus, MessageKey>> = {
  pending: "admin.alerts.status.pending",
  delivered: "admin.alerts.status.delivered",
  failed: "admin.alerts.status.failed",
};

/** The list names a target by its host only: for Discord, Slack and ntfy the rest of the URL is the credential. */
function hostOf(url: string): string {
  return URL.parse(url)?.host ?? url;
}

function webhookName(hook: Webhook): string {
  return t("admin.alerts.name", { id: hook.id, host: hostOf(hook.url) });
}

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
          <td>{t(FORMAT_LABELS[h.format].label)}</td>
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

interface Form {
  readonly url: string;
  readonly format: Format;
  readonly allPlatforms: boolean;
  readonly platforms: readonly Platform[];
  readonly allRegions: boolean;
  readonly regions: readonly string[];
  readonly roles: readonly Role[];
  readonly minBonus: string;
  readonly onStatus: boolean;
  readonly onEvents: boolean;
}

function formOf(hook: Webhook | null): Form {
  if (hook === null) {
    return { url: "", format: "json", allPlatforms: true, platforms: [], allRegions: true, regions: [], roles: [...ROLES], minBonus: "", onStatus: false, onEvents: false };
  }
  return {
    url: hook.url,
    format: hook.format,
    allPlatforms: hook.platforms === null,
    platforms: (hook.platforms ?? []).filter(isPlatform),
    allRegions: hook.regions === null,
    regions: hook.regions ?? [],
    roles: hook.roles,
    minBonus: hook.minBonus === null ? "" : String(hook.minBonus),
    onStatus: hook.onStatus,
    onEvents: hook.onEvents,
  };
}

/** Empty means no bonus alerts; what is not a number goes as typed, so the hub's message lands at its field. */
function minBonusOf(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : trimmed;
}

function bodyOf(form: Form) {
  return {
    url: form.url.trim(),
    format: form.format,
    platforms: form.allPlatforms ? null : form.platforms,
    regions: form.allRegions ? null : form.regions,
    roles: form.roles,
    minBonus: minBonusOf(form.minBonus),
    onStatus: form.onStatus,
    onEvents: form.onEvents,
  };
}

/**
 * Only the fields that differ from the webhook as the hub has it: the audit
 * log then says what changed, and conditions left alone are not judged afresh
 * (the hub counts conditions holding when they are saved as already fired).
 */
function changesOf(form: Form, hook: Webhook): Record<string, unknown> {
  const was: Record<string, unknown> = bodyOf(formOf(hook));
  return Object.fromEntries(Object.entries(bodyOf(form)).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(was[key])));
}

/** `list` with `item` ticked or not, in the order of `all`. */
function toggled<T>(all: readonly T[], list: readonly T[], item: T, on: boolean): T[] {
  return all.filter((x) => (x === item ? on : list.includes(x)));
}

function formatChoices(): Choice<Format>[] {
  return FORMATS.map((f) => ({ value: f, label: t(FORMAT_LABELS[f].label), hint: t(FORMAT_LABELS[f].hint) }));
}

/** The hub's message for a whole list (platforms, regions, roles), which has no single input to sit under. */
function ListError({ error, name }: { error: ApiError | null; name: string }) {
  const message = error?.fieldMessage(name) ?? null;
  return message ? <p class="form-error">{message}</p> : null;
}

/** The fields of a webhook, shared by the create and manage forms. */
function WebhookFields({ form, setForm, regions, error }: { form: Form; setForm: (change: (f: Form) => Form) => void; regions: readonly CatalogueRegion[]; error: ApiError | null }) {
  const regionIds = regions.map((r) => r.region);
  return (
    <>
      <Field label={t("admin.alerts.url")} name="url" value={form.url} onInput={(url) => setForm((f) => ({ ...f, url }))} error={error} maxLength={2048} hint={t("admin.alerts.urlHint")} autoComplete="off" />
      <RadioGroup legend={t("admin.alerts.format")} name="format" value={form.format} choices={formatChoices()} onChange={(format) => setForm((f) => ({ ...f, format }))} />
      <RadioGroup
        legend={t("admin.alerts.platforms")}
        name="platforms"
        value={form.allPlatforms ? "all" : "some"}
        choices={[
          { value: "all", label: t("admin.alerts.allPlatforms"), hint: t("admin.alerts.allPlatformsHint") },
          { value: "some", label: t("admin.alerts.somePlatforms"), hint: t("admin.alerts.somePlatformsHint") },
        ]}
        onChange={(v) => setForm((f) => ({ ...f, allPlatforms: v === "all" }))}
      />
      {form.allPlatforms ? null : (
        <fieldset class="choices">
          <legend>{t("admin.alerts.whichPlatforms")}</legend>
          {PLATFORMS.map((p) => (
            <CheckField key={p} label={PLATFORM_LABELS[p]} name="platforms" checked={form.platforms.includes(p)} onChange={(on) => setForm((f) => ({ ...f, platforms: toggled(PLATFORMS, f.platforms, p, on) }))} />
          ))}
        </fieldset>
      )}
      <ListError error={error} name="platforms" />
      <RadioGroup
        legend={t("admin.alerts.regions")}
        name="regions"
        value={form.allRegions ? "all" : "some"}
        choices={[
          { value: "all", label: t("admin.alerts.allRegions"), hint: t("admin.alerts.allRegionsHint") },
          { value: "some", label: t("admin.alerts.someRegions"), hint: t("admin.alerts.someRegionsHint") },
        ]}
        onChange={(v) => setForm((f) => ({ ...f, allRegions: v === "all" }))}
      />
      {form.allRegions ? null : (
        <fieldset class="choices">
          <legend>{t("admin.alerts.whichRegions")}</legend>
          <div class="webhook-regions">
            {regions.map((r) => (
              <CheckField
                key={r.region}
                label={`${r.flag} ${r.displayName} (${r.region})`}
                name="regions"
                checked={form.regions.includes(r.region)}
                onChange={(on) => setForm((f) => ({ ...f, regions: toggled(regionIds, f.regions, r.region, on) }))}
              />
            ))}
          </div>
        </fieldset>
      )}
      <ListError error={error} name="regions" />
      <fieldset class="choices">
        <legend>{t("admin.alerts.roles")}</legend>
        <p class="form-hint">{t("admin.alerts.rolesHint")}</p>
        {ROLES.map((r) => (
          <CheckField key={r} label={t(r === "survivor" ? "role.survivor" : "role.killer")} name="roles" checked={form.roles.includes(r)} onChange={(on) => setForm((f) => ({ ...f, roles: toggled(ROLES, f.roles, r, on) }))} />
        ))}
      </fieldset>
      <ListError error={error} name="roles" />
      <Field label={t("admin.alerts.minBonus")} name="minBonus" value={form.minBonus} onInput={(minBonus) => setForm((f) => ({ ...f, minBonus }))} error={error} inputMode="numeric" hint={t("admin.alerts.minBonusHint")} autoComplete="off" />
      <fieldset class="choices">
        <legend>{t("admin.alerts.also")}</legend>
        <CheckField label={t("admin.alerts.onStatus")} name="onStatus" checked={form.onStatus} onChange={(onStatus) => setForm((f) => ({ ...f, onStatus }))} error={error} hint={t("admin.alerts.onStatusHint")} />
        <CheckField label={t("admin.alerts.onEvents")} name="onEvents" checked={form.onEvents} onChange={(onEvents) => setForm((f) => ({ ...f, onEvents }))} error={error} hint={t("admin.alerts.onEventsHint")} />
      </fieldset>
    </>
  );
}

/** The json format's signing secret, shown only now (the hub never shows it again), with how to check signatures. */
function SecretOnce({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div class="token-once" data-testid="secret-once">
      <h3 ref={heading} tabIndex={-1}>
        {t("admin.alerts.secretTitle", { name })}
      </h3>
      <p>{t("admin.alerts.secretOnce")}</p>
      <CopyValue value={secret} label={t("admin.alerts.secret")} />
      <p class="form-hint">{t("admin.alerts.secretVerify")}</p>
      <p>
        <button type="button" class="button" onClick={onDone}>
          {t("admin.alerts.secretDone")}
        </button>
      </p>
    </div>
  );
}

function CreateWebhook({ regions, onCreated }: { regions: readonly CatalogueRegion[]; onCreated: () => void }) {
  const [form, setForm] = useState(() => formOf(null));
  const [enabled, setEnabled] = useState(true);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  async function submit(e: Event) {
    e.preventDefault();
    setDone(null);
    await action.run(async () => {
      const reply = await send<{ webhook: Webhook; secret: string }>("POST", HOOKS, { ...bodyOf(form), enabled });
      const name = webhookName(reply.webhook);
      // Only the json format signs its messages; for the others the URL is the credential and the secret is never used.
      if (reply.webhook.format === "json") setSecret({ name, secret: reply.secret });
      else setDone(t("admin.alerts.created", { name }));
      setForm(formOf(null));
      setEnabled(true);
      onCreated();
    });
  }
  return (
    <Panel title={t("admin.alerts.createTitle")} id="webhook-create">
      {secret ? (
        <SecretOnce name={secret.name} secret={secret.secret} onDone={() => setSecret(null)} />
      ) : (
        <form class="stack" onSubmit={submit} noValidate>
          <WebhookFields form={form} setForm={setForm} regions={regions} error={action.error} />
          <CheckField label={t("admin.alerts.enabled")} name="enabled" checked={enabled} onChange={setEnabled} error={action.error} hint={t("admin.alerts.enabledHint")} />
          <FormError error={action.error} />
          <p>
            <button type="submit" class="button button-primary" disabled={action.busy}>
              {action.busy ? t("form.saving") : t("admin.alerts.create")}
            </button>
          </p>
        </form>
      )}
      {done ? <Notice>{done}</Notice> : null}
    </Panel>
  );
}

/** One webhook's deliveries, newest first, a page at a time (the reply's `next` is the `before` of the older page). */
function DeliveryLog({ hook }: { hook: Webhook }) {
  const name = webhookName(hook);
  // The `before` of each page read so far: the last is the page shown, so "newer" steps back through them.
  const [cursors, setCursors] = useState<readonly (number | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const page = useLoad(
    (signal) => {
      const params = new URLSearchParams({ limit: String(DELIVERY_PAGE_SIZE) });
      if (before !== null) params.set("before", String(before));
      return getPrivate<DeliveryPage>(`${HOOKS}/${hook.id}/deliveries?${params.toString()}`, signal);
    },
    [hook.id, before],
  );
  const pending = page.data?.deliveries.some((d) => d.status === "pending") ?? false;
  useEffect(() => {
    if (!pending || page.loading) return;
    const timer = setTimeout(page.retry, PENDING_POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, page.loading, page.data]);
  const next = page.data?.next ?? null;
  const at = now.value;
  return (
    <Panel title={t("admin.alerts.logTitle", { name })} id="webhook-log">
      <div class="panel-head">
        <p class="lead">{t("admin.alerts.logIntro")}</p>
        <button type="button" class="button button-small" disabled={page.loading} onClick={page.retry}>
          {t("admin.refresh")}
        </button>
      </div>
      <Listed load={page} empty={cursors.length > 1 ? t("admin.alerts.logNoOlder") : t("admin.alerts.logEmpty")} isEmpty={(d) => d.deliveries.length === 0}>
        {(d) => (
          <TableWrap label={t("admin.alerts.logCaption", { name })}>
            <table class="admin-table">
              <caption>{t("admin.alerts.logCaption", { name })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("admin.alerts.time")}</th>
                  <th scope="col">{t("admin.alerts.type")}</th>
                  <th scope="col">{t("admin.alerts.status")}</th>
                  <th scope="col">{t("admin.alerts.attempts")}</th>
                  <th scope="col">{t("admin.alerts.statusCode")}</th>
                  <th scope="col">{t("admin.alerts.lastError")}</th>
                  <th scope="col">{t("admin.alerts.nextAttempt")}</th>
                </tr>
              </thead>
              <tbody>
                {d.deliveries.map((delivery) => (
                  <tr key={delivery.id} data-delivery={delivery.type} data-status={delivery.status}>
                    <th scope="row">
                      <When ms={delivery.createdAt} seconds />
                    </th>
                    <td>{t(TYPE_LABELS[delivery.type])}</td>
                    <td>
                      <span class={`badge badge-${delivery.status}`}>{t(STATUS_LABELS[delivery.status])}</span>
                    </td>
                    <td class="num">{formatNumber(delivery.attempts, 0)}</td>
                    <td class="num">{delivery.lastStatusCode ?? "—"}</td>
                    <td class="wrap">{delivery.lastError ?? "—"}</td>
                    <td>
                      {delivery.nextAttemptAt === null ? (
                        "—"
                      ) : (
                        <time dateTime={new Date(delivery.nextAttemptAt).toISOString()} title={formatDateTime(delivery.nextAttemptAt)}>
                          {/* An attempt that is due is about to be made: it reads "now", never "1 second ago". */}
                          {formatRelative(Math.max(delivery.nextAttemptAt, at), at)}
                        </time>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Listed>
      <nav class="pagination" aria-label={t("admin.alerts.pages")}>
        <span>
          {cursors.length > 1 ? (
            <button type="button" class="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
              {t("admin.alerts.newer")}
            </button>
          ) : null}
        </span>
        <span>{t("admin.alerts.pageNumber", { page: cursors.length })}</span>
        <span class="pagination-end">
          {next !== null && !page.loading ? (
            <button type="button" class="button" onClick={() => setCursors((c) => [...c, next])}>
              {t("admin.alerts.older")}
            </button>
          ) : null}
        </span>
      </nav>
    </Panel>
  );
}

/** One webhook's settings, its test message, secret, removal and delivery log. */
function ManageWebhook({ hook: initial, regions, onChanged, onClose }: { hook: Webhook; regions: readonly CatalogueRegion[]; onChanged: () => void; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: "start" });
  }, []);
  // The editor keeps the hub's latest answer, so the actions read what the webhook is now.
  const [hook, setHook] = useState(initial);
  // A newer list (a refresh, or the hub having disabled the webhook) replaces it too; the form keeps what is being typed.
  useEffect(() => setHook(initial), [initial]);
  const [form, setForm] = useState(() => formOf(initial));
  const [saved, setSaved] = useState<string | null>(null);
  const [acted, setActed] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  // A test message is new in the log: the log starts again from its newest page.
  const [logVersion, setLogVersion] = useState(0);
  const save = useAction();
  const other = useAction();
  const name = webhookName(hook);

  async function patch(body: Record<string, unknown>, action: ReturnType<typeof useAction>, done: (message: string | null) => void, message: string) {
    setSaved(null);
    setActed(null);
    await action.run(async () => {
      const reply = await send<{ webhook: Webhook }>("PATCH", `${HOOKS}/${hook.id}`, body);
      setHook(reply.webhook);
      setForm(formOf(reply.webhook));
      done(message);
      onChanged();
    });
  }

  async function submit(e: Event) {
    e.preventDefault();
    await patch(changesOf(form, hook), save, setSaved, t("admin.saved"));
  }

  function test() {
    setActed(null);
    void other.run(async () => {
      await send<{ deliveryId: number }>("POST", `${HOOKS}/${hook.id}/test`);
      setActed(t("admin.alerts.testSent"));
      setLogVersion((v) => v + 1);
    });
  }

  return (
    <>
      <section class="panel" aria-labelledby="webhook-manage">
        <div class="panel-head">
          <h2 id="webhook-manage" ref={heading} tabIndex={-1}>
            {t("admin.alerts.manageTitle", { name })}
          </h2>
          <button type="button" class="button" onClick={onClose}>
            {t("admin.close")}
          </button>
        </div>
        <form class="stack" onSubmit={submit} noValidate>
          <WebhookFields form={form} setForm={setForm} regions={regions} error={save.error} />
          <FormError error={save.error} />
          <SaveButton busy={save.busy} />
        </form>
        {saved ? <Notice>{saved}</Notice> : null}

        <h3>{t("admin.alerts.actions")}</h3>
        <p class="form-hint">{hook.enabled ? t("admin.alerts.enabledNow") : t("admin.alerts.disabledNow")}</p>
        <div class="button-row">
          <button
            type="button"
            class="button"
            disabled={other.busy}
            onClick={() => void patch({ enabled: !hook.enabled }, other, setActed, hook.enabled ? t("admin.alerts.wasDisabled") : t("admin.alerts.wasEnabled"))}
          >
            {hook.enabled ? t("admin.alerts.disable") : t("admin.alerts.enable")}
          </button>
          <button type="button" class="button" disabled={other.busy} onClick={test}>
            {t("admin.alerts.test")}
          </button>
          {hook.format === "json" ? (
            <ConfirmButton
              label={t("admin.alerts.rotate")}
              action={t("admin.alerts.rotateAction")}
              disabled={other.busy}
              onConfirm={() => {
                setActed(null);
                void other.run(async () => setSecret((await send<{ secret: string }>("POST", `${HOOKS}/${hook.id}/secret`)).secret));
              }}
            />
          ) : null}
        </div>
        <p class="form-hint">{t("admin.alerts.testHint")}</p>
        {hook.format === "json" ? <p class="form-hint">{t("admin.alerts.rotateHint")}</p> : null}
        {acted ? <Notice>{acted}</Notice> : null}
        {secret ? <SecretOnce name={name} secret={secret} onDone={() => setSecret(null)} /> : null}

        <h3>{t("admin.alerts.deleteTitle")}</h3>
        <p class="form-hint">{t("admin.alerts.deleteHint")}</p>
        <p>
          <ConfirmButton
            label={t("admin.alerts.delete")}
            action={t("admin.alerts.deleteAction", { name })}
            disabled={other.busy}
            onConfirm={() => {
              void other.run(async () => {
                await send("DELETE", `${HOOKS}/${hook.id}`);
                onChanged();
                onClose();
              });
            }}
          />
        </p>
        <FormError error={other.error} />
      </section>
      <DeliveryLog key={logVersion} hook={hook} />
    </>
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
    </>
  );
}
