/**
 * Bloodpoint events (SPEC §11.6): the list with the ones in force now,
 * create, edit and delete. Times are typed and shown in the admin's own time
 * zone and sent to the hub as ISO UTC. Events from the agents' schedule are
 * listed with where they came from and can only be hidden or shown.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { getPrivate, Platform, PLATFORM_LABELS, send } from "../../api/client.ts";
import { now } from "../../clock.ts";
import { ConfirmButton, Field, FormError, Panel } from "../../components/forms.tsx";
import { formatNumber, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { ADMIN, CheckField, fromLocalInput, Listed, localZone, Notice, RadioGroup, toLocalInput, useAction, When, type HubEvent, AdminTable } from "./parts.tsx";

const HOUR = 3_600_000;

type Status = "now" | "upcoming" | "ended";

function statusOf(event: HubEvent, at: number): Status {
  if (Date.parse(event.endsAt) <= at) return "ended";
  return Date.parse(event.startsAt) <= at ? "now" : "upcoming";
}

const STATUS_LABELS = { now: "admin.events.status.now", upcoming: "admin.events.status.upcoming", ended: "admin.events.status.ended" } as const;

function sourceText(event: HubEvent): string {
  if (event.source === "admin") return t("admin.events.source.admin");
  return event.agentId === null ? t("admin.events.source.agentGone") : t("admin.events.source.agent", { id: event.agentId });
}

function platformsText(platforms: HubEvent["platforms"]): string {
  return platforms === null ? t("admin.events.allPlatforms") : platforms.map((p) => PLATFORM_LABELS[p]).join(", ");
}

/** A local time as the API's ISO UTC; what cannot be read as a time goes as typed, so the hub's message lands at its field. */
function isoOf(local: string): string {
  const ms = fromLocalInput(local);
  return ms === null ? local : new Date(ms).toISOString();
}

interface Form {
  readonly key: string;
  readonly label: string;
  readonly multiplier: string;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly all: boolean;
  readonly platforms: readonly Platform[];
}

function formOf(event: HubEvent | null): Form {
  if (event === null) {
    // A new event starts this minute and lasts a day: the common case of switching one on now.
    const start = Math.floor(Date.now() / 60_000) * 60_000;
    return { key: "", label: "", multiplier: "2", startsAt: toLocalInput(start), endsAt: toLocalInput(start + 24 * HOUR), all: true, platforms: [] };
  }
  return {
    key: event.key,
    label: event.label,
    multiplier: String(event.multiplier),
    startsAt: toLocalInput(Date.parse(event.startsAt)),
    endsAt: toLocalInput(Date.parse(event.endsAt)),
    all: event.platforms === null,
    platforms: event.platforms ?? [],
  };
}

/** The form for a new event (no `event`), or for changing one, which can be closed. */
function EventForm({ event, onSaved, onClose }: { event: HubEvent | null; onSaved: () => void; onClose?: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (event) heading.current?.focus();
  }, []);
  const [form, setForm] = useState(() => formOf(event));
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const set = (field: "key" | "label" | "multiplier" | "startsAt" | "endsAt") => (value: string) => setForm((f) => ({ ...f, [field]: value }));
  const zone = localZone();

  async function submit(e: Event) {
    e.preventDefault();
    setDone(null);
    const body = {
      key: form.key.trim(),
      label: form.label.trim(),
      multiplier: Number(form.multiplier),
      startsAt: isoOf(form.startsAt),
      endsAt: isoOf(form.endsAt),
      platforms: form.all ? null : form.platforms,
    };
    await action.run(async () => {
      if (event) {
        await send<{ event: HubEvent }>("PATCH", `${ADMIN}/events/${event.id}`, body);
        setDone(t("admin.saved"));
      } else {
        const reply = await send<{ event: HubEvent }>("POST", `${ADMIN}/events`, body);
        setDone(t("admin.events.created", { label: reply.event.label }));
        setForm(formOf(null));
      }
      onSaved();
    });
  }

  const title = event ? t("admin.events.editTitle", { label: event.label }) : t("admin.events.createTitle");
  return (
    <section class="panel" aria-labelledby={event ? "event-edit" : "event-create"}>
      <div class="panel-head">
        <h2 id={event ? "event-edit" : "event-create"} ref={heading} tabIndex={-1}>
          {title}
        </h2>
        {onClose ? (
          <button type="button" class="button" onClick={onClose}>
            {t("admin.close")}
          </button>
        ) : null}
      </div>
      <form class="stack" onSubmit={submit} noValidate>
        <Field label={t("admin.events.key")} name="key" value={form.key} onInput={set("key")} error={action.error} maxLength={64} hint={t("admin.events.keyHint")} autoComplete="off" />
        <Field label={t("admin.events.label")} name="label" value={form.label} onInput={set("label")} error={action.error} maxLength={120} autoComplete="off" />
        <Field label={t("admin.events.multiplier")} name="multiplier" value={form.multiplier} onInput={set("multiplier")} error={action.error} hint={t("admin.events.multiplierHint")} autoComplete="off" />
        <Field label={t("admin.events.startsAt")} name="startsAt" type="datetime-local" value={form.startsAt} onInput={set("startsAt")} error={action.error} hint={t("admin.events.timeHint", { zone })} />
        <Field label={t("admin.events.endsAt")} name="endsAt" type="datetime-local" value={form.endsAt} onInput={set("endsAt")} error={action.error} hint={t("admin.events.timeHint", { zone })} />
        <RadioGroup
          legend={t("admin.events.platforms")}
          name="platforms"
          value={form.all ? "all" : "some"}
          choices={[
            { value: "all", label: t("admin.events.allPlatforms"), hint: t("admin.events.allHint") },
            { value: "some", label: t("admin.events.somePlatforms"), hint: t("admin.events.someHint") },
          ]}
          onChange={(v) => setForm((f) => ({ ...f, all: v === "all" }))}
        />
        {form.all ? null : (
          <fieldset class="choices">
            <legend>{t("admin.events.which")}</legend>
            {Platform.map((p) => (
              <CheckField
                key={p}
                label={PLATFORM_LABELS[p]}
                name="platforms"
                checked={form.platforms.includes(p)}
                onChange={(on) => setForm((f) => ({ ...f, platforms: on ? [...f.platforms.filter((x) => x !== p), p] : f.platforms.filter((x) => x !== p) }))}
              />
            ))}
          </fieldset>
        )}
        {action.error?.fieldMessage("platforms") ? <p class="form-error">{action.error.fieldMessage("platforms")}</p> : null}
        <FormError error={action.error} />
        <p>
          <button type="submit" class="button button-primary" disabled={action.busy}>
            {action.busy ? t("form.saving") : event ? t("form.save") : t("admin.events.create")}
          </button>
        </p>
      </form>
      {done ? <Notice>{done}</Notice> : null}
    </section>
  );
}

export function EventsSection() {
  const events = useLoad((signal) => getPrivate<{ events: HubEvent[] }>(`${ADMIN}/events`, signal), []);
  const [editing, setEditing] = useState<number | null>(null);
  const rowAction = useAction();
  // A row's refusal is shown in that row, beside the button that was pressed.
  const [actedRow, setActedRow] = useState<number | null>(null);
  const actOn = (id: number, work: () => Promise<void>) => {
    setActedRow(id);
    void rowAction.run(work);
  };
  const edited = events.data?.events.find((e) => e.id === editing && e.source === "admin") ?? null;
  const at = now.value;
  const inForce = (events.data?.events ?? []).filter((e) => !e.hidden && statusOf(e, at) === "now").sort((a, b) => b.multiplier - a.multiplier);
  return (
    <>
      <Panel title={t("admin.events.title")} id="events-title">
        <p class="lead">{t("admin.events.intro")}</p>
        <p class="form-hint">{t("admin.events.agentNote")}</p>
        {inForce.length > 0 ? (
          <p class="banner banner-event" data-testid="in-force">
            {t("admin.events.inForce", { events: inForce.map((e) => `${e.label} (×${formatNumber(e.multiplier, 2)}, ${platformsText(e.platforms)})`).join("; ") })}
          </p>
        ) : events.data ? (
          <p class="form-hint">{t("admin.events.noneInForce")}</p>
        ) : null}
        <Listed load={events} empty={t("admin.events.empty")} isEmpty={(d) => d.events.length === 0}>
          {(d) => (
            <AdminTable caption={t("admin.events.caption")} columns={[t("admin.events.label"), t("admin.events.key"), t("admin.events.multiplier"), t("admin.events.startsAt"), t("admin.events.endsAt"), t("admin.events.platforms"), t("admin.events.source"), t("admin.events.status")]} actions>
              {d.events.map((e) => {
                const status = statusOf(e, at);
                return (
                  <tr key={e.id} data-event={e.key}>
                    <th scope="row">{e.label}</th>
                    <td class="region-id">{e.key}</td>
                    <td class="num">×{formatNumber(e.multiplier, 2)}</td>
                    <td>
                      <When ms={Date.parse(e.startsAt)} />
                    </td>
                    <td>
                      <When ms={Date.parse(e.endsAt)} />
                    </td>
                    <td>{platformsText(e.platforms)}</td>
                    <td>{sourceText(e)}</td>
                    <td>
                      <span class={`badge badge-${status}`}>{t(STATUS_LABELS[status])}</span>
                      {e.hidden ? <> <span class="badge badge-ended">{t("admin.events.hidden")}</span></> : null}
                    </td>
                    <td>
                      {e.source === "agent" ? (
                        <button
                          type="button"
                          class="button button-small"
                          aria-label={t(e.hidden ? "admin.events.showOne" : "admin.events.hideOne", { label: e.label })}
                          disabled={rowAction.busy}
                          onClick={() =>
                            actOn(e.id, async () => {
                              await send("PATCH", `${ADMIN}/events/${e.id}`, { hidden: !e.hidden });
                              events.retry();
                            })
                          }
                        >
                          {t(e.hidden ? "admin.events.show" : "admin.events.hide")}
                        </button>
                      ) : (
                        <span class="button-row">
                          <button type="button" class="button button-small" aria-pressed={editing === e.id} aria-label={t("admin.events.editOne", { label: e.label })} onClick={() => setEditing(e.id)}>
                            {t("admin.edit")}
                          </button>
                          <ConfirmButton
                            label={t("admin.delete")}
                            action={t("admin.events.deleteAction", { label: e.label })}
                            disabled={rowAction.busy}
                            onConfirm={() =>
                              actOn(e.id, async () => {
                                await send("DELETE", `${ADMIN}/events/${e.id}`);
                                if (editing === e.id) setEditing(null);
                                events.retry();
                              })
                            }
                          />
                        </span>
                      )}
                      {actedRow === e.id ? <FormError error={rowAction.error} /> : null}
                    </td>
                  </tr>
                );
              })}
            </AdminTable>
          )}
        </Listed>
      </Panel>
      {edited ? <EventForm key={edited.id} event={edited} onSaved={events.retry} onClose={() => setEditing(null)} /> : null}
      <EventForm key="new" event={null} onSaved={events.retry} />
    </>
  );
}
