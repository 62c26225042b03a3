/** The shell: header with navigation and language, the page the route names, and the footer with the hub's contact links. */
import { useSignal } from "@preact/signals";
import type { ComponentChildren, ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, isPlatform, Platform, type SessionBody, type SiteMeta } from "./api/client.ts";
import { readyEarly, takeEarly } from "./early.ts";
import { HONESTY_FOOTER_ID } from "./components/answer.tsx";
import { Failed, Loading } from "./components/common.tsx";
import { ReauthDialog } from "./components/reauth.tsx";
import { language, LANGUAGES, t, switchLanguage } from "./i18n/index.ts";
import { Board } from "./pages/board.tsx";
import { AgentsGuide } from "./pages/agents-guide.tsx";
import { Contribute } from "./pages/contribute.tsx";
import { NotFound } from "./pages/misc.tsx";
import { location, parseRoute, type Route } from "./router.ts";
import { goSignIn, here, refreshSession, session } from "./session.ts";
import { useLoad } from "./use-load.ts";
import { remember, remembered } from "./stored.ts";

const PLATFORM_KEY = "hub.platform";

/** The platform the board at this path will show, when it can be told before /meta answers. */
export function boardPlatformOf(pathname: string): Platform | null {
  const route = parseRoute(pathname);
  if (route.page !== "board") return null;
  const last = remembered(PLATFORM_KEY);
  return route.platform ?? (last !== null && isPlatform(last) ? last : null);
}

/** The platform "/" shows: the one last viewed, else the first with agents, else Windows. */
export function homePlatform(meta: SiteMeta): Platform {
  const last = remembered(PLATFORM_KEY);
  const candidates = Platform.filter((p) => meta.platforms.includes(p));
  return candidates.find((p) => p === last) ?? candidates[0] ?? "Windows";
}

/**
 * A page that comes as its own chunk (the region page with its chart library,
 * accounts, administration), fetched on first use and kept.
 */
function lazyPage<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loading: Promise<ComponentType<P>> | null = null;
  return function Lazy(props: P) {
    const [Loaded, setLoaded] = useState<ComponentType<P> | null>(null);
    const [failure, setFailure] = useState<Error | null>(null);
    useEffect(() => {
      loading ??= load();
      loading.then(
        (page) => setLoaded(() => page),
        (error: unknown) => setFailure(error instanceof Error ? error : new Error(String(error))),
      );
    }, []);
    if (failure) return <Failed error={failure} retry={() => window.location.reload()} />;
    return Loaded ? <Loaded {...props} /> : <Loading />;
  };
}

const RegionPage = lazyPage(async () => (await import("./pages/region.tsx")).RegionPage);
const SetupPage = lazyPage(async () => (await import("./pages/setup.tsx")).SetupPage);
const LoginPage = lazyPage(async () => (await import("./pages/login.tsx")).LoginPage);
const AccountPage = lazyPage(async () => (await import("./pages/account.tsx")).AccountPage);
const AdminPage = lazyPage(async () => (await import("./pages/admin/index.tsx")).AdminPage);

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
      <p class="honesty" id={HONESTY_FOOTER_ID} tabIndex={-1}>
        {t("honesty.footer")}
      </p>
    </footer>
  );
}

/** Pages that work without the hub's data: signing in must never need a signed-in read. */
function AccountRoutes({ route }: { route: Route }) {
  switch (route.page) {
    case "setup":
      return <SetupPage />;
    case "login":
      return <LoginPage />;
    case "account":
      return <AccountPage />;
    case "admin":
      return <AdminPage key={route.section ?? ""} section={route.section} />;
    default:
      return null;
  }
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
      return <RegionPage key={`${route.platform}/${route.region}`} platform={route.platform} region={route.region} />;
    case "contribute":
      return meta.contributeEnabled ? <Contribute meta={meta} /> : <NotFound />;
    case "agents":
      // Operators need the guide whether or not volunteers are invited, so it does not follow contributeEnabled.
      return <AgentsGuide />;
    case "notFound":
      return <NotFound />;
    default:
      return <AccountRoutes route={route} />;
  }
}

function UserNav({ body }: { body: SessionBody | null }) {
  // Past the password but not yet through a second factor (setting one up in setup's last step, or entering a code): who is signing in, not "Sign in".
  if (body?.user && !body.authenticated) {
    return (
      <li class="nav-user" data-testid="signing-in">
        {t("nav.signingIn", { name: body.user.username })}
      </li>
    );
  }
  if (!body?.authenticated || !body.user) {
    return (
      <li>
        <a href={`/login?next=${encodeURIComponent(here())}`}>{t("nav.signIn")}</a>
      </li>
    );
  }
  return (
    <>
      {body.user.role === "admin" ? (
        <li>
          <a href="/admin">{t("nav.admin")}</a>
        </li>
      ) : null}
      <li>
        <a href="/account">{t("nav.account")}</a>
      </li>
    </>
  );
}

/** Every page's frame: the skip link, the header, the page itself in <main>, the footer. The hub renders the same for the board's first paint. */
export function Frame({ meta, session, children }: { meta: SiteMeta | null; session: SessionBody | null; children: ComponentChildren }) {
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          // Following the fragment would leave focus on the link in some browsers; moving it is what the link promises.
          event.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
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
            {meta?.contributeEnabled ? (
              <li>
                <a href="/contribute">{t("nav.contribute")}</a>
              </li>
            ) : null}
            <UserNav body={session} />
          </ul>
        </nav>
        <LanguagePicker />
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <Footer meta={meta} />
      <ReauthDialog />
    </>
  );
}

export function App() {
  const route = parseRoute(location.value.pathname);
  const accountPage = route.page === "setup" || route.page === "login" || route.page === "account" || route.page === "admin";
  // Read again when the viewer signs in or out: with requireAuth on, what a signed-out viewer may read changes.
  const [earlyMeta] = useState(() => readyEarly<SiteMeta>("meta"));
  const meta = useLoad((signal) => takeEarly<SiteMeta>("meta") ?? api.meta(signal), [session.value?.authenticated ?? false], earlyMeta);
  useEffect(() => {
    void refreshSession().catch(() => undefined);
  }, []);
  // With requireAuth on, reads answer 401 to a signed-out viewer: off to sign in, and back here afterwards.
  useEffect(() => {
    if (meta.error?.status === 401 && !accountPage) goSignIn();
  }, [meta.error, accountPage]);
  return (
    <Frame meta={meta.data} session={session.value}>
      {accountPage ? (
        <AccountRoutes route={route} />
      ) : meta.error ? (
        meta.error.status === 401 ? <Loading /> : <Failed error={meta.error} retry={meta.retry} />
      ) : meta.data === null ? (
        <Loading />
      ) : (
        <Page meta={meta.data} session={session.value} />
      )}
    </Frame>
  );
}
