/**
 * /login: the password, then what the hub's reply asks for: nothing more,
 * a second factor from the account's methods (a code or a passkey, with
 * "remember this device"), or setting one up first. A session that already
 * passed the password resumes at its second step after a reload.
 */
import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { useState } from "preact/hooks";
import { send, type SessionBody } from "../api/client.ts";
import type { components } from "../api/schema";
import { Failed, Loading } from "../components/common.tsx";
import { Field, FormError, useFocusFirst } from "../components/forms.tsx";
import { t } from "../i18n/index.ts";
import { location, navigate } from "../router.ts";
import { nextPath, refreshSession } from "../session.ts";
import { EnrolFactor } from "./account/enrol.tsx";
import { Checkbox, enterHub, useAction, useCurrentSession, type RequestBody } from "./account/shared.tsx";

type LoginReply = components["schemas"]["LoginReply"];
type Method = SessionBody["mfa"]["methods"][number];

/** As with registration (enrol.tsx): the hub's library made these options, so they are the JSON this library reads. */
interface RequestOptions {
  readonly publicKey: PublicKeyCredentialRequestOptionsJSON;
}

/**
 * Fully signed in (the session was replaced by a new one, so it is read
 * again): on to `target`, unless this admin's hub never chose its MFA policy
 * (a bootstrapped first admin), which they choose first, as setup does.
 */
async function finishSignIn(target: string): Promise<void> {
  if ((await refreshSession()).needsMfaPolicy) navigate("/setup");
  else enterHub(target);
}

/** Back to the password, as someone else or after a mistake: this half-signed-in session ends. */
async function startOver(): Promise<void> {
  await send("POST", "/api/v1/auth/logout", undefined, { signedOutOk: true });
  await refreshSession();
}

function PasswordStep({ target, needsSetup }: { target: string; needsSetup: boolean }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  return (
    <div class="auth-page">
      <h1>{t("login.title")}</h1>
      {needsSetup ? (
        <p class="account-notice">
          {t("login.needsSetup")} <a href="/setup">{t("login.setupLink")}</a>
        </p>
      ) : null}
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          action.run(async () => {
            const body: RequestBody<"signIn"> = { username: username.trim(), password };
            // A wrong password is a 401 of this call, not a lost session.
            const reply = await send<LoginReply>("POST", "/api/v1/auth/login", body, { signedOutOk: true });
            if (reply.next === "ok") await finishSignIn(target);
            else await refreshSession();
          });
        }}
      >
        <Field label={t("login.username")} name="username" value={username} onInput={setUsername} error={action.error} autoComplete="username" maxLength={64} required autoFocus />
        <Field label={t("login.password")} name="password" type="password" value={password} onInput={setPassword} error={action.error} autoComplete="current-password" required />
        <FormError error={action.error} />
        <div class="button-row">
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {t("login.submit")}
          </button>
        </div>
      </form>
    </div>
  );
}

function VerifyStep({ methods, target }: { methods: readonly Method[]; target: string }) {
  const [code, setCode] = useState("");
  const [remember, setRemember] = useState(false);
  const action = useAction();
  const totp = methods.includes("totp");
  const passkeys = methods.includes("webauthn");
  const passkeysHere = passkeys && browserSupportsWebAuthn();
  return (
    <div class="auth-page">
      <h1>{t("login.mfa.title")}</h1>
      <p class="lead">{t("login.mfa.lead")}</p>
      <div class="stack">
        <Checkbox label={t("login.remember")} hint={t("login.rememberHint")} checked={remember} onChange={setRemember} />
        {totp ? (
          <form
            class="stack"
            onSubmit={(e) => {
              e.preventDefault();
              action.run(async () => {
                const body: RequestBody<"verifyWithTOTP"> = { code: code.trim(), rememberDevice: remember };
                await send("POST", "/api/v1/auth/mfa/totp/verification", body, { signedOutOk: true });
                await finishSignIn(target);
              });
            }}
          >
            <Field
              label={t("login.code")}
              hint={t("login.codeHint")}
              name="code"
              value={code}
              onInput={setCode}
              error={action.error}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              required
              autoFocus
            />
            <div class="button-row">
              <button type="submit" class="button button-primary" disabled={action.busy}>
                {t("login.verify")}
              </button>
            </div>
          </form>
        ) : null}
        {totp && passkeysHere ? <p class="login-or">{t("login.or")}</p> : null}
        {passkeysHere ? (
          <div class="button-row">
            <button
              type="button"
              class={totp ? "button" : "button button-primary"}
              disabled={action.busy}
              onClick={() =>
                action.run(async () => {
                  const { publicKey } = await send<RequestOptions>("POST", "/api/v1/auth/mfa/passkeys/challenge", undefined, { signedOutOk: true });
                  const credential = await startAuthentication({ optionsJSON: publicKey });
                  // The credential goes as the body itself; remembering rides in the query.
                  await send("POST", `/api/v1/auth/mfa/passkeys/verification${remember ? "?remember=true" : ""}`, credential, { signedOutOk: true });
                  await finishSignIn(target);
                })
              }
            >
              {t("login.passkey")}
            </button>
          </div>
        ) : null}
        {passkeys && !passkeysHere ? <p class="form-hint">{t("account.passkey.unsupported")}</p> : null}
        <FormError error={action.error} />
        <div class="button-row">
          <button type="button" class="button" onClick={() => action.run(startOver)}>
            {t("login.startOver")}
          </button>
        </div>
      </div>
    </div>
  );
}

function EnrolStep({ target }: { target: string }) {
  const action = useAction();
  const first = useFocusFirst<HTMLDivElement>();
  return (
    <div class="auth-page" ref={first}>
      <h1>{t("login.enrol.title")}</h1>
      <p class="lead">{t("login.enrol.lead")}</p>
      <EnrolFactor onDone={() => finishSignIn(target)} />
      <FormError error={action.error} />
      <div class="button-row">
        <button type="button" class="button" onClick={() => action.run(startOver)}>
          {t("login.startOver")}
        </button>
      </div>
    </div>
  );
}

function SignedIn({ username, target }: { username: string; target: string }) {
  const action = useAction();
  return (
    <div class="auth-page">
      <h1>{t("login.title")}</h1>
      <p>{t("login.signedInAs", { name: username })}</p>
      <FormError error={action.error} />
      <div class="button-row">
        {/* data-external: a full load, so the shell reads the hub's data again as this account (see enterHub). */}
        <a class="button button-primary" href={target} data-external="">
          {target === "/" ? t("login.toBoard") : t("login.continue")}
        </a>
        <button type="button" class="button" disabled={action.busy} onClick={() => action.run(startOver)}>
          {t("login.signOut")}
        </button>
      </div>
    </div>
  );
}

export function LoginPage() {
  const current = useCurrentSession();
  const { body } = current;
  if (current.error) return <Failed error={current.error} retry={current.retry} />;
  if (!body) return <Loading />;
  const target = nextPath(location.value.search);
  if (body.authenticated && body.user) return <SignedIn username={body.user.username} target={target} />;
  if (body.authLevel === "password") return body.mfa.enroll ? <EnrolStep target={target} /> : <VerifyStep methods={body.mfa.methods} target={target} />;
  return <PasswordStep target={target} needsSetup={body.needsSetup} />;
}
