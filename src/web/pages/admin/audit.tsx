/**
 * The audit log (SPEC §11.5b): every admin change, newest first, a page at a
 * time (the reply's `next` is the `before` of the older page), filtered by an
 * action prefix and by who made the change.
 */
import { useState } from "preact/hooks";
import { getPrivate } from "../../api/client.ts";
import { Field, Panel } from "../../components/forms.tsx";
import { t, type MessageKey } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { auditSentence } from "./audit-sentence.ts";
import { ADMIN, Listed, SelectField, When, type AuditEntry, type AuditPage, type User, AdminTable } from "./parts.tsx";

const PAGE_SIZES = ["10", "50", "200"];

interface Query {
  readonly action: string;
  readonly actor: string;
  readonly limit: string;
}

function who(entry: AuditEntry): string {
  if (entry.actorName) return entry.actorName;
  if (entry.actorId !== null) return t("admin.audit.userId", { id: entry.actorId });
  // Without a user, only a refused sign-in comes through a session; the command line and the configuration come their own ways.
  return entry.via === "session" ? t("admin.audit.anonymous") : t("admin.audit.nobody");
}

export function AuditSection() {
  const users = useLoad((signal) => getPrivate<{ users: User[] }>(`${ADMIN}/users`, signal), []);
  const [typed, setTyped] = useState<Query>({ action: "", actor: "", limit: "50" });
  const [query, setQuery] = useState<Query>(typed);
  // The `before` of each page read so far: the last is the page shown, so "newer" steps back through them.
  const [cursors, setCursors] = useState<readonly (number | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const page = useLoad(
    (signal) => {
      const params = new URLSearchParams({ limit: query.limit });
      if (before !== null) params.set("before", String(before));
      if (query.action.trim() !== "") params.set("action", query.action.trim());
      if (query.actor !== "") params.set("actor", query.actor);
      return getPrivate<AuditPage>(`${ADMIN}/audit?${params.toString()}`, signal);
    },
    [query, before],
  );
  const actors = [{ value: "", label: t("admin.audit.anyone") }, ...(users.data?.users ?? []).map((u) => ({ value: String(u.id), label: u.username }))];
  const next = page.data?.next ?? null;

  return (
    <Panel title={t("admin.audit.title")} id="audit-title">
      <p class="lead">{t("admin.audit.intro")}</p>
      <form
        class="admin-filters"
        role="search"
        aria-label={t("admin.audit.filters")}
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(typed);
          setCursors([null]);
        }}
      >
        <Field label={t("admin.audit.action")} name="action" type="search" value={typed.action} onInput={(v) => setTyped((q) => ({ ...q, action: v }))} error={page.error} hint={t("admin.audit.actionHint")} autoComplete="off" />
        <SelectField
          label={t("admin.audit.actor")}
          name="actor"
          value={typed.actor}
          options={actors}
          onChange={(v) => setTyped((q) => ({ ...q, actor: v }))}
          error={page.error}
          hint={users.error ? t("admin.audit.actorsFailed", { detail: users.error.message }) : undefined}
        />
        <SelectField label={t("admin.audit.perPage")} name="limit" value={typed.limit} options={PAGE_SIZES.map((n) => ({ value: n, label: n }))} onChange={(v) => setTyped((q) => ({ ...q, limit: v }))} error={page.error} />
        <p>
          <button type="submit" class="button">
            {t("admin.audit.apply")}
          </button>
        </p>
      </form>
      <Listed load={page} empty={cursors.length > 1 ? t("admin.audit.noOlder") : t("admin.audit.empty")} isEmpty={(d) => d.entries.length === 0}>
        {(d) => (
          <AdminTable caption={t("admin.audit.caption")} columns={[t("admin.audit.time"), t("audit.what"), t("admin.audit.viaTitle"), t("admin.audit.detail")]}>
            {d.entries.map((entry) => (
              <tr key={entry.id} data-audit={entry.action}>
                <th scope="row">
                  <When ms={entry.at} seconds />
                </th>
                <td class="wrap" data-testid="audit-sentence">
                  {auditSentence(entry, who(entry))}
                </td>
                <td>{entry.via ? t(`admin.audit.via.${entry.via}`) : "—"}</td>
                <td class="wrap">
                  {/* The raw record, for whoever needs the exact action, target and values: one click away, not in the way. */}
                  <details class="audit-raw">
                    <summary>{t("audit.raw")}</summary>
                    <code class="detail">{JSON.stringify({ action: entry.action, target: entry.target, detail: entry.detail })}</code>
                  </details>
                </td>
              </tr>
            ))}
          </AdminTable>
        )}
      </Listed>
      <nav class="pagination" aria-label={t("admin.audit.pages")}>
        <span>
          {cursors.length > 1 ? (
            <button type="button" class="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
              {t("admin.audit.newer")}
            </button>
          ) : null}
        </span>
        <span>{t("admin.audit.pageNumber", { page: cursors.length })}</span>
        <span class="pagination-end">
          {next !== null && !page.loading ? (
            <button type="button" class="button" onClick={() => setCursors((c) => [...c, next])}>
              {t("admin.audit.older")}
            </button>
          ) : null}
        </span>
      </nav>
    </Panel>
  );
}
