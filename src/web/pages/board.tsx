/**
 * The board (SPEC §17, §17.1, §16.3): the honesty note until dismissed, the
 * answer for the viewer's region with its "change region" (the region picker
 * and "find my closest region"), then one card per region of the platform's
 * payload (a compact row on phones), live through the stream, with the status
 * banner, the event in force or the next one (both from the payload, so the
 * stream brings a newly scheduled one), filters behind one control, sort and
 * pages kept in the URL, and the viewer's region pinned first.
 */
import { computed, useComputed, useSignal, type ReadonlySignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useMemo } from "preact/hooks";
import {
  api,
  Platform,
  PLATFORM_LABELS,
  type ActiveEvent,
  type CoveragePayload,
  type IncentivesPayload,
  type SessionBody,
  type RegionIncentive,
  type SiteMeta,
} from "../api/client.ts";
import { boardSearch, boardShape, FIRST_CARDS, keepShape, nameCollator, parseBoardQuery, SHOW, SORTS, type BoardQuery, type BoardShape } from "../board-model.ts";
import { now } from "../clock.ts";
import { AlertsPanel } from "../components/alerts.tsx";
import { ConnectionBadge, Failed, Loading } from "../components/common.tsx";
import { AnswerLine, HonestyBanner, type RegionPickerToggle } from "../components/answer.tsx";
import { LiveState } from "../components/offline.tsx";
import { RegionCard } from "../components/region-card.tsx";
import { formatNumber, formatRelative, t } from "../i18n/index.ts";
import { chooseClosest, measureAll, measurementDue, rememberClosest, rememberedClosest, type Closest } from "../latency.ts";
import { openFeed, type Connection, type LiveFeed } from "../live.ts";
import { automaticRegion, browserZone, rememberedRegion, rememberRegion, shortRegionName, viewerRegion, type AutomaticRegion } from "../regions.ts";
import type { RegionSignals } from "../region-signals.ts";
import { location, navigate } from "../router.ts";

const SHOW_LABELS = { all: "filter.all", survivor: "filter.survivor", killer: "filter.killer", bonus: "filter.bonus" } as const;
const SORT_LABELS = { name: "filter.sortName", bonus: "filter.sortBonus" } as const;

function StatusBanner({ status }: { status: IncentivesPayload["status"] }) {
  if (status === "ok") return null;
  const key = status === "error" ? "status.error" : status === "degraded" ? "status.degraded" : "status.initializing";
  return (
    <p class={`banner banner-${status}`} role="status">
      {t(key)}
    </p>
  );
}

function EventBanner({ event, next }: { event: ActiveEvent | null; next: ActiveEvent | null }) {
  if (event) {
    return (
      <p class="banner banner-event">
        <strong>{t("event.active", { label: event.label, multiplier: formatNumber(event.multiplier, 2) })}</strong>
        {" · "}
        {t("event.stacks")}
        {" · "}
        <time dateTime={event.endsAt}>{t("event.endsIn", { time: formatRelative(Date.parse(event.endsAt), now.value) })}</time>
      </p>
    );
  }
  if (!next) return null;
  return (
    <p class="banner banner-next">
      {t("event.next", { label: next.label, multiplier: formatNumber(next.multiplier, 2), time: formatRelative(Date.parse(next.startsAt), now.value) })}
    </p>
  );
}

/** The arrow keys, Home and End move between the platforms: the row is one stop of the Tab key, so the regions stay a few presses away. */
function moveAmongTabs(event: KeyboardEvent): void {
  const links = [...((event.currentTarget as HTMLElement).querySelectorAll<HTMLAnchorElement>("a.tab"))];
  const at = links.indexOf(event.target as HTMLAnchorElement);
  if (at < 0) return;
  const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: links.length - 1 }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  links[(to + links.length) % links.length]?.focus();
}

export function PlatformTabs({ meta, current, hrefOf }: { meta: SiteMeta; current: Platform | null; hrefOf: (p: Platform) => string }) {
  const shown = Platform.filter((p) => meta.platforms.includes(p) || p === current);
  if (shown.length <= 1 && current !== null && shown[0] === current) return null;
  const stop = current !== null && shown.includes(current) ? current : shown[0];
  return (
    <nav class="tabs" aria-label={t("nav.platforms")} onKeyDown={moveAmongTabs}>
      {shown.map((p) => (
        <a key={p} href={hrefOf(p)} class="tab" aria-current={p === current ? "page" : undefined} tabIndex={p === stop ? 0 : -1}>
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

/** Every catalogue region, those this hub does not cover on the platform marked (from /coverage, read when the panel opens). */
function YourRegion({ platform, payload, automatic, choice, choose }: { platform: Platform; payload: IncentivesPayload; automatic: AutomaticRegion; choice: string | null; choose: (region: string | null) => void }) {
  const coverage = useSignal<CoveragePayload | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api.coverage(platform, controller.signal).then(
      (body) => (coverage.value = body),
      () => undefined,
    );
    return () => controller.abort();
  }, [platform]);
  const shown = new Set(payload.regions.map((r) => r.region));
  // In the board's order of names, like the alerts panel's list, not the catalogue's.
  const all = [...(coverage.value?.regions ?? payload.regions)].sort((a, b) => nameCollator().compare(a.displayName, b.displayName));
  // A closed picker shows its choice on one line: the automatic one names the region by its short form, so a phone shows it whole.
  const autoEntry = automatic ? payload.regions.find((r) => r.region === automatic.region) : undefined;
  const autoName = automatic ? (autoEntry ? shortRegionName(autoEntry.region, autoEntry.displayName) : automatic.region) : null;
  return (
    <label class="field field-yours">
      <span>{t("yours.label")}</span>
      <select value={choice ?? ""} onChange={(e) => choose(e.currentTarget.value === "" ? null : e.currentTarget.value)}>
        <option value="">{automatic && autoName ? t(automatic.by === "latency" ? "yours.autoLatency" : "yours.autoZone", { region: autoName }) : t("yours.auto")}</option>
        {all.map((r) => (
          <option key={r.region} value={r.region}>
            {shown.has(r.region) ? r.displayName : t("yours.notCovered", { region: r.displayName })}
          </option>
        ))}
      </select>
    </label>
  );
}

type Measuring = "idle" | "measuring" | "failed";

/** "Find my closest region": times the game's regional hosts now (SPEC §17.1). */
function ClosestButton({ measure, state, closest, names }: { measure: () => void; state: Measuring; closest: Closest | null; names: ReadonlyMap<string, string> }) {
  return (
    <div class="closest">
      <button type="button" class="button" onClick={measure} disabled={state === "measuring"}>
        {state === "measuring" ? t("latency.measuring") : t("latency.find")}
      </button>
      <p class="closest-result" role="status">
        {state === "failed"
          ? t("latency.failed")
          : closest && state === "idle"
            ? t("latency.found", { region: names.get(closest.region) ?? closest.region, ms: formatNumber(Math.round(closest.ms), 0) })
            : ""}
      </p>
    </div>
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

/** The closest region by latency: remembered, measured again once a day or when asked (only with LATENCY_PROBES on). */
function useClosest(meta: SiteMeta) {
  const closest = useSignal<Closest | null>(rememberedClosest());
  const state = useSignal<Measuring>("idle");
  const measure = () => {
    if (meta.latencyHosts.length === 0 || state.peek() === "measuring") return;
    state.value = "measuring";
    void measureAll(meta.latencyHosts).then((results) => {
      const chosen = chooseClosest(results, closest.value, Date.now());
      const measured = [...results.values()].some((ms) => ms !== null);
      if (chosen && measured) {
        rememberClosest(chosen);
        closest.value = chosen;
      }
      state.value = measured ? "idle" : "failed";
    });
  };
  useEffect(() => {
    if (meta.latencyHosts.length > 0 && measurementDue(closest.value, Date.now())) measure();
  }, []);
  return { closest, state: state.value, measure, enabled: meta.latencyHosts.length > 0 };
}

const PICKER_ID = "region-picker";

/**
 * The region picker, opened from the answer line's "change region" and built
 * only once opened: every catalogue region, and "find my closest region"
 * beside it. The choice is focused on opening, so a phone's next tap picks.
 */
function RegionPicker({ platform, feed, zone, latency, choice, choose }: {
  platform: Platform;
  feed: LiveFeed;
  zone: string;
  latency: ReturnType<typeof useClosest>;
  choice: string | null;
  choose: (region: string | null) => void;
}) {
  useEffect(() => {
    document.querySelector<HTMLSelectElement>(`#${PICKER_ID} select`)?.focus();
  }, []);
  const payload = feed.payload.value;
  if (payload === null || payload.regions.length === 0) return null;
  const automatic = automaticRegion(
    payload.regions.map((r) => r.region),
    zone,
    latency.closest.value?.region ?? null,
  );
  return (
    <>
      <YourRegion platform={platform} payload={payload} automatic={automatic} choice={choice} choose={choose} />
      {latency.enabled ? <ClosestButton measure={latency.measure} state={latency.state} closest={latency.closest.value} names={new Map(payload.regions.map((r) => [r.region, r.displayName]))} /> : null}
    </>
  );
}

/** A card that follows its own region's signal: a stream message renders it again only when that region changed. */
function LiveCard({ platform, entry, yours, eventMultiplier }: { platform: Platform; entry: ReadonlySignal<RegionIncentive>; yours: boolean; eventMultiplier: number | null }) {
  return <RegionCard platform={platform} region={entry.value} yours={yours} eventMultiplier={eventMultiplier} />;
}

function LiveAnswer({ entry, eventMultiplier, pending, picker }: { entry: ReadonlySignal<RegionIncentive> | null; eventMultiplier: number | null; pending: boolean; picker: RegionPickerToggle | undefined }) {
  return <AnswerLine region={entry?.value ?? null} eventMultiplier={eventMultiplier} pending={pending} picker={picker} />;
}

export function Board({ platform, meta, session }: { platform: Platform; meta: SiteMeta; session: SessionBody | null }) {
  // Opened while rendering, not in an effect (which waits for a frame): a payload already at hand is on the first paint.
  const feed = useMemo(() => openFeed(platform), [platform]);
  useEffect(() => () => feed.close(), [feed]);
  const query = useComputed(() => parseBoardQuery(location.value.search));
  const choice = useSignal(rememberedRegion());
  const filtersOpen = useSignal(false);
  const pickerOpen = useSignal(false);
  const zone = useMemo(browserZone, []);
  const latency = useClosest(meta);
  // The board renders again only when this changes (which regions it shows, in which order, its banners), not on every message.
  const shape = useMemo(() => {
    let last: BoardShape | null = null;
    return computed(() => {
      const payload = feed.payload.value;
      if (payload === null) return null;
      const yours = viewerRegion(
        payload.regions.map((r) => r.region),
        choice.value,
        zone,
        latency.closest.value?.region ?? null,
      );
      last = keepShape(last, boardShape(payload, query.value, meta.pageSize, yours));
      return last;
    });
  }, [feed, meta.pageSize]);

  const board = shape.value;
  const error = feed.error.value;
  const everyCard = useSignal(false);
  const populated = board !== null;
  // An effect runs once the render that made it is painted: then the cards past the first view are added.
  useEffect(() => {
    if (populated) everyCard.value = true;
  }, [populated]);
  const apply = (next: Partial<BoardQuery>, replace: boolean) => navigate(`/${platform}${boardSearch({ ...query.value, ...next })}`, { replace });
  const choose = (region: string | null) => {
    rememberRegion(region);
    choice.value = region;
  };

  if (meta.platforms.length === 0 && board?.regionCount === 0) return <FirstRun meta={meta} session={session} />;
  if (board === null) return error ? <Failed error={error} retry={() => window.location.reload()} /> : <Loading />;

  return (
    <BoardView
      platform={platform}
      meta={meta}
      board={board}
      entries={feed.regions}
      everyCard={everyCard.value}
      connection={feed.connection.value}
      query={query.value}
      filtersOpen={filtersOpen.value}
      toggleFilters={() => (filtersOpen.value = !filtersOpen.value)}
      filters={<Filters query={query.value} apply={apply} />}
      picker={{ open: pickerOpen.value, toggle: () => (pickerOpen.value = !pickerOpen.value), controls: PICKER_ID }}
      regionPicker={<RegionPicker platform={platform} feed={feed} zone={zone} latency={latency} choice={choice.value} choose={choose} />}
      alerts={<AlertsPanel platform={platform} payload={feed.payload} />}
      liveState={<LiveState connection={feed.connection.value} payload={feed.payload} />}
    />
  );
}

export interface BoardViewProps {
  readonly platform: Platform;
  readonly meta: SiteMeta;
  readonly board: BoardShape;
  /** Each region's value as a signal, so a stream message renders again only the cards whose region changed. */
  readonly entries: RegionSignals;
  /** False for the first render, which holds the first FIRST_CARDS cards only. */
  readonly everyCard: boolean;
  readonly connection: Connection;
  readonly query: BoardQuery;
  readonly filtersOpen: boolean;
  readonly toggleFilters: () => void;
  /** The filters panel, built only while it is open. */
  readonly filters: ComponentChildren;
  /** The answer line's "change region" control; none before the app has started. */
  readonly picker?: RegionPickerToggle;
  /** The region picker, built only while it is open. */
  readonly regionPicker?: ComponentChildren;
  readonly alerts: ComponentChildren;
  /** The connection state with what the browser knows of being offline; the bare connection badge where there is no browser (the hub's first paint). */
  readonly liveState?: ComponentChildren;
  /** True where the viewer's region cannot be known yet (the hub's first paint): the answer line keeps its place. */
  readonly viewerPending?: boolean;
}

/**
 * What the board shows for a payload: the honesty note, the answer line and
 * its region picker, the platform tabs and controls, the banners, the cards
 * and the pages. The hub renders the same for the board's first paint
 * (src/share/first-paint.ts), so the app's first render finds its markup
 * already in place.
 */
export function BoardView({ platform, meta, board, entries, everyCard, connection, query, filtersOpen, toggleFilters, filters, picker, regionPicker, alerts, liveState, viewerPending = false }: BoardViewProps) {
  const eventMultiplier = board.event?.multiplier ?? null;
  const filtering = query.q !== "" || query.show !== "all" || query.sort !== "name";
  return (
    <>
      <HonestyBanner />
      {board.regionCount > 0 ? (
        <>
          <LiveAnswer entry={board.yours === null ? null : (entries.get(board.yours) ?? null)} eventMultiplier={eventMultiplier} pending={viewerPending} picker={picker} />
          {picker ? (
            <div id={picker.controls} class="toolbar region-picker" hidden={!picker.open}>
              {picker.open ? regionPicker : null}
            </div>
          ) : null}
        </>
      ) : null}
      <div class="board-head">
        <PlatformTabs meta={meta} current={platform} hrefOf={(p) => `/${p}`} />
        {liveState ?? <ConnectionBadge state={connection} />}
        <button type="button" class={`button filters-toggle${filtering ? " filters-active" : ""}`} aria-expanded={filtersOpen} aria-controls="board-filters" onClick={toggleFilters}>
          {t("filter.button")}
        </button>
      </div>
      <StatusBanner status={board.status} />
      <EventBanner event={board.event} next={board.next} />
      <div id="board-filters" class="toolbar" hidden={!filtersOpen}>
        {filtersOpen ? filters : null}
      </div>
      {board.ids.length === 0 ? (
        <p class="state">{t("filter.none")}</p>
      ) : (
        <ul class="grid" aria-live="off">
          {(everyCard ? board.ids : board.ids.slice(0, FIRST_CARDS)).map((id) => {
            const entry = entries.get(id);
            return entry ? (
              <li key={id}>
                <LiveCard platform={platform} entry={entry} yours={id === board.yours} eventMultiplier={eventMultiplier} />
              </li>
            ) : null;
          })}
        </ul>
      )}
      <Pagination page={board.page} pages={board.pages} hrefOf={(page) => `/${platform}${boardSearch({ ...query, page })}`} />
      {board.regionCount > 0 ? alerts : null}
    </>
  );
}
