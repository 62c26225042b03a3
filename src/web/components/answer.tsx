/** The board's first words (SPEC §17.1, §16.3): the honesty note until dismissed, then the answer for the viewer's region with its "change region". */
import { useSignal } from "@preact/signals";
import type { RegionIncentive } from "../api/client.ts";
import { headlineRole, isStaleReading } from "../board-model.ts";
import { now } from "../clock.ts";
import { formatBonus, formatNumber, formatRelative, formatTime, t } from "../i18n/index.ts";
import { Flag } from "./flag.tsx";
import { EventTotal } from "./region-card.tsx";
import { remember, remembered } from "../stored.ts";

/** The answer line's "change region" control: it opens the region picker (the board's, with "find my closest region"). */
export interface RegionPickerToggle {
  readonly open: boolean;
  readonly toggle: () => void;
  /** The id of the element the picker is rendered in. */
  readonly controls: string;
}

function ChangeRegion({ picker }: { picker: RegionPickerToggle | undefined }) {
  if (!picker) return null;
  return (
    <button type="button" class="answer-change" aria-expanded={picker.open} aria-controls={picker.controls} onClick={picker.toggle}>
      {t("answer.change")}
    </button>
  );
}

/**
 * The answer first (SPEC §17.1): for the viewer's region, the role to queue,
 * the bonus in both forms, how fresh, since when, and the total during an
 * event. Kept short so it sits in the first screen of a phone in every language.
 */
export function AnswerLine({ region, eventMultiplier, pending = false, picker }: { region: RegionIncentive | null; eventMultiplier: number | null; pending?: boolean; picker?: RegionPickerToggle }) {
  // Rendered by the hub, before the browser has said where the viewer is: the answer's place, as tall as an answer, kept for it.
  if (pending) {
    return (
      <section class="answer answer-pending" aria-label={t("answer.label")} aria-busy="true">
        <p class="answer-region">{"\u00a0"}</p>
        <p class="answer-main">
          <span class="answer-value">{t("load.loading")}</span>
        </p>
        <p class="answer-meta">{"\u00a0"}</p>
      </section>
    );
  }
  if (!region) {
    return (
      <section class="answer" aria-label={t("answer.label")}>
        <div class="answer-region">
          <p class="answer-main">{t("answer.choose")}</p>
          <ChangeRegion picker={picker} />
        </div>
      </section>
    );
  }
  const role = headlineRole(region);
  const stale = isStaleReading(region);
  const bonus = role === null ? 0 : region[role];
  const age = region.lastUpdated ? formatRelative(Date.parse(region.lastUpdated), now.value) : null;
  return (
    <section class={`answer${role ? ` answer-${role}` : ""}${stale ? " answer-stale" : ""}`} aria-label={t("answer.label")} data-region={region.region}>
      <div class="answer-region">
        <p class="answer-name">
          <Flag region={region.region} /> {region.displayName}
        </p>
        <ChangeRegion picker={picker} />
      </div>
      {!region.isReal ? (
        <p class="answer-main">{t("answer.noReading")}</p>
      ) : (
        <p class="answer-main">
          {role === null ? (
            <strong>{t("answer.noBonus")}</strong>
          ) : (
            <>
              <strong class="answer-role">{t("answer.queueAs", { role: t(`role.${role}`) })}</strong>{" "}
              <span class="answer-value">{formatBonus(bonus)}</span> <span class="answer-multiplier">×{formatNumber(1 + bonus / 100, 2)}</span>
            </>
          )}
          {eventMultiplier !== null ? (
            <>
              {" "}
              <EventTotal id="answer" bonus={bonus} eventMultiplier={eventMultiplier} />
            </>
          ) : null}
        </p>
      )}
      {region.isReal ? (
        <p class="answer-meta">
          {stale ? <span class="badge badge-stale">{t("card.stale")}</span> : null}
          {age ? <time dateTime={region.lastUpdated ?? undefined}>{stale ? t("card.staleAge", { time: age }) : t("card.updated", { time: age })}</time> : null}
          {region.since && !stale ? <span>· {t("answer.since", { time: formatTime(Date.parse(region.since)) })}</span> : null}
        </p>
      ) : null}
    </section>
  );
}

/**
 * The honesty note (SPEC §17.1), dismissible and remembered in the browser
 * for good; the footer says the same on every page, and takes the focus when
 * the banner goes, so a keyboard user is left where the note still is.
 */
export function HonestyBanner() {
  const dismissed = useSignal(honestyDismissed());
  if (dismissed.value) return null;
  return (
    <aside class="banner banner-honesty" aria-label={t("honesty.label")}>
      <p>{t("honesty.banner")}</p>
      <button
        type="button"
        class="button"
        onClick={() => {
          remember(HONESTY_KEY, "1");
          document.getElementById(HONESTY_FOOTER_ID)?.focus();
          dismissed.value = true;
        }}
      >
        {t("honesty.dismiss")}
      </button>
    </aside>
  );
}

const HONESTY_KEY = "hub.honesty";

/** Whether this browser dismissed the honesty banner for good. */
export function honestyDismissed(): boolean {
  return remembered(HONESTY_KEY) === "1";
}
/** The footer's copy of the note (app.tsx). */
export const HONESTY_FOOTER_ID = "honesty-note";

