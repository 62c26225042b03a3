/**
 * The account page's API keys (while the hub allows them): the list with
 * each key's state, switching one on or off, deleting it, and creating one,
 * whose token is shown this once beside a command that uses it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, getPrivate, send } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Empty, Failed, Loading } from "../../components/common.tsx";
import { ConfirmButton, CopyValue, Field, FormError, Panel } from "../../components/forms.tsx";
import { formatDateTime, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { useAction, type RequestBody } from "./shared.tsx";

type ApiKey = components["schemas"]["ApiKey"];
type ApiKeyList = components["schemas"]["ApiKeyList"];
type NewApiKey = components["schemas"]["NewApiKey"];

const EXPIRY_DAYS = [30, 90, 365] as const;
const STATES = {
  on: { label: "account.on", badge: "badge-enabled" },
  off: { label: "account.off", badge: "badge-disabled" },
  expired: { label: "account.expired", badge: "badge-expired" },
} as const;

function KeyItem({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: () => void }) {
  const action = useAction();
  const expired = apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now();
  const state = expired ? "expired" : apiKey.enabled ? "on" : "off";
  return (
    <li class="account-item">
      <div class="account-item-main">
        <p class="account-item-title">
          {apiKey.label ?? t("account.keys.unnamed")} <span class={`badge ${STATES[state].badge}`}>{t(STATES[state].label)}</span>
        </p>
        <p class="account-item-meta">{t("account.keys.starts", { prefix: apiKey.prefix })}</p>
        <p class="account-item-meta">
          {t("account.added", { date: formatDateTime(apiKey.createdAt) })} ·{" "}
          {apiKey.lastUsedAt === null ? t("account.neverUsed") : t("account.lastUsed", { date: formatDateTime(apiKey.lastUsedAt) })} ·{" "}
          {apiKey.expiresAt === null ? t("account.keys.noExpiry") : t("account.keys.expires", { date: formatDateTime(apiKey.expiresAt) })}
        </p>
        <FormError error={action.error} />
      </div>
      <div class="button-row">
        <button
          type="button"
          class="button"
          disabled={action.busy}
          onClick={() =>
            action.run(async () => {
              const body: RequestBody<"renameOrSwitchAKeyOnOrOff"> = { enabled: !apiKey.enabled };
              await send("PATCH", `/api/v1/auth/api-keys/${apiKey.id}`, body);
              onChanged();
            })
          }
        >
          {apiKey.enabled ? t("account.keys.disable") : t("account.keys.enable")}
        </button>
        <ConfirmButton
          label={t("account.delete")}
          action={t("account.deleteAction")}
          disabled={action.busy}
          onConfirm={() =>
            action.run(async () => {
              await send("DELETE", `/api/v1/auth/api-keys/${apiKey.id}`);
              onChanged();
            })
          }
        />
      </div>
    </li>
  );
}

/** The token, this once; focused so that a screen reader reads it out as it appears. */
function NewKey({ created, onDone }: { created: NewApiKey; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  const example = `curl -H "Authorization: Bearer ${created.key}" ${window.location.origin}/api/v1/meta`;
  return (
    <div class="new-key stack" ref={box} tabIndex={-1}>
      <p>
        <strong>{t("account.keys.created")}</strong>
      </p>
      <CopyValue value={created.key} label={t("account.keys.key")} />
      <p>{t("account.keys.example")}</p>
      <CopyValue value={example} label={t("account.keys.exampleLabel")} />
      <div class="button-row">
        <button type="button" class="button" onClick={onDone}>
          {t("account.keys.hide")}
        </button>
      </div>
    </div>
  );
}

/** The expiry as the hub takes it: a number of days, a moment (the viewer's local time) or none. */
function expiryOf(choice: string, date: string): Pick<RequestBody<"createAnAPIKey">, "expiresAt" | "expiresInDays"> {
  if (choice === "never") return {};
  if (choice !== "date") return { expiresInDays: Number(choice) };
  const at = new Date(date).getTime();
  if (!Number.isFinite(at)) throw new ApiError(0, t("form.required"), [{ location: "expiresAt", message: t("form.required") }]);
  return { expiresAt: at };
}

function CreateKey({ onCreated }: { onCreated: (created: NewApiKey) => void }) {
  const [label, setLabel] = useState("");
  const [expiry, setExpiry] = useState("90");
  const [date, setDate] = useState("");
  const action = useAction();
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        action.run(async () => {
          const body: RequestBody<"createAnAPIKey"> = { label: label.trim() || null, ...expiryOf(expiry, date) };
          const created = await send<NewApiKey>("POST", "/api/v1/auth/api-keys", body);
          setLabel("");
          onCreated(created);
        });
      }}
    >
      <Field label={t("account.keys.label")} hint={t("account.keys.labelHint")} name="label" value={label} onInput={setLabel} error={action.error} maxLength={120} />
      <div class="form-field">
        <label for="key-expiry">{t("account.keys.expiry")}</label>
        <select id="key-expiry" value={expiry} onChange={(e) => setExpiry(e.currentTarget.value)}>
          <option value="never">{t("account.keys.never")}</option>
          {EXPIRY_DAYS.map((days) => (
            <option key={days} value={String(days)}>
              {t("account.keys.days", { days })}
            </option>
          ))}
          <option value="date">{t("account.keys.onDate")}</option>
        </select>
      </div>
      {expiry === "date" ? (
        <Field label={t("account.keys.date")} name="expiresAt" type="datetime-local" value={date} onInput={setDate} error={action.error} required />
      ) : null}
      <FormError error={action.error} />
      <div class="button-row">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {t("account.keys.create")}
        </button>
      </div>
    </form>
  );
}

/** `version` changes when something elsewhere on the page changed the keys (a password change switches them off). */
export function ApiKeysPanel({ version }: { version: number }) {
  const list = useLoad((signal) => getPrivate<ApiKeyList>("/api/v1/auth/api-keys", signal), [version]);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  return (
    <Panel title={t("account.keys.title")} id="account-keys">
      <p class="lead">{t("account.keys.lead")}</p>
      {list.error ? (
        <Failed error={list.error} retry={list.retry} />
      ) : list.data === null ? (
        <Loading />
      ) : list.data.apiKeys.length === 0 ? (
        <Empty>{t("account.keys.none")}</Empty>
      ) : (
        <ul class="account-list">
          {list.data.apiKeys.map((k) => (
            <KeyItem key={k.id} apiKey={k} onChanged={list.retry} />
          ))}
        </ul>
      )}
      <h3>{t("account.keys.new")}</h3>
      {created ? <NewKey created={created} onDone={() => setCreated(null)} /> : null}
      <CreateKey
        onCreated={(fresh) => {
          setCreated(fresh);
          list.retry();
        }}
      />
    </Panel>
  );
}

type AdminSettings = components["schemas"]["AdminSettings"];

/**
 * Where the keys would be while the hub has them off: which switch turns them
 * on, and who may use it. An admin's page reads the settings, so it names the
 * console switch only when the operator has not locked it at start-up.
 */
export function ApiKeysOff({ admin }: { admin: boolean }) {
  const settings = useLoad((signal) => (admin ? getPrivate<AdminSettings>("/api/v1/admin/settings", signal) : Promise.resolve(null)), [admin]);
  const names = { switch: t("admin.settings.enableApiKeys"), settings: t("admin.settings.title"), variable: "ENABLE_API_KEYS" };
  const locked = settings.data?.locked.includes("enableApiKeys") ?? false;
  return (
    <Panel title={t("account.keys.title")} id="account-keys">
      {admin && settings.loading ? (
        <Loading />
      ) : (
        <div class="stack" data-testid="api-keys-off">
          <p>{t(locked ? "account.keys.offLocked" : admin ? "account.keys.offAdmin" : "account.keys.offUser", names)}</p>
          {admin && !locked ? (
            <p>
              <a href="/admin/settings">{t("account.keys.openSettings", names)}</a>
            </p>
          ) : null}
        </div>
      )}
    </Panel>
  );
}
