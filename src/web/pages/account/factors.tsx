/** The account page's second factors: the authenticator app, passkeys, and the devices that skip them. */
import { useState } from "preact/hooks";
import { getPrivate, send } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Empty, Failed, Loading } from "../../components/common.tsx";
import { ConfirmButton, FormError, Panel } from "../../components/forms.tsx";
import { formatDateTime, t } from "../../i18n/index.ts";
import { refreshSession } from "../../session.ts";
import { useLoad } from "../../use-load.ts";
import { PasskeyEnrol, TotpEnrol } from "./enrol.tsx";
import { Notice, useAction } from "./shared.tsx";

type Passkey = components["schemas"]["Passkey"];

function TotpSection({ enabled }: { enabled: boolean }) {
  const action = useAction();
  return (
    <section aria-labelledby="account-totp">
      <h3 id="account-totp">{t("account.totp.title")}</h3>
      {enabled ? (
        <div class="stack">
          <p>
            <span class="badge badge-enabled">{t("account.on")}</span> {t("account.totp.on")}
          </p>
          <FormError error={action.error} />
          <div class="button-row">
            <ConfirmButton
              label={t("account.totp.remove")}
              action={t("account.totp.removeAction")}
              disabled={action.busy}
              onConfirm={() =>
                action.run(async () => {
                  await send("DELETE", "/api/v1/auth/mfa/totp");
                  await refreshSession();
                })
              }
            />
          </div>
        </div>
      ) : (
        <TotpEnrol
          onDone={async () => {
            await refreshSession();
          }}
        />
      )}
    </section>
  );
}

function PasskeyItem({ passkey, onRemoved }: { passkey: Passkey; onRemoved: () => Promise<void> }) {
  const action = useAction();
  return (
    <li class="account-item">
      <div class="account-item-main">
        <p class="account-item-title">{passkey.label ?? t("account.passkey.unnamed")}</p>
        <p class="account-item-meta">
          {t("account.added", { date: formatDateTime(passkey.createdAt) })} ·{" "}
          {passkey.lastUsedAt === null ? t("account.neverUsed") : t("account.lastUsed", { date: formatDateTime(passkey.lastUsedAt) })}
          {passkey.backedUp ? ` · ${t("account.passkey.synced")}` : passkey.backupEligible === false ? ` · ${t("account.passkey.oneDevice")}` : ""}
        </p>
        <FormError error={action.error} />
      </div>
      <div class="button-row">
        <ConfirmButton
          label={t("account.delete")}
          action={t("account.deleteAction")}
          disabled={action.busy}
          onConfirm={() =>
            action.run(async () => {
              await send("DELETE", `/api/v1/auth/mfa/passkeys/${passkey.id}`);
              await onRemoved();
            })
          }
        />
      </div>
    </li>
  );
}

function PasskeySection() {
  const list = useLoad((signal) => getPrivate<{ passkeys: Passkey[] }>("/api/v1/auth/mfa/passkeys", signal), []);
  // The session lists the account's factors too: it changes with every passkey added or removed.
  const changed = async () => {
    list.retry();
    await refreshSession();
  };
  return (
    <section aria-labelledby="account-passkeys">
      <h3 id="account-passkeys">{t("account.passkey.title")}</h3>
      <p>{t("account.passkey.intro")}</p>
      {list.error ? (
        <Failed error={list.error} retry={list.retry} />
      ) : list.data === null ? (
        <Loading />
      ) : list.data.passkeys.length === 0 ? (
        <Empty>{t("account.passkey.none")}</Empty>
      ) : (
        <ul class="account-list">
          {list.data.passkeys.map((p) => (
            <PasskeyItem key={p.id} passkey={p} onRemoved={changed} />
          ))}
        </ul>
      )}
      <PasskeyEnrol onDone={changed} />
    </section>
  );
}

function DevicesSection() {
  const [done, setDone] = useState(false);
  const action = useAction();
  return (
    <section aria-labelledby="account-devices">
      <h3 id="account-devices">{t("account.devices.title")}</h3>
      <div class="stack">
        <p>{t("account.devices.lead")}</p>
        <FormError error={action.error} />
        {done ? (
          <Notice>
            <p>{t("account.devices.done")}</p>
          </Notice>
        ) : null}
        <div class="button-row">
          <ConfirmButton
            label={t("account.devices.forget")}
            action={t("account.devices.forgetAction")}
            disabled={action.busy}
            onConfirm={() =>
              action.run(async () => {
                await send("DELETE", "/api/v1/auth/trusted-devices");
                setDone(true);
              })
            }
          />
        </div>
      </div>
    </section>
  );
}

export function FactorsPanel({ totpEnabled }: { totpEnabled: boolean }) {
  return (
    <Panel title={t("account.mfa.title")} id="account-mfa">
      <p class="lead">{t("account.mfa.lead")}</p>
      <TotpSection enabled={totpEnabled} />
      <PasskeySection />
      <DevicesSection />
    </Panel>
  );
}
