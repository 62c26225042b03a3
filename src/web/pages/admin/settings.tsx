/**
 * Runtime settings (SPEC §11.3): whether reads need a sign-in, whether users
 * may mint API keys, and which roles need a second factor. A setting the
 * operator set at start-up is locked: shown, disabled, and named by the
 * variable that locks it, since only a restart with another value changes it.
 */
import { useState } from "preact/hooks";
import { getPrivate, send } from "../../api/client.ts";
import { UserRole } from "../../api/vocabulary.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { FormError, Panel, SaveButton } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN, CheckField, Notice, useAction, type AdminSettings } from "./parts.tsx";

type Key = "requireAuth" | "enableApiKeys" | "mfaEnforcedRoles";

/** The operator's variable for each setting (SPEC §3). */
const VARIABLES: Readonly<Record<Key, string>> = { requireAuth: "REQUIRE_AUTH", enableApiKeys: "ENABLE_API_KEYS", mfaEnforcedRoles: "MFA_ENFORCED_ROLES" };

function lockNote(locked: readonly string[], key: Key): string | null {
  return locked.includes(key) ? t("admin.settings.locked", { variable: VARIABLES[key] }) : null;
}

function SettingsForm({ initial }: { initial: AdminSettings }) {
  const [saved, setSaved] = useState(initial);
  const [form, setForm] = useState(initial);
  const [done, setDone] = useState(false);
  const action = useAction();
  const locked = saved.locked;
  const lock = {
    requireAuth: lockNote(locked, "requireAuth"),
    enableApiKeys: lockNote(locked, "enableApiKeys"),
    mfaEnforcedRoles: lockNote(locked, "mfaEnforcedRoles"),
  };

  function toggleRole(role: UserRole, on: boolean) {
    setForm((f) => ({ ...f, mfaEnforcedRoles: on ? [...f.mfaEnforcedRoles.filter((r) => r !== role), role] : f.mfaEnforcedRoles.filter((r) => r !== role) }));
  }

  async function submit(e: Event) {
    e.preventDefault();
    setDone(false);
    // Only what changed and is not locked: the hub refuses a locked field even when its value is unchanged.
    const rolesChanged = [...form.mfaEnforcedRoles].sort().join() !== [...saved.mfaEnforcedRoles].sort().join();
    const patch = {
      ...(form.requireAuth !== saved.requireAuth && !lock.requireAuth ? { requireAuth: form.requireAuth } : {}),
      ...(form.enableApiKeys !== saved.enableApiKeys && !lock.enableApiKeys ? { enableApiKeys: form.enableApiKeys } : {}),
      ...(rolesChanged && !lock.mfaEnforcedRoles ? { mfaEnforcedRoles: form.mfaEnforcedRoles } : {}),
    };
    await action.run(async () => {
      const reply = await send<AdminSettings>("PATCH", `${ADMIN}/settings`, patch);
      setSaved(reply);
      setForm(reply);
      setDone(true);
    });
  }

  return (
    <form class="stack" onSubmit={submit} noValidate>
      <CheckField
        label={t("admin.settings.requireAuth")}
        name="requireAuth"
        checked={form.requireAuth}
        onChange={(v) => setForm((f) => ({ ...f, requireAuth: v }))}
        disabled={lock.requireAuth !== null}
        hint={t("admin.settings.requireAuthHint")}
        note={lock.requireAuth}
        error={action.error}
      />
      <CheckField
        label={t("admin.settings.enableApiKeys")}
        name="enableApiKeys"
        checked={form.enableApiKeys}
        onChange={(v) => setForm((f) => ({ ...f, enableApiKeys: v }))}
        disabled={lock.enableApiKeys !== null}
        hint={t("admin.settings.enableApiKeysHint")}
        note={lock.enableApiKeys}
        error={action.error}
      />
      <fieldset class="choices" aria-describedby={lock.mfaEnforcedRoles ? "settings-mfa-hint settings-mfa-note" : "settings-mfa-hint"}>
        <legend>{t("admin.settings.mfa")}</legend>
        {UserRole.map((role) => (
          <CheckField key={role} label={t(`admin.settings.mfa.${role}`)} name="mfaEnforcedRoles" checked={form.mfaEnforcedRoles.includes(role)} onChange={(v) => toggleRole(role, v)} disabled={lock.mfaEnforcedRoles !== null} />
        ))}
        <p class="form-hint" id="settings-mfa-hint">
          {t("admin.settings.mfaHint")}
        </p>
        {lock.mfaEnforcedRoles ? (
          <p class="lock-note" id="settings-mfa-note">
            {lock.mfaEnforcedRoles}
          </p>
        ) : null}
        {action.error?.fieldMessage("mfaEnforcedRoles") ? <p class="form-error">{action.error.fieldMessage("mfaEnforcedRoles")}</p> : null}
      </fieldset>
      <FormError error={action.error} />
      <SaveButton busy={action.busy} />
      {done ? <Notice>{t("admin.settings.saved")}</Notice> : null}
    </form>
  );
}

export function SettingsSection() {
  const settings = useLoad((signal) => getPrivate<AdminSettings>(`${ADMIN}/settings`, signal), []);
  return (
    <Panel title={t("admin.settings.title")} id="settings-title">
      <p class="lead">{t("admin.settings.intro")}</p>
      {settings.error ? <Failed error={settings.error} retry={settings.retry} /> : settings.data === null ? <Loading /> : <SettingsForm initial={settings.data} />}
    </Panel>
  );
}
