/**
 * /admin and /admin/{section} (SPEC §17 Administration): admins only. A
 * signed-out viewer is sent to sign in and back; a signed-in non-admin is
 * told the page is not for them. Each section is one part of the admin API
 * (§11, §11.5b), reached through the section navigation.
 */
import { useEffect } from "preact/hooks";
import { Failed, Loading } from "../../components/common.tsx";
import { t, type MessageKey } from "../../i18n/index.ts";
import { goSignIn, refreshSession, session } from "../../session.ts";
import { useLoad } from "../../use-load.ts";
import { AgentsSection } from "./agents.tsx";
import { AlertsSection } from "./alerts.tsx";
import { AuditSection } from "./audit.tsx";
import { BackupsSection } from "./backups.tsx";
import { DataSection } from "./data.tsx";
import { EventsSection } from "./events.tsx";
import { PresenceSection } from "./presence.tsx";
import { SettingsSection } from "./settings.tsx";
import { SharingSection } from "./sharing.tsx";
import { UsersSection } from "./users.tsx";

const SECTIONS = ["agents", "users", "settings", "events", "data", "presence", "audit", "alerts", "backups", "sharing"] as const;
type Section = (typeof SECTIONS)[number];

const SECTION_LABELS: Readonly<Record<Section, MessageKey>> = {
  agents: "admin.nav.agents",
  users: "admin.nav.users",
  settings: "admin.nav.settings",
  events: "admin.nav.events",
  data: "admin.nav.data",
  presence: "admin.nav.presence",
  audit: "admin.nav.audit",
  alerts: "admin.alerts.nav",
  backups: "admin.nav.backups",
  sharing: "admin.nav.sharing",
};

function isSection(value: string): value is Section {
  return (SECTIONS as readonly string[]).includes(value);
}

function SectionBody({ section }: { section: Section }) {
  switch (section) {
    case "agents":
      return <AgentsSection />;
    case "users":
      return <UsersSection />;
    case "settings":
      return <SettingsSection />;
    case "events":
      return <EventsSection />;
    case "data":
      return <DataSection />;
    case "presence":
      return <PresenceSection />;
    case "audit":
      return <AuditSection />;
    case "alerts":
      return <AlertsSection />;
    case "backups":
      return <BackupsSection />;
    case "sharing":
      return <SharingSection />;
  }
}

function SectionNav({ current }: { current: Section | null }) {
  return (
    <nav aria-label={t("admin.nav.label")}>
      <ul class="admin-nav">
        {SECTIONS.map((s) => (
          <li key={s}>
            <a class="tab" href={`/admin/${s}`} aria-current={s === current ? "page" : undefined}>
              {t(SECTION_LABELS[s])}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Reads the session when the shell has not (yet) got it; the page renders again once it is known. */
function SessionCheck() {
  const check = useLoad(() => refreshSession(), []);
  return check.error ? <Failed error={check.error} retry={check.retry} /> : <Loading />;
}

function SignInFirst() {
  useEffect(() => goSignIn(), []);
  return <Loading />;
}

function AdminsOnly({ username }: { username: string }) {
  return (
    <section class="panel" aria-labelledby="admin-only">
      <h1 id="admin-only">{t("admin.title")}</h1>
      <p>{t("admin.onlyAdmins", { username })}</p>
      <p>
        <a href="/">{t("notFound.back")}</a>
      </p>
    </section>
  );
}

export function AdminPage({ section }: { section: string | null }) {
  const body = session.value;
  if (body === null) return <SessionCheck />;
  // A password-level session (second factor pending) is not signed in for admin work either.
  if (!body.authenticated || !body.user) return <SignInFirst />;
  if (body.user.role !== "admin") return <AdminsOnly username={body.user.username} />;
  const current = section === null ? "agents" : isSection(section) ? section : null;
  return (
    <div class="admin">
      <h1>{t("admin.title")}</h1>
      <SectionNav current={current} />
      {current === null ? (
        <section class="panel" aria-labelledby="admin-unknown">
          <h2 id="admin-unknown">{t("admin.unknownSection")}</h2>
          <p>
            <a href="/admin">{t("admin.toAgents")}</a>
          </p>
        </section>
      ) : (
        <SectionBody section={current} />
      )}
    </div>
  );
}
