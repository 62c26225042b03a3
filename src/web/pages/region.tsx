/**
 * A region's page (SPEC §17), loaded as its own chunk with the chart library:
 * current values, history with ranges and drag-to-zoom at the hub's chosen
 * resolution, the 24-hour forecast with its band, yesterday's hindcast against
 * what happened, the best local hour per role, latest readings, recent changes
 * and coverage. Every part has its own loading, empty and error state.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type ActivityPayload, type ForecastBody, type ForecastPoint, type HistoryRangePayload, type Platform, type RegionIncentive } from "../api/client.ts";
import { AlertRole } from "../api/vocabulary.ts";
import { stepChart, type ChartData, type StepChart } from "../charts.ts";
import { ConnectionBadge, Empty, Failed, Loading } from "../components/common.tsx";
import { RegionCard } from "../components/region-card.tsx";
import { Flag } from "../components/flag.tsx";
import { formatBonus, formatDateTime, formatNumber, formatTime, t } from "../i18n/index.ts";
import { openFeed, type LiveFeed } from "../live.ts";
import { browserZone, rememberedRegion, viewerRegion } from "../regions.ts";
import { useLoad } from "../use-load.ts";
import { withLive } from "../region-model.ts";
import { WhenToPlay } from "./patterns.tsx";

const HOUR = 3_600_000;
const RANGES = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR, month: 30 * 24 * HOUR, year: 365 * 24 * HOUR } as const;
type RangeName = keyof typeof RANGES;

function Chart({ data, onZoom, label }: { data: ChartData; onZoom?: (from: number, to: number) => void; label: string }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<StepChart | null>(null);
  useEffect(() => {
    if (!element.current) return;
    chart.current = stepChart(element.current, data, onZoom ?? null);
    return () => {
      chart.current?.destroy();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.update(data);
  }, [data]);
  return <div class="chart" ref={element} role="img" aria-label={label} />;
}

function widthLabel(ms: number): string {
  if (ms % (24 * HOUR) === 0) return `${ms / (24 * HOUR)} d`;
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  return `${ms / 60_000} min`;
}

function historyChart(body: HistoryRangePayload): ChartData {
  return {
    times: body.points.map((p) => p.t),
    lines: [
      { label: t("role.survivor"), color: "--survivor", values: body.points.map((p) => p.survivor) },
      { label: t("role.killer"), color: "--killer", values: body.points.map((p) => p.killer) },
    ],
  };
}

function History({ platform, region, live }: { platform: Platform; region: string; live: RegionIncentive | null }) {
  const [range, setRange] = useState<RangeName>("day");
  const [zoom, setZoom] = useState<{ from: number; to: number } | null>(null);
  /** Moves the window by half its width, never past now; the hub picks the resolution again for the new window. */
  const pan = (direction: -1 | 1) => {
    const to = zoom?.to ?? Date.now();
    const from = zoom?.from ?? to - RANGES[range];
    const step = ((to - from) / 2) * direction;
    const now = Date.now();
    if (direction > 0 && to + step >= now) setZoom(null);
    else setZoom({ from: from + step, to: to + step });
  };
  const history = useLoad(
    (signal) => {
      const to = zoom?.to ?? Date.now();
      const from = zoom?.from ?? to - RANGES[range];
      return api.history(platform, region, from, to, signal);
    },
    [platform, region, range, zoom?.from, zoom?.to],
  );
  return (
    <section class="panel" aria-labelledby="history-title">
      <div class="panel-head">
        <h2 id="history-title">{t("region.history")}</h2>
        <div class="segmented" role="group" aria-label={t("region.history")}>
          {(Object.keys(RANGES) as RangeName[]).map((name) => (
            <button
              key={name}
              type="button"
              class="button"
              aria-pressed={range === name && zoom === null}
              onClick={() => {
                setZoom(null);
                setRange(name);
              }}
            >
              {t(`region.range.${name}`)}
            </button>
          ))}
          {zoom ? (
            <button type="button" class="button" onClick={() => setZoom(null)}>
              {t("region.resetZoom")}
            </button>
          ) : null}
        </div>
        <div class="segmented" role="group" aria-label={t("region.pan")}>
          <button type="button" class="button" onClick={() => pan(-1)}>
            ← {t("region.earlier")}
          </button>
          <button type="button" class="button" disabled={zoom === null} onClick={() => pan(1)}>
            {t("region.later")} →
          </button>
        </div>
      </div>
      {history.error ? (
        <Failed error={history.error} retry={history.retry} />
      ) : history.data === null ? (
        <Loading />
      ) : history.data.points.length === 0 ? (
        <Empty>{t("region.noHistory")}</Empty>
      ) : (
        <>
          <Chart data={historyChart(zoom === null ? withLive(history.data, live) : history.data)} onZoom={(from, to) => setZoom({ from, to })} label={t("region.history")} />
          <p class="hint">
            {history.data.resolution === "raw" ? t("region.resolutionRaw") : t("region.resolution", { width: widthLabel(history.data.bucketMs) })}
            {" · "}
            {t("region.zoomHint")}
          </p>
          <Legend />
        </>
      )}
    </section>
  );
}

function Legend({ extra }: { extra?: { kind: "band" | "dashed"; label: string } }) {
  return (
    <ul class="legend">
      <li class="legend-survivor">{t("role.survivor")}</li>
      <li class="legend-killer">{t("role.killer")}</li>
      {extra ? <li class={`legend-${extra.kind}`}>{extra.label}</li> : null}
    </ul>
  );
}

/** The hour with the highest expected bonus for a role (the earliest on a tie), or null when none is expected. */
export function bestHour(points: readonly ForecastPoint[], role: "survivor" | "killer"): ForecastPoint | null {
  let best: ForecastPoint | null = null;
  for (const point of points) if (point[role] > 0 && (best === null || point[role] > best[role])) best = point;
  return best;
}

function forecastChart(points: readonly ForecastPoint[]): ChartData {
  return {
    times: points.map((p) => p.t),
    lines: [
      { label: t("role.survivor"), color: "--survivor", values: points.map((p) => p.survivor), band: { lo: points.map((p) => p.survivorLo), hi: points.map((p) => p.survivorHi) } },
      { label: t("role.killer"), color: "--killer", values: points.map((p) => p.killer), band: { lo: points.map((p) => p.killerLo), hi: points.map((p) => p.killerHi) } },
    ],
  };
}

function hindcastChart(body: ForecastBody): ChartData {
  const times = [...new Set([...body.past.map((p) => p.t), ...body.actual.map((p) => p.t)])].sort((a, b) => a - b);
  // Both series are levels that hold until their next point, so each is carried forward over the other's times (hourly forecast, minute readings).
  const at = <T extends { t: number }>(rows: readonly T[], pick: (row: T) => number, holdMs: number) => {
    const sorted = [...rows].sort((a, b) => a.t - b.t);
    const last = sorted.at(-1);
    let index = -1;
    return times.map((time) => {
      while (index + 1 < sorted.length && (sorted[index + 1]?.t ?? Number.POSITIVE_INFINITY) <= time) index++;
      const row = sorted[index];
      return row === undefined || last === undefined || time > last.t + holdMs ? null : pick(row);
    });
  };
  const hour = 3_600_000;
  const minute = 60_000;
  return {
    times,
    lines: [
      { label: `${t("role.survivor")} · ${t("region.actual")}`, color: "--survivor", values: at(body.actual, (p) => p.survivor, minute) },
      { label: `${t("role.killer")} · ${t("region.actual")}`, color: "--killer", values: at(body.actual, (p) => p.killer, minute) },
      { label: `${t("role.survivor")} · ${t("region.forecastLine")}`, color: "--survivor-past", values: at(body.past, (p) => p.survivor, hour), dashed: true },
      { label: `${t("role.killer")} · ${t("region.forecastLine")}`, color: "--killer-past", values: at(body.past, (p) => p.killer, hour), dashed: true },
    ],
  };
}

function Forecast({ platform, region }: { platform: Platform; region: string }) {
  const forecast = useLoad((signal) => api.forecast(platform, region, signal), [platform, region]);
  return (
    <section class="panel" aria-labelledby="forecast-title">
      <div class="panel-head">
        <h2 id="forecast-title">{t("region.forecast")}</h2>
        {forecast.data ? <span class={`badge badge-${forecast.data.confidence}`}>{t("region.confidence", { level: t(`region.confidence.${forecast.data.confidence}`) })}</span> : null}
      </div>
      {forecast.error ? (
        <Failed error={forecast.error} retry={forecast.retry} />
      ) : forecast.data === null ? (
        <Loading />
      ) : forecast.data.points.length === 0 ? (
        <Empty>{t("region.noForecast")}</Empty>
      ) : (
        <>
          <ul class="best">
            {AlertRole.map((role) => {
              const best = bestHour(forecast.data?.points ?? [], role);
              return (
                <li key={role} class={`best-${role}`}>
                  {best ? t("region.best", { role: t(`role.${role}`), time: formatTime(best.t), bonus: best[role] }) : t("region.noBest", { role: t(`role.${role}`) })}
                </li>
              );
            })}
          </ul>
          <Chart data={forecastChart(forecast.data.points)} label={t("region.forecast")} />
          <Legend extra={{ kind: "band", label: t("region.forecastBand") }} />
          {forecast.data.past.length > 0 ? (
            <>
              <h3>{t("region.hindcast")}</h3>
              <Chart data={hindcastChart(forecast.data)} label={t("region.hindcast")} />
              <Legend extra={{ kind: "dashed", label: t("region.forecastLine") }} />
            </>
          ) : null}
        </>
      )}
    </section>
  );
}

function sameDay(a: number, b: number): boolean {
  return new Date(a).toDateString() === new Date(b).toDateString();
}

function ReadingsTable({ title, id, rows }: { title: string; id: string; rows: ActivityPayload["recent"] }) {
  return (
    <div class="table-wrap">
      <table aria-labelledby={id}>
        <caption id={id}>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{t("region.time")}</th>
            <th scope="col">{t("role.survivor")}</th>
            <th scope="col">{t("role.killer")}</th>
            <th scope="col">{t("region.ratio")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={`${row.t}-${i}`}>
              <td>
                <time dateTime={new Date(row.t).toISOString()}>{sameDay(row.t, Date.now()) ? formatTime(row.t) : formatDateTime(row.t)}</time>
              </td>
              <td>{formatBonus(row.survivor)}</td>
              <td>{formatBonus(row.killer)}</td>
              <td>{formatNumber(row.ratio, 2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Activity({ platform, region }: { platform: Platform; region: string }) {
  const activity = useLoad((signal) => api.activity(platform, region, signal), [platform, region]);
  return (
    <section class="panel" aria-labelledby="activity-title">
      <h2 id="activity-title">{t("region.latest")}</h2>
      {activity.error ? (
        <Failed error={activity.error} retry={activity.retry} />
      ) : activity.data === null ? (
        <Loading />
      ) : activity.data.recent.length === 0 ? (
        <Empty>{t("region.noHistory")}</Empty>
      ) : (
        <div class="tables">
          <ReadingsTable title={t("region.latest")} id="recent-caption" rows={activity.data.recent} />
          <ReadingsTable title={t("region.changes")} id="changes-caption" rows={activity.data.changes} />
        </div>
      )}
    </section>
  );
}

function Coverage({ platform, region }: { platform: Platform; region: string }) {
  const coverage = useLoad((signal) => api.coverage(platform, signal), [platform]);
  const entry = coverage.data?.regions.find((r) => r.region === region);
  return (
    <section class="panel" aria-labelledby="coverage-title">
      <h2 id="coverage-title">{t("region.coverage")}</h2>
      {coverage.error ? (
        <Failed error={coverage.error} retry={coverage.retry} />
      ) : coverage.data === null ? (
        <Loading />
      ) : (
        <p>{t("region.agents", { agents: entry?.agents ?? 0, fresh: entry?.freshAgents ?? 0 })}</p>
      )}
    </section>
  );
}

export function RegionPage({ platform, region }: { platform: Platform; region: string }) {
  const [feed, setFeed] = useState<LiveFeed | null>(null);
  // Coverage lists every catalogue region: a region not in it is unknown, shown once as not found instead of a failure per part.
  const known = useLoad((signal) => api.coverage(platform, signal), [platform]);
  const unknown = known.data !== null && !known.data.regions.some((r) => r.region === region);
  useEffect(() => {
    if (unknown) return;
    const opened = openFeed(platform);
    setFeed(opened);
    return () => opened.close();
  }, [platform, unknown]);
  if (unknown || known.error?.status === 404) {
    return (
      <section class="not-found" aria-labelledby="not-found-title">
        <h1 id="not-found-title">{t("notFound.title")}</h1>
        <p>{t("region.notFound")}</p>
        <p>
          <a href={`/${platform}`}>← {t("region.back")}</a>
        </p>
      </section>
    );
  }
  if (known.data === null) return known.error ? <Failed error={known.error} retry={known.retry} /> : <Loading />;
  const payload = feed?.payload.value ?? null;
  const current = payload?.regions.find((r) => r.region === region) ?? null;
  const yours = payload ? viewerRegion(payload.regions.map((r) => r.region), rememberedRegion(), browserZone()) : null;
  return (
    <>
      <p class="crumbs">
        <a href={`/${platform}`}>← {t("region.back")}</a>
      </p>
      <div class="board-head">
        <h1 class="region-title">
          <Flag region={region} /> {current ? current.displayName : region} <span class="region-id">{region}</span>
        </h1>
        {feed ? <ConnectionBadge state={feed.connection.value} /> : null}
      </div>
      <section aria-label={t("region.now")} class="now">
        {feed?.error.value ? (
          <Failed error={feed.error.value} />
        ) : payload === null ? (
          <Loading />
        ) : current ? (
          <RegionCard platform={platform} region={current} yours={current.region === yours} eventMultiplier={payload.activeEvent?.multiplier ?? null} />
        ) : (
          <Empty>{t("region.unknown")}</Empty>
        )}
      </section>
      <History platform={platform} region={region} live={current} />
      <Forecast platform={platform} region={region} />
      <WhenToPlay platform={platform} region={region} />
      <Activity platform={platform} region={region} />
      <Coverage platform={platform} region={region} />
    </>
  );
}
