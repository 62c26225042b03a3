/** The account page's password change, and what it ended elsewhere. */
import { useState } from "preact/hooks";
import { ApiError, send } from "../../api/client.ts";
import { Field, FormError, Panel } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { Checkbox, Notice, useAction, type RequestBody } from "./shared.tsx";

export function PasswordPanel({ apiKeys, onKeysOff }: { apiKeys: boolean; onKeysOff: () => void }) {
  const [current, setCurrent] = useState("");
  const [fresh, setFresh] = useState("");
  const [again, setAgain] = useState("");
  const [revokeKeys, setRevokeKeys] = useState(true);
  const [done, setDone] = useState<{ keysOff: boolean } | null>(null);
  const action = useAction();
  return (
    <Panel title={t("account.password.title")} id="account-password">
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          setDone(null);
          action.run(async () => {
            if (fresh !== again) {
              const mismatch = t("account.password.mismatch");
              throw new ApiError(0, mismatch, [{ location: "repeat", message: mismatch }]);
            }
            // Without API keys on this hub the box is not shown and the hub's default (switch them off) stands.
            const body: RequestBody<"changePassword"> = { currentPassword: current, newPassword: fresh, revokeApiKeys: revokeKeys };
            await send("POST", "/api/v1/auth/password", body);
            setCurrent("");
            setFresh("");
            setAgain("");
            setDone({ keysOff: apiKeys && revokeKeys });
            if (revokeKeys) onKeysOff();
          });
        }}
      >
        <Field
          label={t("account.password.current")}
          name="currentPassword"
          type="password"
          value={current}
          onInput={setCurrent}
          error={action.error}
          autoComplete="current-password"
          required
        />
        <Field
          label={t("account.password.new")}
          hint={t("account.password.hint")}
          name="newPassword"
          type="password"
          value={fresh}
          onInput={setFresh}
          error={action.error}
          autoComplete="new-password"
          minLength={10}
          maxLength={1024}
          required
        />
        <Field label={t("account.password.repeat")} name="repeat" type="password" value={again} onInput={setAgain} error={action.error} autoComplete="new-password" required />
        {apiKeys ? <Checkbox label={t("account.password.revokeKeys")} hint={t("account.password.revokeKeysHint")} checked={revokeKeys} onChange={setRevokeKeys} /> : null}
        <FormError error={action.error} />
        {done ? (
          <Notice>
            <p>{t("account.password.done")}</p>
            {done.keysOff ? <p>{t("account.password.keysOff")}</p> : null}
          </Notice>
        ) : null}
        <div class="button-row">
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {t("account.password.save")}
          </button>
        </div>
      </form>
    </Panel>
  );
}
