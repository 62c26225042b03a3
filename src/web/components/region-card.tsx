/**
 * One region on the board: a card on wide screens and a compact row on phones
 * (the same markup; the stylesheet lays it out). The bigger bonus is the
 * headline in both forms (+75 % and ×1.75) in its role's colour, with the
 * total during a bloodpoint event; both roles; the queue balance; freshness
 * that ticks. A stale value is greyed and says how old it is beside the
 * number; a region without a reading says so and is never called stale.
 */
import { useSignal } from "@preact/signals";
import type { Platform, RegionIncentive } from "../api/client.ts";
import { headlineRole, isStaleReading, totalMultiplier } from "../board-model.ts";
import { now } from "../clock.ts";
import { formatBonus, formatNumber, formatRelative, formatTime, t } from "../i18n/index.ts";
import { shortRegionName } from "../regions.ts";
import { Flag } from "./flag.tsx";

export function multiplier(bonus: number): string {
  return formatNumber(1 + bonus / 100, 2);
}

/**
 * The total during an event, with its breakdown (base ×1, queue bonus,
 * event, total) shown on hover, on keyboard focus and on tap.
 */
export function EventTotal({ id, bonus, eventMultiplier }: { id: string; bonus: number; eventMultiplier: number }) {
  const open = useSignal(false);
  const total = formatNumber(totalMultiplier(bonus, eventMultiplier), 2);
  const tipId = `total-${id}`;
  return (
    <span class={`event-total${open.value ? " event-total-open" : ""}`}>
      <button type="button" class="event-total-button" aria-expanded={open.value} aria-describedby={tipId} onClick={() => (open.value = !open.value)}>
        <span class="total-long">{t("event.total", { value: total })}</span>
        <span class="total-short" aria-hidden="true">
          ×{total}
        </span>
      </button>
      <span role="tooltip" id={tipId} class="breakdown">
        <span>
          {t("event.base")} ×1
        </span>
        <span>
          {t("event.queue")} {formatBonus(bonus)}
        </span>
        <span>
          {t("event.event")} {formatBonus(Math.round((eventMultiplier - 1) * 100))}
        </span>
        <strong>
          {t("event.totalLabel")} ×{total}
        </strong>
      </span>
    </span>
  );
}

function Balance({ ratio }: { ratio: number }) {
  // ratio is killers per survivor in the queue (SPEC §7): the bar's red part is the killers' share, so few
  // killers (a killer bonus) show as a short red part.
  const share = ratio > 0 ? ratio / (1 + ratio) : 0.5;
  const label = `${t("card.ratio")}: ${t("card.ratioValue", { value: formatNumber(ratio, 2) })}`;
  return (
    <div class="balance-wrap">
      <div class="balance" role="img" aria-label={label} title={label}>
        <span class="balance-killer" style={{ width: `${Math.round(share * 100)}%` }} />
        <span class="balance-survivor" />
      </div>
      <p class="balance-ends" aria-hidden="true">
        <span>{t("role.killer")}</span>
        <span>{t("role.survivor")}</span>
      </p>
      <p class="balance-text" aria-hidden="true">
        {t("card.ratioValue", { value: formatNumber(ratio, 2) })}
      </p>
    </div>
  );
}

function age(lastUpdated: string | null, short = false): string {
  return lastUpdated ? formatRelative(Date.parse(lastUpdated), now.value, short) : "";
}

/*
 * The card's parts take plain values, so a stream message renders again only
 * the parts whose values changed (Preact with signals skips a component whose
 * props are all equal): a new bonus redraws the headline and the roles, not
 * the name, the queue balance or the freshness.
 */

function CardHead({ platform, id, name, yours }: { platform: Platform; id: string; name: string; yours: boolean }) {
  const short = shortRegionName(id, name);
  return (
    <header class="card-head">
      <Flag region={id} />
      <h3 id={`card-${id}`}>
        {/* Where the catalogue declares a short name, a phone's row shows it instead (drawn by the stylesheet from data-short). */}
        <a href={`/${platform}/${encodeURIComponent(id)}`} aria-label={t("card.details", { region: name })} data-short={short === name ? undefined : short}>
          {short === name ? name : <span class="name-full">{name}</span>}
        </a>
      </h3>
      <span class="region-id">{id}</span>
      {yours ? <span class="badge badge-yours">{t("card.yours")}</span> : null}
    </header>
  );
}

function Headline({ isReal, role, bonus, stale, lastUpdated }: { isReal: boolean; role: "survivor" | "killer" | null; bonus: number; stale: boolean; lastUpdated: string | null }) {
  if (!isReal) return <p class="headline headline-none">{t("card.noReading")}</p>;
  if (role === null) return <p class="headline headline-none">{t("card.noBonus")}</p>;
  return (
    <p class={`headline headline-${role}`}>
      <span class="headline-role">{t("card.bonusFor", { role: t(`role.${role}`) })}</span>
      <span class="headline-value">{formatBonus(bonus)}</span>
      <span class="headline-multiplier">{t("card.multiplier", { value: multiplier(bonus) })}</span>
      {stale ? <span class="stale-age">{t("card.staleAge", { time: age(lastUpdated) })}</span> : null}
    </p>
  );
}

function Roles({ survivor, killer }: { survivor: number; killer: number }) {
  return (
    <dl class="roles">
      <div class={survivor > 0 ? "role role-survivor role-on" : "role role-survivor"}>
        <dt>{t("role.survivor")}</dt>
        <dd>{formatBonus(survivor)}</dd>
      </div>
      <div class={killer > 0 ? "role role-killer role-on" : "role role-killer"}>
        <dt>{t("role.killer")}</dt>
        <dd>{formatBonus(killer)}</dd>
      </div>
    </dl>
  );
}

function CardFoot({ lastUpdated, stale, since }: { lastUpdated: string | null; stale: boolean; since: string | null }) {
  return (
    <footer class="card-foot">
      {lastUpdated ? (
        <time dateTime={lastUpdated}>
          <span class="fresh-long">{stale ? t("card.staleAge", { time: age(lastUpdated) }) : t("card.updated", { time: age(lastUpdated) })}</span>
          <span class="fresh-short">{stale ? t("card.staleAge", { time: age(lastUpdated, true) }) : age(lastUpdated, true)}</span>
        </time>
      ) : (
        <span />
      )}
      {stale ? <span class="badge badge-stale">{t("card.stale")}</span> : null}
      {since && !stale ? <span class="since">{t("answer.since", { time: formatTime(Date.parse(since)) })}</span> : null}
    </footer>
  );
}

export function RegionCard({ platform, region, yours, eventMultiplier }: { platform: Platform; region: RegionIncentive; yours: boolean; eventMultiplier: number | null }) {
  const role = headlineRole(region);
  const bonus = role === null ? 0 : region[role];
  const stale = isStaleReading(region);
  return (
    <article
      class={`card${role ? ` card-${role}` : ""}${yours ? " card-yours" : ""}${region.isReal ? "" : " card-unreal"}${stale ? " card-stale" : ""}`}
      aria-labelledby={`card-${region.region}`}
    >
      <CardHead platform={platform} id={region.region} name={region.displayName} yours={yours} />
      <Headline isReal={region.isReal} role={role} bonus={bonus} stale={stale} lastUpdated={region.lastUpdated} />
      {region.isReal ? (
        <>
          <Roles survivor={region.survivor} killer={region.killer} />
          {eventMultiplier !== null ? <EventTotal id={region.region} bonus={bonus} eventMultiplier={eventMultiplier} /> : null}
          <Balance ratio={region.ratio} />
        </>
      ) : null}
      <CardFoot lastUpdated={region.lastUpdated} stale={stale} since={region.since} />
    </article>
  );
}
