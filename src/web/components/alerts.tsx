/** The board's alerts panel: pick a region, a role and a bonus level; the browser notifies when it is reached. */
import { useSignal, type ReadonlySignal } from "@preact/signals";
import type { IncentivesPayload, Platform } from "../api/client.ts";
import { formatNumber, t } from "../i18n/index.ts";
import { RegionOptions } from "./common.tsx";
import { addRule, removeRule, rules, type AlertRule, type Role } from "../notify.ts";

const LEVELS = [25, 50, 75, 100, 125, 150] as const;

/** The panel: its summary says how many alerts are set; what is inside is built only while it is open, so stream messages skip it. */
export function AlertsPanel({ platform, payload }: { platform: Platform; payload: ReadonlySignal<IncentivesPayload | null> }) {
  const open = useSignal(false);
  const mine = rules.value.filter((r) => r.platform === platform);
  return (
    <details class="alerts" onToggle={(e) => (open.value = e.currentTarget.open)}>
      <summary>
        {t("alerts.title")}
        {mine.length > 0 ? ` (${mine.length})` : ""}
      </summary>
      {open.value && payload.value ? <AlertsForm payload={payload.value} mine={mine} /> : null}
    </details>
  );
}

function AlertsForm({ payload, mine }: { payload: IncentivesPayload; mine: readonly AlertRule[] }) {
  const region = useSignal(payload.regions[0]?.region ?? "");
  const role = useSignal<Role>("killer");
  const min = useSignal<number>(50);
  const problem = useSignal<string | null>(null);
  const supported = "Notification" in window;
  const nameOf = (rule: AlertRule) => payload.regions.find((r) => r.region === rule.region)?.displayName ?? rule.region;

  const add = async (event: Event) => {
    event.preventDefault();
    problem.value = null;
    const permission = await addRule({ platform: payload.platform, region: region.value, role: role.value, min: min.value });
    if (permission !== "granted") problem.value = t("alerts.denied");
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
          <button type="submit" class="button button-primary">
            {t("alerts.add")}
          </button>
        </form>
      )}
      {problem.value ? (
        <p class="form-error" role="alert">
          {problem.value}
        </p>
      ) : null}
      {mine.length === 0 ? (
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
        </ul>
      )}
      <p class="hint">{t("alerts.openNote")}</p>
    </>
  );
}
