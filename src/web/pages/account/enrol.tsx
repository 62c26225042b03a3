/**
 * Setting up a second factor, the same on first-run setup, on a sign-in that
 * must enrol one, and on the account page: an authenticator app (QR code,
 * the key as text for typing in, a code to confirm) or a passkey through
 * @simplewebauthn/browser, the browser half of the hub's own library.
 */
import { browserSupportsWebAuthn, startRegistration, type PublicKeyCredentialCreationOptionsJSON } from "@simplewebauthn/browser";
import { useState } from "preact/hooks";
import { send } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { CopyValue, Field, FormError } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import { useAction } from "./shared.tsx";

type TotpEnrolment = components["schemas"]["TotpEnrolment"];

/**
 * The hub makes these options with @simplewebauthn/server, so they are the
 * JSON this library reads; schema.d.ts types them more loosely (any string
 * as a credential type), which the library's stricter type would refuse.
 */
interface CreationOptions {
  readonly publicKey: PublicKeyCredentialCreationOptionsJSON;
}

export interface EnrolProps {
  /** Called once the factor is active (the session is then fully signed in, if it was not). */
  readonly onDone: () => Promise<void>;
}

export function TotpEnrol({ onDone }: EnrolProps) {
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState("");
  const action = useAction();
  if (!enrolment) {
    return (
      <div class="stack">
        <p>{t("account.totp.intro")}</p>
        <div class="button-row">
          <button
            type="button"
            class="button"
            disabled={action.busy}
            onClick={() => action.run(async () => setEnrolment(await send<TotpEnrolment>("POST", "/api/v1/auth/mfa/totp")))}
          >
            {t("account.totp.start")}
          </button>
        </div>
        <FormError error={action.error} />
      </div>
    );
  }
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        action.run(async () => {
          // A wrong code is a 401 of this call, not a lost session: it stays on the form.
          await send("POST", "/api/v1/auth/mfa/totp/activation", { code: code.trim() }, { signedOutOk: true });
          await onDone();
        });
      }}
    >
      <ol class="totp-steps">
        <li>
          <p>{t("account.totp.scan")}</p>
          <img class="totp-qr" src={enrolment.qr} alt={t("account.totp.qrAlt")} width={200} height={200} />
          {/* A phone cannot scan its own screen: the otpauth: link hands the same entry to the app on this device. */}
          <p>
            <a href={enrolment.uri} data-external="">
              {t("account.totp.openApp")}
            </a>
          </p>
        </li>
        <li>
          <p>{t("account.totp.manual")}</p>
          <CopyValue value={enrolment.secret} label={t("account.totp.key")} />
        </li>
        <li>
          <Field
            label={t("account.totp.code")}
            name="code"
            value={code}
            onInput={setCode}
            error={action.error}
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            required
          />
        </li>
      </ol>
      <FormError error={action.error} />
      <div class="button-row">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {t("account.totp.activate")}
        </button>
        <button
          type="button"
          class="button"
          onClick={() => {
            setEnrolment(null);
            setCode("");
            action.clear();
          }}
        >
          {t("form.cancel")}
        </button>
      </div>
    </form>
  );
}

export function PasskeyEnrol({ onDone }: EnrolProps) {
  const [label, setLabel] = useState("");
  const action = useAction();
  if (!browserSupportsWebAuthn()) return <p class="form-hint">{t("account.passkey.unsupported")}</p>;
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        action.run(async () => {
          const { publicKey } = await send<CreationOptions>("POST", "/api/v1/auth/mfa/passkeys/registration");
          const response = await startRegistration({ optionsJSON: publicKey });
          await send("POST", "/api/v1/auth/mfa/passkeys", { response, label: label.trim() || null });
          setLabel("");
          await onDone();
        });
      }}
    >
      <Field label={t("account.passkey.label")} hint={t("account.passkey.labelHint")} name="label" value={label} onInput={setLabel} error={action.error} maxLength={120} />
      <FormError error={action.error} />
      <div class="button-row">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {t("account.passkey.add")}
        </button>
      </div>
    </form>
  );
}

/** Either factor, for a person who must set one up before going on. */
export function EnrolFactor({ onDone }: EnrolProps) {
  return (
    <div class="factor-choice">
      <div class="panel">
        <h3>{t("account.totp.title")}</h3>
        <TotpEnrol onDone={onDone} />
      </div>
      <div class="panel">
        <h3>{t("account.passkey.heading")}</h3>
        <p>{t("account.passkey.intro")}</p>
        <PasskeyEnrol onDone={onDone} />
      </div>
    </div>
  );
}
