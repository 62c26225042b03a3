/**
 * The fields of a webhook, shared by the create and manage forms; creating
 * one, and the json format's signing secret, shown once. The hub shows a
 * stored URL only masked, so an edit starts with the URL field empty: left
 * empty, the PATCH carries no url and the hub keeps the one it has.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { isPlatform, Platform, PLATFORM_LABELS, send, type ApiError } from "../../api/client.ts";
import { CopyValue, Field, FormError, Panel } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { AlertRole, WebhookFormat } from "../../api/vocabulary.ts";
import { formatHint, formatLabel, formatOfUrl, HOOKS, webhookName, type Webhook } from "./alerts-common.ts";
import { CheckField, Notice, RadioGroup, useAction, type CatalogueRegion, type Choice } from "./parts.tsx";

/** A new webhook starts with a condition that fires, so its defaults never make a webhook the hub refuses. */
const DEFAULT_MIN_BONUS = 50;

export interface Form {
  readonly url: string;
  readonly format: WebhookFormat;
  readonly allPlatforms: boolean;
  readonly platforms: readonly Platform[];
  readonly allRegions: boolean;
  readonly regions: readonly string[];
  readonly roles: readonly AlertRole[];
  readonly minBonus: string;
  readonly onStatus: boolean;
  readonly onEvents: boolean;
}

export function formOf(hook: Webhook | null): Form {
  if (hook === null) {
    return { url: "", format: "json", allPlatforms: true, platforms: [], allRegions: true, regions: [], roles: [...AlertRole], minBonus: String(DEFAULT_MIN_BONUS), onStatus: false, onEvents: false };
  }
  return {
    url: "",
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
 * An empty URL is no change: the webhook's form starts with it empty.
 */
export function changesOf(form: Form, hook: Webhook): Record<string, unknown> {
  const was: Record<string, unknown> = bodyOf(formOf(hook));
  return Object.fromEntries(Object.entries(bodyOf(form)).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(was[key])));
}

/** `list` with `item` ticked or not, in the order of `all`. */
function toggled<T>(all: readonly T[], list: readonly T[], item: T, on: boolean): T[] {
  return all.filter((x) => (x === item ? on : list.includes(x)));
}

function formatChoices(): Choice<WebhookFormat>[] {
  return WebhookFormat.map((f) => ({ value: f, label: formatLabel(f), hint: formatHint(f) }));
}

/** The hub's message for a whole list (platforms, regions, roles), which has no single input to sit under. */
function ListError({ error, name }: { error: ApiError | null; name: string }) {
  const message = error?.fieldMessage(name) ?? null;
  return message ? <p class="form-error">{message}</p> : null;
}

/** The fields of a webhook, shared by the create and manage forms; `stored` is the masked URL of a webhook being edited. */
export function WebhookFields({
  form,
  setForm,
  regions,
  error,
  stored = null,
}: {
  form: Form;
  setForm: (change: (f: Form) => Form) => void;
  regions: readonly CatalogueRegion[];
  error: ApiError | null;
  stored?: string | null;
}) {
  const regionIds = regions.map((r) => r.region);
  // A pasted Discord, Slack or ntfy URL picks its format, and the form says so; a choice made after the paste stands.
  const [picked, setPicked] = useState<WebhookFormat | null>(null);
  function typed(url: string) {
    const format = formatOfUrl(url);
    setPicked(format);
    setForm((f) => ({ ...f, url, format: format ?? f.format }));
  }
  return (
    <>
      <Field
        label={stored === null ? t("admin.alerts.url") : t("admin.alerts.newUrl")}
        name="url"
        value={form.url}
        onInput={typed}
        error={error}
        maxLength={2048}
        hint={stored === null ? t("admin.alerts.urlHint") : t("admin.alerts.urlKeep", { url: stored })}
        autoComplete="off"
      />
      <RadioGroup
        legend={t("admin.alerts.format")}
        name="format"
        value={form.format}
        choices={formatChoices()}
        onChange={(format) => {
          setPicked(null);
          setForm((f) => ({ ...f, format }));
        }}
      />
      {picked !== null && picked === form.format ? (
        <p class="notice" role="status" data-testid="format-picked">
          {t("admin.alerts.formatPicked", { format: formatLabel(picked) })}
        </p>
      ) : null}
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
          {Platform.map((p) => (
            <CheckField key={p} label={PLATFORM_LABELS[p]} name="platforms" checked={form.platforms.includes(p)} onChange={(on) => setForm((f) => ({ ...f, platforms: toggled(Platform, f.platforms, p, on) }))} />
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
                label={`${r.displayName} (${r.region})`}
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
        {AlertRole.map((r) => (
          <CheckField key={r} label={t(`role.${r}`)} name="roles" checked={form.roles.includes(r)} onChange={(on) => setForm((f) => ({ ...f, roles: toggled(AlertRole, f.roles, r, on) }))} />
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
export function SecretOnce({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
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

export function CreateWebhook({ regions, onCreated }: { regions: readonly CatalogueRegion[]; onCreated: () => void }) {
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
