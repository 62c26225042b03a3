/**
 * "When to play" (SPEC §17.1): the patterns endpoint's week × hour cells,
 * shifted from UTC to the viewer's time zone, drawn as one grid per role
 * (darker: a bonus more often), with the best three hours written out for
 * everyone, screen readers included.
 */
import type { PatternsPayload, Platform } from "../api/client.ts";
import { Empty, Failed, Loading } from "../components/common.tsx";
import { api } from "../api/client.ts";
import { formatBonus, formatDate, formatNumber, language, t } from "../i18n/index.ts";
import { bestHours, localCells, type LocalCell } from "../region-model.ts";
import { useLoad } from "../use-load.ts";

function weekday(day: number): string {
  return new Intl.DateTimeFormat(language.value, { weekday: "short", timeZone: "UTC" }).format(Date.UTC(2026, 0, 5 + day));
}

function hourLabel(hour: number): string {
  return new Intl.DateTimeFormat(language.value, { hour: "numeric", timeZone: "UTC" }).format(Date.UTC(2026, 0, 5, hour));
}

function describe(cell: LocalCell): string {
  return `${weekday(cell.day)} ${hourLabel(cell.hour)} (${formatNumber(Math.round(cell.share * 100), 0)} %, ${formatBonus(cell.median ?? 0)})`;
}

function RoleGrid({ cells, role }: { cells: PatternsPayload["cells"]; role: "survivor" | "killer" }) {
  const local = localCells(cells, role);
  const best = bestHours(local);
  const roleName = t(`role.${role}`);
  const summary = best.length > 0 ? t("region.patternsBest", { role: roleName, hours: best.map(describe).join(", ") }) : t("region.patternsNone");
  return (
    <figure class={`patterns patterns-${role}`}>
      <figcaption>
        <strong>{roleName}</strong> {summary}
      </figcaption>
      <div class="patterns-grid" aria-hidden="true">
        <span />
        {Array.from({ length: 24 }, (_, hour) => (
          <span key={`h${hour}`} class="patterns-hour">
            {hour % 6 === 0 ? hourLabel(hour) : ""}
          </span>
        ))}
        {Array.from({ length: 7 }, (_, day) => [
          <span key={`d${day}`} class="patterns-day">
            {weekday(day)}
          </span>,
          ...Array.from({ length: 24 }, (_, hour) => {
            const cell = local[day * 24 + hour];
            return (
              <span
                key={`${day}-${hour}`}
                class="patterns-cell"
                style={{ "--share": String(cell?.share ?? 0) }}
                title={cell ? t("region.patternsCell", { day: weekday(day), hour: hourLabel(hour), role: roleName, share: `${formatNumber(Math.round(cell.share * 100), 0)} %`, bonus: formatBonus(cell.median ?? 0) }) : undefined}
              />
            );
          }),
        ])}
      </div>
    </figure>
  );
}

const DAY_MS = 86_400_000;

/**
 * The span the grid summarises, as the data covers it: the weeks asked for
 * when the readings go back that far (a day's slack for the first reading of
 * the window), else the date of the oldest reading, so a hub with 14 days of
 * readings never says "the last 8 weeks".
 */
function spanSentence(data: PatternsPayload): string {
  const windowStart = Date.now() - data.weeks * 7 * DAY_MS;
  if (data.firstAt === null || data.firstAt <= windowStart + DAY_MS) return t("region.patternsLead", { weeks: data.weeks });
  return t("region.patternsLeadSince", { date: formatDate(data.firstAt) });
}

export function WhenToPlay({ platform, region }: { platform: Platform; region: string }) {
  const patterns = useLoad((signal) => api.patterns(platform, region, signal), [platform, region]);
  return (
    <section class="panel" aria-labelledby="patterns-title">
      <h2 id="patterns-title">{t("region.patterns")}</h2>
      {patterns.error ? (
        <Failed error={patterns.error} retry={patterns.retry} />
      ) : patterns.data === null ? (
        <Loading />
      ) : patterns.data.cells.every((c) => c.readings === 0) ? (
        <Empty>{t("region.patternsNone")}</Empty>
      ) : (
        <>
          <p class="hint">{spanSentence(patterns.data)}</p>
          <RoleGrid cells={patterns.data.cells} role="survivor" />
          <RoleGrid cells={patterns.data.cells} role="killer" />
        </>
      )}
    </section>
  );
}
