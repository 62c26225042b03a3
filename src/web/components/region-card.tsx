/**
 * One region on the board: the bigger bonus as the headline in both forms
 * (+75 % and ×1.75) in its role's colour, both roles, the queue ratio as a
 * balance bar, freshness that ticks, and a stale badge. A region without a real
 * reading says so and never shows a number as if it were one.
 */
import type { Platform, RegionIncentive } from "../api/client.ts";
import { headlineRole } from "../board-model.ts";
import { now } from "../clock.ts";
import { formatBonus, formatNumber, formatRelative, t } from "../i18n/index.ts";

function multiplier(bonus: number): string {
  return formatNumber(1 + bonus / 100, 2);
}

function Balance({ ratio }: { ratio: number }) {
  // The ratio is killers per survivor in the queue; the bar shows the killers' share.
  const share = ratio > 0 ? ratio / (1 + ratio) : 0.5;
  const label = `${t("card.ratio")}: ${t("card.ratioValue", { value: formatNumber(ratio, 2) })}`;
  return (
    <div class="balance-wrap">
      <div class="balance" role="img" aria-label={label} title={label}>
        <span class="balance-killer" style={{ width: `${Math.round(share * 100)}%` }} />
        <span class="balance-survivor" />
      </div>
      <p class="balance-text" aria-hidden="true">
        {t("card.ratioValue", { value: formatNumber(ratio, 2) })}
      </p>
    </div>
  );
}

export function RegionCard({ platform, region, yours }: { platform: Platform; region: RegionIncentive; yours: boolean }) {
  const role = headlineRole(region);
  const headingId = `card-${region.region}`;
  const bonus = role === null ? 0 : region[role];
  return (
    <article
      class={`card${role ? ` card-${role}` : ""}${yours ? " card-yours" : ""}${region.isReal ? "" : " card-unreal"}${region.stale && region.isReal ? " card-stale" : ""}`}
      aria-labelledby={headingId}
    >
      <header class="card-head">
        <span class="flag" aria-hidden="true">
          {region.flag}
        </span>
        <h3 id={headingId}>
          <a href={`/${platform}/${encodeURIComponent(region.region)}`} aria-label={t("card.details", { region: region.displayName })}>
            {region.displayName}
          </a>
        </h3>
        <span class="region-id">{region.region}</span>
        {yours ? <span class="badge badge-yours">{t("card.yours")}</span> : null}
      </header>
      {!region.isReal ? (
        <p class="headline headline-none">{t("card.noReading")}</p>
      ) : role === null ? (
        <p class="headline headline-none">{t("card.noBonus")}</p>
      ) : (
        <p class={`headline headline-${role}`}>
          <span class="headline-role">{t("card.bonusFor", { role: t(`role.${role}`) })}</span>
          <span class="headline-value">{formatBonus(bonus)}</span>
          <span class="headline-multiplier">{t("card.multiplier", { value: multiplier(bonus) })}</span>
        </p>
      )}
      {region.isReal ? (
        <>
          <dl class="roles">
            <div class={region.survivor > 0 ? "role role-survivor role-on" : "role role-survivor"}>
              <dt>{t("role.survivor")}</dt>
              <dd>{formatBonus(region.survivor)}</dd>
            </div>
            <div class={region.killer > 0 ? "role role-killer role-on" : "role role-killer"}>
              <dt>{t("role.killer")}</dt>
              <dd>{formatBonus(region.killer)}</dd>
            </div>
          </dl>
          <Balance ratio={region.ratio} />
        </>
      ) : null}
      <footer class="card-foot">
        {region.lastUpdated ? (
          <time dateTime={region.lastUpdated}>{t("card.updated", { time: formatRelative(Date.parse(region.lastUpdated), now.value) })}</time>
        ) : (
          <span />
        )}
        {region.stale ? <span class="badge badge-stale">{t("card.stale")}</span> : null}
      </footer>
    </article>
  );
}
