/**
 * /setup, the first run: create the admin, choose which roles must use a
 * second factor, set up the admin's own factor when that choice requires
 * one, then the board. Each step is decided from the session the hub
 * reports after the one before, so a reload resumes where it stopped.
 */
import { useEffect, useState } from "preact/hooks";
import { send, type SessionBody } from "../api/client.ts";
import { UserRole } from "../api/vocabulary.ts";
import { Failed, Loading } from "../components/common.tsx";
import { Field, FormError, useFocusFirst } from "../components/forms.tsx";
import { t, type MessageKey } from "../i18n/index.ts";
import { refreshSession } from "../session.ts";
import { EnrolFactor } from "./account/enrol.tsx";
import { enterHub, useAction, useCurrentSession, type RequestBody } from "./account/shared.tsx";

type Step = "account" | "policy" | "factor" | "done";

const STEPS: readonly { readonly step: Exclude<Step, "done">; readonly label: MessageKey }[] = [
  { step: "account", label: "setup.step.account" },
  { step: "policy", label: "setup.step.policy" },
  { step: "factor", label: "setup.step.factor" },
];

function stepOf(body: SessionBody): Step {
  if (body.needsSetup) return "account";
  if (body.user && body.needsMfaPolicy) return "policy";
  if (body.user && body.mfa.enroll) return "factor";
  return "done";
}

function Steps({ current }: { current: Exclude<Step, "done"> }) {
  const at = STEPS.findIndex((s) => s.step === current);
  return (
    <ol class="setup-steps" aria-label={t("setup.steps")}>
      {STEPS.map((s, i) => (
        <li key={s.step} class={i < at ? "step-done" : i === at ? "step-current" : undefined} aria-current={i === at ? "step" : undefined}>
          {t(s.label)}
        </li>
      ))}
    </ol>
  );
}

function CreateAdmin() {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const action = useAction();
  return (
    <section aria-labelledby="setup-account">
      <h2 id="setup-account">{t("setup.account.title")}</h2>
      <p class="lead">{t("setup.account.lead")}</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          action.run(async () => {
            const body: RequestBody<"createTheFirstAdmin"> = { username: username.trim(), password, email: email.trim() || null, name: name.trim() || null };
            await send("POST", "/api/v1/auth/setup", body, { signedOutOk: true });
            await refreshSession();
          });
        }}
      >
        <Field label={t("setup.username")} hint={t("setup.usernameHint")} name="username" value={username} onInput={setUsername} error={action.error} autoComplete="username" maxLength={64} required autoFocus />
        <Field label={t("setup.password")} hint={t("account.password.hint")} name="password" type="password" value={password} onInput={setPassword} error={action.error} autoComplete="new-password" minLength={10} maxLength={1024} required />
        <Field label={t("setup.email")} name="email" type="email" value={email} onInput={setEmail} error={action.error} autoComplete="email" />
        <Field label={t("setup.name")} name="name" value={name} onInput={setName} error={action.error} autoComplete="name" />
        <FormError error={action.error} />
        <div class="button-row">
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {t("setup.create")}
          </button>
        </div>
      </form>
    </section>
  );
}

const POLICIES: readonly { readonly id: string; readonly roles: readonly UserRole[]; readonly label: MessageKey; readonly hint: MessageKey }[] = [
  { id: "admins", roles: ["admin"], label: "setup.policy.admins", hint: "setup.policy.adminsHint" },
  { id: "everyone", roles: UserRole, label: "setup.policy.everyone", hint: "setup.policy.everyoneHint" },
  { id: "nobody", roles: [], label: "setup.policy.nobody", hint: "setup.policy.nobodyHint" },
];

function ChoosePolicy() {
  const [chosen, setChosen] = useState("admins");
  const action = useAction();
  const first = useFocusFirst<HTMLElement>();
  return (
    <section aria-labelledby="setup-policy" ref={first}>
      <h2 id="setup-policy">{t("setup.policy.title")}</h2>
      <p class="lead">{t("setup.policy.lead")}</p>
      <form
        class="stack"
        onSubmit={(e) => {
          e.preventDefault();
          const policy = POLICIES.find((p) => p.id === chosen);
          if (!policy) return;
          action.run(async () => {
            const body: RequestBody<"chooseTheFirstMFAPolicy"> = { roles: [...policy.roles] };
            await send("POST", "/api/v1/auth/mfa/policy", body);
            await refreshSession();
          });
        }}
      >
        <fieldset class="policy-choices">
          <legend>{t("setup.policy.legend")}</legend>
          {POLICIES.map((p) => (
            <div class="policy-choice" key={p.id}>
              <input
                type="radio"
                name="policy"
                id={`policy-${p.id}`}
                value={p.id}
                checked={chosen === p.id}
                aria-describedby={`policy-${p.id}-hint`}
                onChange={() => setChosen(p.id)}
              />
              <label for={`policy-${p.id}`}>{t(p.label)}</label>
              <p class="form-hint" id={`policy-${p.id}-hint`}>
                {t(p.hint)}
              </p>
            </div>
          ))}
        </fieldset>
        <FormError error={action.error} />
        <div class="button-row">
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {t("setup.policy.save")}
          </button>
        </div>
      </form>
    </section>
  );
}

function SetupFactor() {
  const first = useFocusFirst<HTMLElement>();
  return (
    <section aria-labelledby="setup-factor" ref={first}>
      <h2 id="setup-factor">{t("setup.factor.title")}</h2>
      <p class="lead">{t("setup.factor.lead")}</p>
      <EnrolFactor
        onDone={async () => {
          await refreshSession();
        }}
      />
    </section>
  );
}

function AlreadySetUp({ signedIn }: { signedIn: boolean }) {
  return (
    <section class="panel auth-page">
      <h1>{t("setup.title")}</h1>
      <p>{t("setup.already")}</p>
      <p>{signedIn ? <a href="/">{t("setup.toBoard")}</a> : <a href="/login">{t("setup.toLogin")}</a>}</p>
    </section>
  );
}

export function SetupPage() {
  const current = useCurrentSession();
  const step = current.body ? stepOf(current.body) : null;
  // Whether this visit went through a step: finishing then opens the board, while a hub set up before only says so.
  const [walked, setWalked] = useState(false);
  useEffect(() => {
    if (step !== null && step !== "done") setWalked(true);
    if (step === "done" && walked) enterHub("/");
  }, [step, walked]);
  if (current.error) return <Failed error={current.error} retry={current.retry} />;
  if (step === null || (step === "done" && walked)) return <Loading />;
  if (step === "done") return <AlreadySetUp signedIn={current.body?.authenticated ?? false} />;
  return (
    <div class="auth-page">
      <h1>{t("setup.title")}</h1>
      <Steps current={step} />
      {step === "account" ? <CreateAdmin /> : step === "policy" ? <ChoosePolicy /> : <SetupFactor />}
    </div>
  );
}
