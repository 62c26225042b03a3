/**
 * The board (SPEC §17): one card per region of the platform's payload, live
 * through the stream, with the status banner, the active event, search,
 * filters, sort and pages kept in the URL, and the viewer's region first.
 */
import { useComputed, useSignal } from "@preact/signals";
import { useEffect, useMemo } from "preact/hooks";
import { PLATFORM_LABELS, PLATFORMS, type IncentivesPayload, type Platform, type SessionBody, type SiteMeta } from "../api/client.ts";
import { boardSearch, boardView, parseBoardQuery, SHOW, SORTS, type BoardQuery } from "../board-model.ts";
import { now } from "../clock.ts";
import { AlertsPanel } from "../components/alerts.tsx";
import { ConnectionBadge, Failed, Loading, RegionOptions } from "../components/common.tsx";
import { RegionCard } from "../components/region-card.tsx";
import { formatNumber, formatRelative, t } from "../i18n/index.ts";
import { openFeed, type LiveFeed } from "../live.ts";
import { browserZone, rememberedRegion, rememberRegion, viewerRegion } from "../regions.ts";
import { location, navigate } from "../router.ts";

const SHOW_LABELS = { all: "filter.all", survivor: "filter.survivor", killer: "filter.killer", bonus: "filter.bonus" } as const;
const SORT_LABELS = { name: "filter.sortName", bonus: "filter.sortBonus" } as const;

function StatusBanner({ payload }: { payload: IncentivesPayload }) {
  if (payload.status === "ok") return null;
  const key = payload.status === "error" ? "status.error" : payload.status === "degraded" ? "status.degraded" : "status.initializing";
  return (
    <p class={`banner banner-${payload.status}`} role="status">
      {t(key)}
    </p>
  );
}

function EventBanner({ payload }: { payload: IncentivesPayload }) {
  const event = payload.activeEvent;
  if (!event) return null;
  return (
    <p class="banner banner-event">
      <strong>{t("event.active", { label: event.label, multiplier: formatNumber(event.multiplier, 2) })}</strong>
      {" · "}
      <time dateTime={event.endsAt}>{t("event.endsIn", { time: formatRelative(Date.parse(event.endsAt), now.value) })}</time>
    </p>
  );
}

export function PlatformTabs({ meta, current, hrefOf }: { meta: SiteMeta; current: Platform | null; hrefOf: (p: Platform) => string }) {
  const shown = PLATFORMS.filter((p) => meta.platforms.includes(p) || p === current);
  if (shown.length <= 1 && current !== null && shown[0] === current) return null;
  return (
    <nav class="tabs" aria-label={t("nav.platforms")}>
      {shown.map((p) => (
        <a key={p} href={hrefOf(p)} class="tab" aria-current={p === current ? "page" : undefined}>
          {PLATFORM_LABELS[p]}
        </a>
      ))}
    </nav>
  );
}

function Filters({ query, apply }: { query: BoardQuery; apply: (next: Partial<BoardQuery>, replace: boolean) => void }) {
  return (
    <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
      <label class="field field-search">
        <span>{t("filter.search")}</span>
        <input type="search" value={query.q} maxLength={100} autoComplete="off" onInput={(e) => apply({ q: e.currentTarget.value, page: 1 }, true)} />
      </label>
      <label class="field">
        <span>{t("filter.show")}</span>
        <select value={query.show} onChange={(e) => apply({ show: e.currentTarget.value as BoardQuery["show"], page: 1 }, false)}>
          {SHOW.map((s) => (
            <option key={s} value={s}>
              {t(SHOW_LABELS[s])}
            </option>
          ))}
        </select>
      </label>
      <label class="field">
        <span>{t("filter.sort")}</span>
        <select value={query.sort} onChange={(e) => apply({ sort: e.currentTarget.value as BoardQuery["sort"], page: 1 }, false)}>
          {SORTS.map((s) => (
            <option key={s} value={s}>
              {t(SORT_LABELS[s])}
            </option>
          ))}
        </select>
      </label>
    </form>
  );
}

function Pagination({ page, pages, hrefOf }: { page: number; pages: number; hrefOf: (page: number) => string }) {
  if (pages <= 1) return null;
  return (
    <nav class="pagination" aria-label={t("page.of", { page, pages })}>
      {page > 1 ? (
        <a class="button" href={hrefOf(page - 1)} rel="prev">
          {t("page.previous")}
        </a>
      ) : (
        <span />
      )}
      <span>{t("page.of", { page, pages })}</span>
      {page < pages ? (
        <a class="button" href={hrefOf(page + 1)} rel="next">
          {t("page.next")}
        </a>
      ) : (
        <span />
      )}
    </nav>
  );
}

function YourRegion({ payload, yours, choose }: { payload: IncentivesPayload; yours: string | null; choose: (region: string | null) => void }) {
  return (
    <label class="field field-yours">
      <span>{t("yours.label")}</span>
      <select value={rememberedRegion() ?? ""} onChange={(e) => choose(e.currentTarget.value === "" ? null : e.currentTarget.value)}>
        <option value="">
          {t("yours.auto")}
          {yours && !rememberedRegion() ? ` (${yours})` : ""}
        </option>
        <RegionOptions regions={payload.regions} />
      </select>
    </label>
  );
}

/** Adding an agent is a link for whoever can follow it: an admin goes to the agents page, a signed-out visitor signs in first. */
function AgentStep({ session }: { session: SessionBody | null }) {
  if (session?.user?.role === "admin") return <a href="/admin/agents">{t("empty.agent")}</a>;
  if (session !== null && !session.authenticated && !session.needsSetup) return <a href={`/login?next=${encodeURIComponent("/admin/agents")}`}>{t("empty.agent")}</a>;
  return <>{t("empty.agent")}</>;
}

export function FirstRun({ meta, session }: { meta: SiteMeta; session: SessionBody | null }) {
  return (
    <section class="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{t("empty.title")}</h2>
      <p>{t("empty.body")}</p>
      <ol>
        {session?.needsSetup ? (
          <li>
            <a href="/setup">{t("empty.setup")}</a>
          </li>
        ) : null}
        <li>
          <AgentStep session={session} />
        </li>
        <li>
          <a href={meta.agentSetupUrl}>{t("guide.title")}</a>
        </li>
      </ol>
    </section>
  );
}

export function Board({ platform, meta, session }: { platform: Platform; meta: SiteMeta; session: SessionBody | null }) {
  const feed = useSignal<LiveFeed | null>(null);
  useEffect(() => {
    const opened = openFeed(platform);
    feed.value = opened;
    return () => opened.close();
  }, [platform]);
  const query = useComputed(() => parseBoardQuery(location.value.search));
  const choice = useSignal(rememberedRegion());
  const zone = useMemo(browserZone, []);

  const payload = feed.value?.payload.value ?? null;
  const error = feed.value?.error.value ?? null;
  const apply = (next: Partial<BoardQuery>, replace: boolean) => navigate(`/${platform}${boardSearch({ ...query.value, ...next })}`, { replace });
  const choose = (region: string | null) => {
    rememberRegion(region);
    choice.value = region;
  };

  if (meta.platforms.length === 0 && payload?.regions.length === 0) return <FirstRun meta={meta} session={session} />;
  if (payload === null) return error ? <Failed error={error} retry={() => window.location.reload()} /> : <Loading />;

  const yours = viewerRegion(
    payload.regions.map((r) => r.region),
    choice.value,
    zone,
  );
  const view = boardView(payload.regions, query.value, meta.pageSize);
  const matching = boardView(payload.regions, { ...query.value, page: 1 }, Number.MAX_SAFE_INTEGER).items;
  const pinned = view.page === 1 ? matching.find((r) => r.region === yours) : undefined;
  const items = pinned ? [pinned, ...view.items.filter((r) => r.region !== pinned.region)] : view.items;
  return (
    <>
      <div class="board-head">
        <PlatformTabs meta={meta} current={platform} hrefOf={(p) => `/${p}`} />
        <ConnectionBadge state={feed.value?.connection.value ?? "connecting"} />
      </div>
      <StatusBanner payload={payload} />
      <EventBanner payload={payload} />
      <div class="toolbar">
        <Filters query={query.value} apply={apply} />
        {payload.regions.length > 0 ? <YourRegion payload={payload} yours={yours} choose={choose} /> : null}
      </div>
      {payload.regions.length > 0 ? <AlertsPanel payload={payload} /> : null}
      {items.length === 0 ? (
        <p class="state">{t("filter.none")}</p>
      ) : (
        <ul class="grid" aria-live="off">
          {items.map((region) => (
            <li key={region.region}>
              <RegionCard platform={platform} region={region} yours={region.region === yours} />
            </li>
          ))}
        </ul>
      )}
      <Pagination page={view.page} pages={view.pages} hrefOf={(page) => `/${platform}${boardSearch({ ...query.value, page })}`} />
    </>
  );
}
