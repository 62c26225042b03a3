/**
 * The password asked for in place when the hub wants a recent sign-in before
 * a change (adding or removing a second factor, creating an API key): a modal
 * dialog over the page the viewer is on; once the hub accepts the password,
 * the change that was refused goes through by itself (api/client.ts send).
 */
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, send, whenReauthNeeded } from "../api/client.ts";
import { t } from "../i18n/index.ts";
import { Field, FormError } from "./forms.tsx";

/** Settles the pending request for a confirmation; null while none is asked for. */
const pending = signal<((confirmed: boolean) => void) | null>(null);

whenReauthNeeded(
  () =>
    new Promise<boolean>((resolve) => {
      // Two changes refused at once share one question.
      const earlier = pending.value;
      pending.value = (confirmed) => {
        earlier?.(confirmed);
        resolve(confirmed);
      };
    }),
);

export function ReauthDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const settle = pending.value;
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (settle && !element.open) element.showModal();
    if (!settle && element.open) element.close();
  }, [settle]);
  const finish = (confirmed: boolean) => {
    pending.value = null;
    setPassword("");
    setError(null);
    settle?.(confirmed);
  };
  return (
    <dialog
      ref={dialog}
      class="reauth panel"
      aria-labelledby="reauth-title"
      onCancel={(e) => {
        e.preventDefault();
        finish(false);
      }}
    >
      {settle ? (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (busy) return;
            setBusy(true);
            setError(null);
            send("POST", "/api/v1/auth/reauth", { password }).then(
              () => {
                setBusy(false);
                finish(true);
              },
              (failure: unknown) => {
                setBusy(false);
                // Signed out meanwhile: the viewer is on the way to sign in, with nothing left to confirm.
                if (failure instanceof ApiError && failure.status === 401) finish(false);
                else setError(failure instanceof ApiError ? failure : new ApiError(0, String(failure)));
              },
            );
          }}
        >
          <h2 id="reauth-title">{t("reauth.title")}</h2>
          <p>{t("reauth.lead")}</p>
          <Field label={t("login.password")} name="password" type="password" value={password} onInput={setPassword} error={error} autoComplete="current-password" required autoFocus />
          <FormError error={error} />
          <div class="button-row">
            <button type="submit" class="button button-primary" disabled={busy}>
              {t("reauth.confirm")}
            </button>
            <button type="button" class="button" onClick={() => finish(false)}>
              {t("form.cancel")}
            </button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
