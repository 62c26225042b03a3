/** One webhook: its settings, test message, secret, removal, and its delivery log a page at a time. */
import { useEffect, useRef, useState } from "preact/hooks";
import { getPrivate, send } from "../../api/client.ts";
import { now } from "../../clock.ts";
import { ConfirmButton, FormError, Panel, SaveButton } from "../../components/forms.tsx";
import { formatDateTime, formatNumber, formatRelative, t } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { HOOKS, STATUS_LABELS, TYPE_LABELS, webhookName, type DeliveryPage, type Webhook } from "./alerts-common.ts";
import { changesOf, formOf, SecretOnce, WebhookFields } from "./alerts-form.tsx";
import { Listed, Notice, TableWrap, useAction, When, type CatalogueRegion } from "./parts.tsx";

const DELIVERY_PAGE_SIZE = 25;
/** How often a test send reads its delivery again until the receiver has answered. */
const TEST_POLL_MS = 1000;
/** A pending delivery changes on its own (sent, retried, given up), so a log showing one reads itself again this often. */
const PENDING_POLL_MS = 3000;

type Delivery = DeliveryPage["deliveries"][number];

/**
 * A test send's outcome, followed live: queued until the first attempt, then
 * the receiver's answer. Its delivery is read alone: the page before the next
 * id holds exactly it.
 */
function TestOutcome({ hook, deliveryId }: { hook: Webhook; deliveryId: number }) {
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  // Counts the reads, so a failed read (the hub restarting, a network hiccup) schedules the next one too.
  const [reads, setReads] = useState(0);
  const finished = delivery !== null && delivery.status !== "pending";
  useEffect(() => {
    if (finished) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      const params = new URLSearchParams({ limit: "1", before: String(deliveryId + 1) });
      getPrivate<DeliveryPage>(`${HOOKS}/${hook.id}/deliveries?${params.toString()}`, controller.signal)
        .then((page) => setDelivery(page.deliveries.find((d) => d.id === deliveryId) ?? null))
        .catch(() => undefined)
        .finally(() => setReads((n) => n + 1));
    }, TEST_POLL_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [hook.id, deliveryId, reads, finished]);
  return (
    <p class="notice" role="status" data-testid="test-outcome" data-status={delivery === null || delivery.attempts === 0 ? "queued" : delivery.status}>
      {testMessage(delivery)}
    </p>
  );
}

function testMessage(delivery: Delivery | null): string {
  if (delivery === null || delivery.attempts === 0) return t("admin.alerts.testQueued");
  const error = delivery.lastError ?? (delivery.lastStatusCode === null ? "" : `HTTP ${delivery.lastStatusCode}`);
  if (delivery.status === "delivered") return t("admin.alerts.testDelivered", { code: delivery.lastStatusCode ?? 200 });
  if (delivery.status === "failed") return t("admin.alerts.testFailed", { error });
  return t("admin.alerts.testRetrying", { error, time: delivery.nextAttemptAt === null ? "" : formatRelative(delivery.nextAttemptAt, now.value) });
}

/** One webhook's deliveries, newest first, a page at a time (the reply's `next` is the `before` of the older page). */
function DeliveryLog({ hook }: { hook: Webhook }) {
  const name = webhookName(hook);
  // The `before` of each page read so far: the last is the page shown, so "newer" steps back through them.
  const [cursors, setCursors] = useState<readonly (number | null)[]>([null]);
  const before = cursors[cursors.length - 1] ?? null;
  const page = useLoad(
    (signal) => {
      const params = new URLSearchParams({ limit: String(DELIVERY_PAGE_SIZE) });
      if (before !== null) params.set("before", String(before));
      return getPrivate<DeliveryPage>(`${HOOKS}/${hook.id}/deliveries?${params.toString()}`, signal);
    },
    [hook.id, before],
  );
  const pending = page.data?.deliveries.some((d) => d.status === "pending") ?? false;
  useEffect(() => {
    if (!pending || page.loading) return;
    const timer = setTimeout(page.retry, PENDING_POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, page.loading, page.data]);
  const next = page.data?.next ?? null;
  const at = now.value;
  return (
    <Panel title={t("admin.alerts.logTitle", { name })} id="webhook-log">
      <div class="panel-head">
        <p class="lead">{t("admin.alerts.logIntro")}</p>
        <button type="button" class="button button-small" disabled={page.loading} onClick={page.retry}>
          {t("admin.refresh")}
        </button>
      </div>
      <Listed load={page} empty={cursors.length > 1 ? t("admin.alerts.logNoOlder") : t("admin.alerts.logEmpty")} isEmpty={(d) => d.deliveries.length === 0}>
        {(d) => (
          <TableWrap label={t("admin.alerts.logCaption", { name })}>
            <table class="admin-table">
              <caption>{t("admin.alerts.logCaption", { name })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t("admin.alerts.time")}</th>
                  <th scope="col">{t("admin.alerts.type")}</th>
                  <th scope="col">{t("admin.alerts.status")}</th>
                  <th scope="col">{t("admin.alerts.attempts")}</th>
                  <th scope="col">{t("admin.alerts.statusCode")}</th>
                  <th scope="col">{t("admin.alerts.lastError")}</th>
                  <th scope="col">{t("admin.alerts.nextAttempt")}</th>
                </tr>
              </thead>
              <tbody>
                {d.deliveries.map((delivery) => (
                  <tr key={delivery.id} data-delivery={delivery.type} data-status={delivery.status}>
                    <th scope="row">
                      <When ms={delivery.createdAt} seconds />
                    </th>
                    <td>{t(TYPE_LABELS[delivery.type])}</td>
                    <td>
                      <span class={`badge badge-${delivery.status}`}>{t(STATUS_LABELS[delivery.status])}</span>
                    </td>
                    <td class="num">{formatNumber(delivery.attempts, 0)}</td>
                    <td class="num">{delivery.lastStatusCode ?? "—"}</td>
                    <td class="wrap">{delivery.lastError ?? "—"}</td>
                    <td>
                      {delivery.nextAttemptAt === null ? (
                        "—"
                      ) : (
                        <time dateTime={new Date(delivery.nextAttemptAt).toISOString()} title={formatDateTime(delivery.nextAttemptAt)}>
                          {/* An attempt that is due is about to be made: it reads "now", never "1 second ago". */}
                          {formatRelative(Math.max(delivery.nextAttemptAt, at), at)}
                        </time>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )}
      </Listed>
      <nav class="pagination" aria-label={t("admin.alerts.pages")}>
        <span>
          {cursors.length > 1 ? (
            <button type="button" class="button" onClick={() => setCursors((c) => c.slice(0, -1))}>
              {t("admin.alerts.newer")}
            </button>
          ) : null}
        </span>
        <span>{t("admin.alerts.pageNumber", { page: cursors.length })}</span>
        <span class="pagination-end">
          {next !== null && !page.loading ? (
            <button type="button" class="button" onClick={() => setCursors((c) => [...c, next])}>
              {t("admin.alerts.older")}
            </button>
          ) : null}
        </span>
      </nav>
    </Panel>
  );
}

/** One webhook's settings, its test message, secret, removal and delivery log. */
export function ManageWebhook({ hook: initial, regions, onChanged, onClose }: { hook: Webhook; regions: readonly CatalogueRegion[]; onChanged: () => void; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    heading.current?.scrollIntoView({ block: "start" });
  }, []);
  // The editor keeps the hub's latest answer, so the actions read what the webhook is now.
  const [hook, setHook] = useState(initial);
  // A newer list (a refresh, or the hub having disabled the webhook) replaces it too; the form keeps what is being typed.
  useEffect(() => setHook(initial), [initial]);
  const [form, setForm] = useState(() => formOf(initial));
  const [saved, setSaved] = useState<string | null>(null);
  const [acted, setActed] = useState<string | null>(null);
  const [testing, setTesting] = useState<number | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  // A test message is new in the log: the log starts again from its newest page.
  const [logVersion, setLogVersion] = useState(0);
  const save = useAction();
  const other = useAction();
  const removal = useAction();
  const name = webhookName(hook);

  async function patch(body: Record<string, unknown>, action: ReturnType<typeof useAction>, done: (message: string | null) => void, message: string) {
    setSaved(null);
    setActed(null);
    setTesting(null);
    await action.run(async () => {
      const reply = await send<{ webhook: Webhook }>("PATCH", `${HOOKS}/${hook.id}`, body);
      setHook(reply.webhook);
      setForm(formOf(reply.webhook));
      done(message);
      onChanged();
    });
  }

  async function submit(e: Event) {
    e.preventDefault();
    await patch(changesOf(form, hook), save, setSaved, t("admin.saved"));
  }

  function test() {
    setActed(null);
    setTesting(null);
    void other.run(async () => {
      setTesting((await send<{ deliveryId: number }>("POST", `${HOOKS}/${hook.id}/test`)).deliveryId);
      setLogVersion((v) => v + 1);
    });
  }

  return (
    <>
      <section class="panel" aria-labelledby="webhook-manage">
        <div class="panel-head">
          <h2 id="webhook-manage" ref={heading} tabIndex={-1}>
            {t("admin.alerts.manageTitle", { name })}
          </h2>
          <button type="button" class="button" onClick={onClose}>
            {t("admin.close")}
          </button>
        </div>
        <form class="stack" onSubmit={submit} noValidate>
          <WebhookFields form={form} setForm={setForm} regions={regions} error={save.error} stored={hook.url} />
          <FormError error={save.error} />
          <SaveButton busy={save.busy} />
        </form>
        {saved ? <Notice>{saved}</Notice> : null}

        <h3>{t("admin.alerts.actions")}</h3>
        <p class="form-hint">{hook.enabled ? t("admin.alerts.enabledNow") : t("admin.alerts.disabledNow")}</p>
        <div class="button-row">
          <button
            type="button"
            class="button"
            disabled={other.busy}
            onClick={() => void patch({ enabled: !hook.enabled }, other, setActed, hook.enabled ? t("admin.alerts.wasDisabled") : t("admin.alerts.wasEnabled"))}
          >
            {hook.enabled ? t("admin.alerts.disable") : t("admin.alerts.enable")}
          </button>
          <button type="button" class="button" disabled={other.busy} onClick={test}>
            {t("admin.alerts.test")}
          </button>
          {hook.format === "json" ? (
            <ConfirmButton
              label={t("admin.alerts.rotate")}
              action={t("admin.alerts.rotateAction")}
              disabled={other.busy}
              onConfirm={() => {
                setActed(null);
                void other.run(async () => setSecret((await send<{ secret: string }>("POST", `${HOOKS}/${hook.id}/secret`)).secret));
              }}
            />
          ) : null}
        </div>
        <FormError error={other.error} />
        {testing === null ? null : <TestOutcome key={testing} hook={hook} deliveryId={testing} />}
        {acted ? <Notice>{acted}</Notice> : null}
        <p class="form-hint">{t("admin.alerts.testHint")}</p>
        {hook.format === "json" ? <p class="form-hint">{t("admin.alerts.rotateHint")}</p> : null}
        {secret ? <SecretOnce name={name} secret={secret} onDone={() => setSecret(null)} /> : null}

        <h3>{t("admin.alerts.deleteTitle")}</h3>
        <p class="form-hint">{t("admin.alerts.deleteHint")}</p>
        <p>
          <ConfirmButton
            label={t("admin.alerts.delete")}
            action={t("admin.alerts.deleteAction", { name })}
            disabled={other.busy || removal.busy}
            onConfirm={() => {
              void removal.run(async () => {
                await send("DELETE", `${HOOKS}/${hook.id}`);
                onChanged();
                onClose();
              });
            }}
          />
        </p>
        <FormError error={removal.error} />
      </section>
      <DeliveryLog key={logVersion} hook={hook} />
    </>
  );
}
