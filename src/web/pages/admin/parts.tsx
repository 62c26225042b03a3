/**
 * Pieces every admin section uses: the API's types and paths, an action's
 * busy and refusal state, labelled selects, checkboxes and radio groups that
 * show the hub's message for their field, list states, the catalogue's
 * regions, and conversions between the admin's local time and the API's.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, getJson, isPlatform, PLATFORM_LABELS, type CoveragePayload, type Platform } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { Provider } from "../../api/vocabulary.ts";
import { now } from "../../clock.ts";
import { Empty, Failed, Loading } from "../../components/common.tsx";
import { formatDateTime, formatRelative, language, t } from "../../i18n/index.ts";
import { useLoad, type Load } from "../../use-load.ts";

type Schemas = components["schemas"];
export type Agent = Schemas["Agent"];
export type User = Schemas["User"];
export type AdminSettings = Schemas["AdminSettings"];
export type HubEvent = Schemas["Event"];
export type AuditEntry = Schemas["AuditEntry"];
export type AuditPage = Schemas["AuditPage"];
export type ExportedAgent = Schemas["ExportedAgent"];
export type ImportedAgent = Schemas["ImportedAgent"];

export const ADMIN = "/api/v1/admin";

/** Any failure as an ApiError, so FormError and Field can show it. */
function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(0, error instanceof Error ? error.message : String(error));
}

interface Action {
  readonly busy: boolean;
  readonly error: ApiError | null;
  /** Runs `work`, keeping its refusal for the form; true when it succeeded. */
  run(work: () => Promise<void>): Promise<boolean>;
  /** Shows a refusal found before anything was sent (a file that is not an export). */
  fail(error: ApiError): void;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  return {
    busy,
    error,
    async run(work) {
      setBusy(true);
      setError(null);
      try {
        await work();
        return true;
      } catch (failure) {
        setError(asApiError(failure));
        return false;
      } finally {
        setBusy(false);
      }
    },
    fail: setError,
    clear: () => setError(null),
  };
}

let controlIds = 0;

/** A stable id for a label's `for`, a hint or an error. */
export function useId(prefix: string): string {
  const [id] = useState(() => `${prefix}-${++controlIds}`);
  return id;
}

/** The hint, a note (such as why the control is locked) and the hub's message under a control. */
function Notes({ id, hint, note, message }: { id: string; hint: string | undefined; note?: string | null; message: string | null }) {
  return (
    <>
      {hint ? (
        <p class="form-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {note ? (
        <p class="lock-note" id={`${id}-note`}>
          {note}
        </p>
      ) : null}
      {message ? (
        <p class="form-error" id={`${id}-error`}>
          {message}
        </p>
      ) : null}
    </>
  );
}

function describedBy(id: string, hint: string | undefined, message: string | null, note?: string | null): string | undefined {
  const ids = [hint ? `${id}-hint` : "", note ? `${id}-note` : "", message ? `${id}-error` : ""].filter((x) => x !== "");
  return ids.length > 0 ? ids.join(" ") : undefined;
}

export interface Option {
  readonly value: string;
  readonly label: string;
}

/** A labelled select; its error is the hub's message for `name` when it refused it. */
export function SelectField(props: {
  readonly label: string;
  readonly name: string;
  readonly value: string;
  readonly options: readonly Option[];
  readonly onChange: (value: string) => void;
  readonly error?: ApiError | null;
  readonly hint?: string;
  readonly disabled?: boolean;
}) {
  const id = useId("select");
  const message = props.error?.fieldMessage(props.name) ?? null;
  return (
    <div class="form-field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        disabled={props.disabled}
        aria-invalid={message ? "true" : undefined}
        aria-describedby={describedBy(id, props.hint, message)}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Notes id={id} hint={props.hint} message={message} />
    </div>
  );
}

/** A checkbox with its label beside it and, below, a hint, a note (why it is locked) and the hub's message. */
export function CheckField(props: {
  readonly label: string;
  readonly name: string;
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
  readonly error?: ApiError | null;
  readonly hint?: string;
  readonly note?: string | null;
  readonly disabled?: boolean;
}) {
  const id = useId("check");
  const message = props.error?.fieldMessage(props.name) ?? null;
  return (
    <div class="form-field check-field">
      <span class="check-line">
        <input
          type="checkbox"
          id={id}
          name={props.name}
          checked={props.checked}
          disabled={props.disabled}
          aria-describedby={describedBy(id, props.hint, message, props.note)}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />
        <label for={id}>{props.label}</label>
      </span>
      <Notes id={id} hint={props.hint} note={props.note} message={message} />
    </div>
  );
}

export interface Choice<V extends string> {
  readonly value: V;
  readonly label: string;
  readonly hint: string;
}

/** A set of radio buttons, each with a sentence saying what it does. */
export function RadioGroup<V extends string>(props: { readonly legend: string; readonly name: string; readonly value: V; readonly choices: readonly Choice<V>[]; readonly onChange: (value: V) => void }) {
  const id = useId("radio");
  return (
    <fieldset class="choices">
      <legend>{props.legend}</legend>
      {props.choices.map((choice) => (
        <div class="choice" key={choice.value}>
          <input
            type="radio"
            id={`${id}-${choice.value}`}
            name={`${props.name}-${id}`}
            value={choice.value}
            checked={props.value === choice.value}
            aria-describedby={`${id}-${choice.value}-hint`}
            onChange={() => props.onChange(choice.value)}
          />
          <label for={`${id}-${choice.value}`}>{choice.label}</label>
          <p class="form-hint" id={`${id}-${choice.value}-hint`}>
            {choice.hint}
          </p>
        </div>
      ))}
    </fieldset>
  );
}

/** What went well, read out by screen readers. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A list's loading, error and empty states around what it shows when it has data. */
export function Listed<T>({ load, empty, isEmpty, children }: { load: Load<T>; empty: string; isEmpty: (data: T) => boolean; children: (data: T) => ComponentChildren }) {
  if (load.error) return <Failed error={load.error} retry={load.retry} />;
  if (load.data === null) return <Loading />;
  if (isEmpty(load.data)) return <Empty>{empty}</Empty>;
  return <>{children(load.data)}</>;
}

/** A wide table's own scroller, reachable by keyboard, so the page never scrolls sideways on a phone. */
/**
 * Names each body cell after its column header (`data-label`), so that on a
 * narrow screen, where the stylesheet stacks a row's cells, each says what it
 * is. Read from the rendered header, it holds for every table in a wrap.
 */
function labelCells(wrap: HTMLElement): void {
  for (const table of wrap.querySelectorAll("table")) {
    const headers = [...table.querySelectorAll("thead th")].map((th) => th.textContent?.trim() ?? "");
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, index) => cell.setAttribute("data-label", headers[index] ?? ""));
    }
  }
}

export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  const wrap = useRef<HTMLDivElement>(null);
  // Every render: rows come and go with the data.
  useLayoutEffect(() => {
    if (wrap.current) labelCells(wrap.current);
  });
  return (
    // A scrolling region must take focus so keyboard users can scroll it (WCAG 2.1.1).
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0} ref={wrap}>
      {children}
    </div>
  );
}

/** An admin list as a table: its caption, a header cell per column, and (with `actions`) a last column for each row's buttons. */
export function AdminTable({ caption, columns, actions, children }: { caption: string; columns: readonly string[]; actions?: boolean; children: ComponentChildren }) {
  return (
    <TableWrap label={caption}>
      <table class="admin-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span class="sr-only">{t("admin.actions")}</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}

/** How long ago, ticking, with the full date and time on hover. */
export function Ago({ ms }: { ms: number | null }) {
  if (ms === null) return <>{t("admin.never")}</>;
  // The shared clock ticks every 10 s and an agent's clock may run a little ahead: a time just past reads "now", never "in 1 second".
  return (
    <time dateTime={new Date(ms).toISOString()} title={formatDateTime(ms)}>
      {formatRelative(ms, Math.max(now.value, ms))}
    </time>
  );
}

let secondsFormat: { readonly language: string; readonly format: Intl.DateTimeFormat } | null = null;

/** A date and time in the admin's own time zone; `seconds` for logs, where changes a few seconds apart must read apart. */
export function When({ ms, seconds = false }: { ms: number; seconds?: boolean }) {
  if (seconds && secondsFormat?.language !== language.value) {
    secondsFormat = { language: language.value, format: new Intl.DateTimeFormat(language.value, { dateStyle: "medium", timeStyle: "medium" }) };
  }
  return <time dateTime={new Date(ms).toISOString()}>{seconds && secondsFormat ? secondsFormat.format.format(ms) : formatDateTime(ms)}</time>;
}

/** Providers decide an agent's platform (SPEC §4). */
const PROVIDER_PLATFORM: Readonly<Record<Provider, Platform>> = { steam: "Windows", epic: "EGS", grdk: "GRDK" };

export function providerOptions(): Option[] {
  return Provider.map((p) => ({ value: p, label: t("admin.providerOption", { store: PLATFORM_LABELS[PROVIDER_PLATFORM[p]], platform: PROVIDER_PLATFORM[p] }) }));
}

/** A platform id as players know it (Steam, Epic Games Store…), or the id itself if the catalogue does not know it. */
export function platformName(platform: string): string {
  return isPlatform(platform) ? PLATFORM_LABELS[platform] : platform;
}

export interface CatalogueRegion {
  readonly region: string;
  readonly displayName: string;
  readonly flag: string;
}

/** Every region of the catalogue (built-in and the operator's), from a public coverage payload, which lists them all. */
export function useRegions(): Load<readonly CatalogueRegion[]> {
  return useLoad(async (signal) => (await getJson<CoveragePayload>("/api/v1/platforms/Windows/coverage", signal)).regions, []);
}

export function regionOptions(regions: readonly CatalogueRegion[]): Option[] {
  return regions.map((r) => ({ value: r.region, label: `${r.displayName} (${r.region})` }));
}

/** A region id with its flag and name when the catalogue has it. */
export function regionName(regions: readonly CatalogueRegion[] | null, id: string): string {
  const found = regions?.find((r) => r.region === id);
  return found ? found.displayName : id;
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Epoch ms as the value of an <input type="datetime-local">, in the admin's local time. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (read as local time) as epoch ms, or null when empty or not a time. */
export function fromLocalInput(value: string): number | null {
  if (value.trim() === "") return null;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : null;
}

/** The admin's time zone, named beside every time they type. */
export function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
