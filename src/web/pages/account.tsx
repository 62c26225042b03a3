/**
 * /account, for a signed-in person: who they are, their password, second
 * factors and remembered devices, API keys (or, while the hub has them off,
 * which switch turns them on), and signing out. A viewer who is not fully
 * signed in is sent to /login and brought back here afterwards.
 */
import { useEffect, useState } from "preact/hooks";
import { send } from "../api/client.ts";
import type { components } from "../api/schema";
import { Failed, Loading } from "../components/common.tsx";
import { FormError, Panel } from "../components/forms.tsx";
import { formatDateTime, t } from "../i18n/index.ts";
import { goSignIn } from "../session.ts";
import { ApiKeysOff, ApiKeysPanel } from "./account/api-keys.tsx";
import { FactorsPanel } from "./account/factors.tsx";
import { PasswordPanel } from "./account/password.tsx";
import { enterHub, useAction, useCurrentSession } from "./account/shared.tsx";

type User = components["schemas"]["User"];

const ROLE_LABELS = { admin: "account.role.admin", user: "account.role.user" } as const;

function Profile({ user }: { user: User }) {
  const unset = <span class="profile-unset">{t("account.notSet")}</span>;
  return (
    <Panel title={t("account.profile")} id="account-profile">
      <dl class="profile-facts">
        <dt>{t("account.username")}</dt>
        <dd>{user.username}</dd>
        <dt>{t("account.name")}</dt>
        <dd>{user.name ?? unset}</dd>
        <dt>{t("account.email")}</dt>
        <dd>{user.email ?? unset}</dd>
        <dt>{t("account.role")}</dt>
        <dd>{t(ROLE_LABELS[user.role])}</dd>
        <dt>{t("account.since")}</dt>
        <dd>{formatDateTime(user.createdAt)}</dd>
      </dl>
      <p class="form-hint">{t("account.profileHint")}</p>
    </Panel>
  );
}

function SignOut() {
  const action = useAction();
  return (
    <Panel title={t("account.signOut.title")} id="account-sign-out">
      <div class="stack">
        <p>{t("account.signOut.lead")}</p>
        <FormError error={action.error} />
        <div class="button-row">
          <button
            type="button"
            class="button"
            disabled={action.busy}
            onClick={() =>
              action.run(async () => {
                await send("POST", "/api/v1/auth/logout");
                enterHub("/");
              })
            }
          >
            {t("account.signOut")}
          </button>
        </div>
      </div>
    </Panel>
  );
}

export function AccountPage() {
  const current = useCurrentSession();
  const { body } = current;
  // A password change switches the API keys off: their list is read again.
  const [keysVersion, setKeysVersion] = useState(0);
  const signedOut = body !== null && !(body.authenticated && body.user);
  useEffect(() => {
    if (signedOut) goSignIn();
  }, [signedOut]);
  if (current.error) return <Failed error={current.error} retry={current.retry} />;
  if (!body?.authenticated || !body.user) return <Loading />;
  return (
    <div class="account-page">
      <h1>{t("account.title")}</h1>
      <Profile user={body.user} />
      <PasswordPanel apiKeys={body.enableApiKeys} onKeysOff={() => setKeysVersion((n) => n + 1)} />
      <FactorsPanel totpEnabled={body.user.totpEnabled} />
      {body.enableApiKeys ? <ApiKeysPanel version={keysVersion} /> : <ApiKeysOff admin={body.user.role === "admin"} />}
      <SignOut />
    </div>
  );
}
