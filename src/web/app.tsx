/** The shell: header with navigation and language, the page the route names, and the footer with the hub's contact links. */
import { useSignal } from "@preact/signals";
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, PLATFORMS, type Platform, type SessionBody, type SiteMeta } from "./api/client.ts";
import { Failed, Loading } from "./components/common.tsx";
import { language, LANGUAGES, t, switchLanguage } from "./i18n/index.ts";
import { Board } from "./pages/board.tsx";
import { Contribute } from "./pages/contribute.tsx";
import { NotFound, Soon } from "./pages/misc.tsx";
import { location, parseRoute } from "./router.ts";
import { useLoad } from "./use-load.ts";

const PLATFORM_KEY = "hub.platform";

function remembered(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function remember(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Without storage the choice lasts for this page.
  }
}

/** The platform "/" shows: the one last viewed, else the first with agents, else Windows. */
function homePlatform(meta: SiteMeta): Platform {
  const last = remembered(PLATFORM_KEY);
  const candidates = PLATFORMS.filter((p) => meta.platforms.includes(p));
  return candidates.find((p) => p === last) ?? candidates[0] ?? "Windows";
}

type RegionPageType = ComponentType<{ platform: Platform; region: string }>;
let regionPage: Promise<RegionPageType> | null = null;

/** The region page and its chart library come as a separate chunk, fetched on first use. */
function LazyRegion({ platform, region }: { platform: Platform; region: string }) {
  const [Page, setPage] = useState<RegionPageType | null>(null);
  const [failure, setFailure] = useState<Error | null>(null);
  useEffect(() => {
    regionPage ??= import("./pages/region.tsx").then((m) => m.RegionPage);
    regionPage.then(
      (loaded) => setPage(() => loaded),
      (error: unknown) => setFailure(error instanceof Error ? error : new Error(String(error))),
    );
  }, []);
  if (failure) return <Failed error={failure} retry={() => window.location.reload()} />;
  return Page ? <Page platform={platform} region={region} /> : <Loading />;
}

function LanguagePicker() {
  const busy = useSignal(false);
  return (
    <label class="field field-language">
      <span>{t("lang.label")}</span>
      <select
        value={language.value}
        disabled={busy.value}
        onChange={(e) => {
          busy.value = true;
          void switchLanguage(e.currentTarget.value, true).finally(() => {
            busy.value = false;
          });
        }}
      >
        {LANGUAGES.map((l) => (
          <option key={l.code} value={l.code} lang={l.code}>
            {l.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Footer({ meta }: { meta: SiteMeta | null }) {
  return (
    <footer class="site-foot">
      <ul>
        {meta?.contactEmail ? (
          <li>
            <a href={`mailto:${meta.contactEmail}`} data-external="">
              {t("footer.contact")}
            </a>
          </li>
        ) : null}
        {meta?.discordUrl ? (
          <li>
            <a href={meta.discordUrl} rel="noopener noreferrer" data-external="">
              {t("footer.discord")}
            </a>
          </li>
        ) : null}
        {meta?.matrixUrl ? (
          <li>
            <a href={meta.matrixUrl} rel="noopener noreferrer" data-external="">
              {t("footer.matrix")}
            </a>
          </li>
        ) : null}
        <li>
          <a href="/docs" data-external="">
            {t("footer.api")}
          </a>
        </li>
      </ul>
    </footer>
  );
}

function Page({ meta, session }: { meta: SiteMeta; session: SessionBody | null }) {
  const route = parseRoute(location.value.pathname);
  switch (route.page) {
    case "board": {
      const platform = route.platform ?? homePlatform(meta);
      if (route.platform) remember(PLATFORM_KEY, route.platform);
      return <Board key={platform} platform={platform} meta={meta} session={session} />;
    }
    case "region":
      return <LazyRegion key={`${route.platform}/${route.region}`} platform={route.platform} region={route.region} />;
    case "contribute":
      return meta.contributeEnabled ? <Contribute meta={meta} /> : <NotFound />;
    case "soon":
      return <Soon />;
    case "notFound":
      return <NotFound />;
  }
}

export function App() {
  const meta = useLoad((signal) => api.meta(signal), []);
  const session = useLoad((signal) => api.session(signal), []);
  return (
    <>
      <a class="skip" href="#main">
        {t("app.skip")}
      </a>
      <header class="site-head">
        <a class="brand" href="/">
          <span class="brand-mark" aria-hidden="true" />
          {t("app.title")}
        </a>
        <nav aria-label={t("nav.board")}>
          <ul>
            <li>
              <a href="/">{t("nav.board")}</a>
            </li>
            {meta.data?.contributeEnabled ? (
              <li>
                <a href="/contribute">{t("nav.contribute")}</a>
              </li>
            ) : null}
          </ul>
        </nav>
        <LanguagePicker />
      </header>
      <main id="main" tabIndex={-1}>
        {meta.error ? <Failed error={meta.error} retry={meta.retry} /> : meta.data === null ? <Loading /> : <Page meta={meta.data} session={session.data} />}
      </main>
      <Footer meta={meta.data} />
    </>
  );
}
