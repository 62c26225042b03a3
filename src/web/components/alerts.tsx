/**
 * The board's alerts panel: pick a region, a role and a bonus level; the
 * browser notifies when it is reached, from the open page or, with "even when
 * this page is closed", through Web Push (SPEC §23).
 */
import { useSignal, type ReadonlySignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { IncentivesPayload, Platform } from "../api/client.ts";
import { nameCollator } from "../board-model.ts";
import { formatNumber, t } from "../i18n/index.ts";
import { RegionOptions } from "./common.tsx";
import { addRule, removeRule, rules, type AlertRule, type Role } from "../notify.ts";
import { addPushRule, PushError, pushKey, pushState, pushSupport, removePushRule, type PushRule, type PushSupport } from "../push.ts";

const LEVELS = [25, 50, 75, 100, 125, 150] as const;

/** The panel: its summary says how many alerts are set; what is inside is built only while it is open, so stream messages skip it. */
export function AlertsPanel({ platform, payload }: { platform: Platform; payload: ReadonlySignal<IncentivesPayload | null> }) {
  const open = useSignal(false);
  const mine = rules.value.filter((r) => r.platform === platform);
  const pushed = (pushState.value?.rules ?? []).filter((r) => r.platform === platform);
  return (
    <details class="alerts" onToggle={(e) => (open.value = e.currentTarget.open)}>
      <summary>
        {t("alerts.title")}
        {mine.length + pushed.length > 0 ? ` (${mine.length + pushed.length})` : ""}
      </summary>
      {open.value && payload.value ? <AlertsForm payload={payload.value} mine={mine} pushed={pushed} /> : null}
    </details>
  );
}

/** Why push cannot be offered here, for the cases other than a refused permission (which the panel says once, for both kinds of alert). */
const SUPPORT_SENTENCES: Readonly<Record<Exclude<PushSupport, "ok" | "denied">, "push.unsupported" | "push.ios">> = {
  unsupported: "push.unsupported",
  ios: "push.ios",
};

/** The regions in the board's order of names (its collator), not the catalogue's. */
function byName<R extends { displayName: string }>(regions: readonly R[]): R[] {
  return [...regions].sort((a, b) => nameCollator().compare(a.displayName, b.displayName));
}

/**
 * The closing line says what the rules listed do: a page-only rule needs a
 * page of the hub open, a push rule does not. Nothing is said when every rule
 * is a push rule; with both kinds, which ones need the page.
 */
function openNote(pageRules: number, pushRules: number): "alerts.openNote" | "alerts.openNoteMixed" | null {
  if (pushRules === 0) return "alerts.openNote";
  return pageRules > 0 ? "alerts.openNoteMixed" : null;
}

function AlertsForm({ payload, mine, pushed }: { payload: IncentivesPayload; mine: readonly AlertRule[]; pushed: readonly PushRule[] }) {
  const regions = byName(payload.regions);
  const region = useSignal(regions[0]?.region ?? "");
  const role = useSignal<Role>("killer");
  const min = useSignal<number>(50);
  const problem = useSignal<string | null>(null);
  const supported = "Notification" in window;
  const nameOf = (rule: { region: string | null }) => payload.regions.find((r) => r.region === rule.region)?.displayName ?? rule.region ?? "";
  // The hub's key says whether it offers push at all; without it nothing about push is shown.
  const key = useSignal<string | null>(null);
  const closed = useSignal(false);
  const support = pushSupport();
  // A refused permission, as the browser reported it on opening or on the last request: said once, in one sentence.
  const blocked = useSignal(supported && Notification.permission === "denied");
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
        refused(permission);
      } catch (error) {
        problem.value = t("push.failed", { reason: error instanceof PushError ? error.message : String(error) });
      }
      return;
    }
    refused(await addRule({ platform: payload.platform, region: region.value, role: role.value, min: min.value }));
  };

  /** What a permission other than granted means for the viewer: blocked for the site, or a prompt closed without an answer. */
  const refused = (permission: NotificationPermission) => {
    blocked.value = permission === "denied";
    if (permission === "default") problem.value = t("alerts.dismissed");
  };

  const removePushed = async (rule: PushRule) => {
    problem.value = null;
    try {
      await removePushRule(rule, key.value);
    } catch (error) {
      problem.value = t("push.failed", { reason: error instanceof PushError ? error.message : String(error) });
    }
  };

  const note = openNote(mine.length, (pushState.value?.rules ?? []).length);
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
              <RegionOptions regions={regions} />
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
          {key.value !== null && support === "ok" && !blocked.value ? (
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
      {blocked.value ? (
        <p class="form-error push-support" role="alert">
          {t("push.denied")}
        </p>
      ) : key.value !== null && support !== "ok" && support !== "denied" ? (
        <p class="hint push-support">{t(SUPPORT_SENTENCES[support])}</p>
      ) : null}
      {key.value !== null && support === "ok" && !blocked.value && closed.value ? <p class="hint">{t("push.offerHint")}</p> : null}
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
      {note ? <p class="hint alerts-open-note">{t(note, { mark: t("push.closedMark") })}</p> : null}
    </>
  );
}
