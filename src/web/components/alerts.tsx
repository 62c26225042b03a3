/**
 * The board's alerts panel: pick a region, a role and a bonus level; the
 * browser notifies when it is reached, from the open page or, with "even when
 * this page is closed", through Web Push (SPEC §23).
 */
import { useSignal, type ReadonlySignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { IncentivesPayload, Platform } from "../api/client.ts";
import { formatNumber, t } from "../i18n/index.ts";
import { RegionOptions } from "./common.tsx";
import { OfflineNote } from "./offline.tsx";
import { addRule, removeRule, rules, type AlertRule, type Role } from "../notify.ts";
import { addPushRule, PushError, pushKey, pushState, pushSupport, removePushRule, type PushRule, type PushSupport } from "../push.ts";

const LEVELS = [25, 50, 75, 100, 125, 150] as const;

/** The panel: its summary says how many alerts are set; what is inside is built only while it is open, so stream messages skip it. */
export function AlertsPanel({ platform, payload }: { platform: Platform; payload: ReadonlySignal<IncentivesPayload | null> }) {
  const open = useSignal(false);
  const mine = rules.value.filter((r) => r.platform === platform);
  const pushed = (pushState.value?.rules ?? []).filter((r) => r.platform === platform);
  return (
    <>
      <OfflineNote payload={payload} />
      <details class="alerts" onToggle={(e) => (open.value = e.currentTarget.open)}>
        <summary>
          {t("alerts.title")}
          {mine.length + pushed.length > 0 ? ` (${mine.length + pushed.length})` : ""}
        </summary>
        {open.value && payload.value ? <AlertsForm payload={payload.value} mine={mine} pushed={pushed} /> : null}
      </details>
    </>
  );
}

const SUPPORT_SENTENCES: Readonly<Record<Exclude<PushSupport, "ok">, "push.unsupported" | "push.ios" | "push.denied">> = {
  unsupported: "push.unsupported",
  ios: "push.ios",
  denied: "push.denied",
};

function AlertsForm({ payload, mine, pushed }: { payload: IncentivesPayload; mine: readonly AlertRule[]; pushed: readonly PushRule[] }) {
  const region = useSignal(payload.regions[0]?.region ?? "");
  const role = useSignal<Role>("killer");
  const min = useSignal<number>(50);
  const problem = useSignal<string | null>(null);
  const supported = "Notification" in window;
  const nameOf = (rule: { region: string | null }) => payload.regions.find((r) => r.region === rule.region)?.displayName ?? rule.region ?? "";
  // The hub's key says whether it offers push at all; without it nothing about push is shown.
  const key = useSignal<string | null>(null);
  const closed = useSignal(false);
  const support = pushSupport();
  useEffect(() => {
    let live = true;
    void pushKey().then((found) => {
      if (live) key.value = found;
    });
    return () => {
      live = false;
    };
  }, []);

  const add = async (event: Event) => {
    event.preventDefault();
    problem.value = null;
    if (closed.value && key.value !== null) {
      try {
        const permission = await addPushRule({ platform: payload.platform, region: region.value as PushRule["region"], role: role.value, minBonus: min.value }, key.value);
        if (permission !== "granted") problem.value = t("push.denied");
      } catch (error) {
        problem.value = t("push.failed", { reason: error instanceof PushError ? error.message : String(error) });
      }
      return;
    }
    const permission = await addRule({ platform: payload.platform, region: region.value, role: role.value, min: min.value });
    if (permission !== "granted") problem.value = t("alerts.denied");
  };

  const removePushed = async (rule: PushRule) => {
    problem.value = null;
    try {
      await removePushRule(rule, key.value);
    } catch (error) {
      problem.value = t("push.failed", { reason: error instanceof PushError ? error.message : String(error) });
    }
  };

  return (
    <>
      <p class="hint">{t("alerts.intro")}</p>
      {!supported ? (
        <p class="form-error">{t("alerts.unsupported")}</p>
      ) : (
        <form class="alerts-form" onSubmit={(e) => void add(e)}>
          <label class="field">
            <span>{t("alerts.region")}</span>
            <select value={region.value} onChange={(e) => (region.value = e.currentTarget.value)}>
              <RegionOptions regions={payload.regions} />
            </select>
          </label>
          <label class="field">
            <span>{t("alerts.role")}</span>
            <select value={role.value} onChange={(e) => (role.value = e.currentTarget.value === "survivor" ? "survivor" : "killer")}>
              <option value="killer">{t("role.killer")}</option>
              <option value="survivor">{t("role.survivor")}</option>
            </select>
          </label>
          <label class="field">
            <span>{t("alerts.min")}</span>
            <select value={String(min.value)} onChange={(e) => (min.value = Number(e.currentTarget.value))}>
              {LEVELS.map((level) => (
                <option key={level} value={level}>
                  +{formatNumber(level, 0)}%
                </option>
              ))}
            </select>
          </label>
          {key.value !== null && support === "ok" ? (
            <label class="field field-check">
              <input type="checkbox" checked={closed.value} onChange={(e) => (closed.value = e.currentTarget.checked)} />
              <span>{t("push.offer")}</span>
            </label>
          ) : null}
          <button type="submit" class="button button-primary">
            {t("alerts.add")}
          </button>
        </form>
      )}
      {key.value !== null && support !== "ok" ? <p class="hint push-support">{t(SUPPORT_SENTENCES[support])}</p> : null}
      {key.value !== null && support === "ok" && closed.value ? <p class="hint">{t("push.offerHint")}</p> : null}
      {problem.value ? (
        <p class="form-error" role="alert">
          {problem.value}
        </p>
      ) : null}
      {mine.length === 0 && pushed.length === 0 ? (
        <p class="hint">{t("alerts.none")}</p>
      ) : (
        <ul class="alerts-list">
          {mine.map((rule) => (
            <li key={`${rule.region}-${rule.role}`}>
              <span>{t("alerts.rule", { region: nameOf(rule), role: t(`role.${rule.role}`), min: rule.min })}</span>
              <button type="button" class="button" onClick={() => removeRule(rule)}>
                {t("alerts.remove")}
              </button>
            </li>
          ))}
          {pushed.map((rule) => (
            <li key={`push-${rule.region}-${rule.role}`} class="alerts-push">
              <span>
                {t("alerts.rule", { region: nameOf(rule), role: t(`role.${rule.role}`), min: rule.minBonus })} ({t("push.closedMark")})
              </span>
              <button type="button" class="button" onClick={() => void removePushed(rule)}>
                {t("alerts.remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      <p class="hint">{t("alerts.openNote")}</p>
    </>
  );
}
