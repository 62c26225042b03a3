/**
 * Form pieces shared by the account and admin pages: a labelled field that
 * shows the hub's own message for it, the refusal of a whole form (with the
 * wait from Retry-After when throttled), a confirm step before destructive
 * actions, and a copy button for tokens shown once.
 */
import type { ComponentChildren } from "preact";
import type { Ref } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ApiError } from "../api/client.ts";
import { t } from "../i18n/index.ts";

let fieldIds = 0;

/** A labelled input whose error is the hub's message for `name` (body.name) when it refused it. */
export interface FieldProps {
  readonly label: string;
  readonly name: string;
  readonly value: string;
  readonly onInput: (value: string) => void;
  readonly error?: ApiError | null;
  readonly hint?: string;
  readonly type?: "text" | "password" | "email" | "number" | "datetime-local" | "search";
  readonly autoComplete?: string;
  readonly required?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly inputMode?: "numeric" | "text" | "email";
  readonly placeholder?: string;
  readonly disabled?: boolean;
  readonly autoFocus?: boolean;
}

/**
 * Focuses the first field or control inside the element once it appears: a
 * step of sign-in or setup replaces the one before without a page load, and
 * the autofocus attribute only works on a page's first load.
 */
export function useFocusFirst<T extends HTMLElement>(): Ref<T> {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>("input:not([type=hidden]):not(:disabled), select:not(:disabled), textarea:not(:disabled), button:not(:disabled)")?.focus();
  }, []);
  return ref;
}

export function Field({ label, name, value, onInput, error, hint, type = "text", ...input }: FieldProps) {
  const [id] = useState(() => `field-${++fieldIds}`);
  const focused = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (input.autoFocus) focused.current?.focus();
  }, []);
  const message = error?.fieldMessage(name) ?? null;
  const described = [hint ? `${id}-hint` : "", message ? `${id}-error` : ""].filter((x) => x !== "").join(" ");
  return (
    <div class="form-field">
      <label for={id}>{label}</label>
      {inputOf(type, {
        id,
        name,
        value,
        onInput: (e: { currentTarget: HTMLInputElement }) => onInput(e.currentTarget.value),
        "aria-invalid": message ? "true" : undefined,
        "aria-describedby": described || undefined,
        ref: focused,
        ...input,
      })}
      {hint ? (
        <p class="form-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {message ? (
        <p class="form-error" id={`${id}-error`}>
          {message}
        </p>
      ) : null}
    </div>
  );
}

type InputProps = Omit<FieldProps, "label" | "error" | "hint" | "type" | "onInput"> & {
  readonly id: string;
  readonly onInput: (e: { currentTarget: HTMLInputElement }) => void;
  readonly "aria-invalid": "true" | undefined;
  readonly "aria-describedby": string | undefined;
  readonly ref: Ref<HTMLInputElement>;
};

/** Preact types each input `type` apart, so each kind is written out. */
function inputOf(type: NonNullable<FieldProps["type"]>, props: InputProps) {
  switch (type) {
    case "password":
      return <input type="password" {...props} />;
    case "email":
      return <input type="email" {...props} />;
    case "number":
      return <input type="number" {...props} />;
    case "datetime-local":
      return <input type="datetime-local" {...props} />;
    case "search":
      return <input type="search" {...props} />;
    case "text":
      return <input type="text" {...props} />;
  }
}

/** A wait of a minute or more as minutes and seconds (14:59). */
function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** The refusal of a form as the hub worded it; when throttled, the wait counts down. */
/** The control a problem's location names: body.username → username, body.platforms/0 → platforms. */
function fieldName(location: string): string {
  return location.replace(/^(body|query)\./, "").split(/[./[]/)[0] ?? location;
}

export function FormError({ error }: { error: ApiError | null }) {
  const [left, setLeft] = useState<number | null>(error?.retryAfter ?? null);
  useEffect(() => {
    setLeft(error?.retryAfter ?? null);
    if (error?.retryAfter == null) return;
    const timer = setInterval(() => setLeft((n) => (n === null || n <= 1 ? null : n - 1)), 1000);
    return () => clearInterval(timer);
  }, [error]);
  const box = useRef<HTMLDivElement>(null);
  // The messages of refused fields that have no control in this form to show them; null until the form has been looked at.
  const [unplaced, setUnplaced] = useState<readonly string[] | null>(null);
  useLayoutEffect(() => {
    const form = box.current?.closest("form") ?? null;
    setUnplaced(error === null ? null : (error.fields.filter((f) => form?.querySelector(`[name="${CSS.escape(fieldName(f.location))}"]`) == null).map((f) => f.message)));
  }, [error]);
  if (!error) return null;
  // A field's own message sits at the field: the summary only points there, so no message is said twice.
  const placed = error.fields.length > 0 && unplaced !== null && unplaced.length < error.fields.length;
  const summary = !placed ? error.message : unplaced.length === 0 ? t("form.checkFields") : unplaced.join(" ");
  return (
    <div class="form-problem" role="alert" ref={box}>
      <p>{summary}</p>
      {left !== null && error.status === 429 ? <p>{left < 60 ? t("form.wait", { seconds: left }) : t("form.waitMinutes", { time: clock(left) })}</p> : null}
    </div>
  );
}

/** A destructive button that asks once more before it acts. */
export function ConfirmButton({ label, action, onConfirm, disabled }: { label: string; action: string; onConfirm: () => void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="button button-danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={t("form.confirm")}>
      <span>{t("form.confirm")}</span>
      <button
        type="button"
        class="button button-danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {t("form.confirmYes", { action })}
      </button>
      <button type="button" class="button" onClick={() => setAsking(false)}>
        {t("form.cancel")}
      </button>
    </span>
  );
}

/**
 * A secret shown once, with a button that copies it. The clipboard API only
 * exists in secure contexts (https or localhost); on a plain-http LAN address
 * the button selects the text instead, so it can be copied by hand.
 */
export function CopyValue({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const [code, setCode] = useState<HTMLElement | null>(null);
  const select = () => {
    const selection = window.getSelection();
    if (!code || !selection) return;
    const range = document.createRange();
    range.selectNodeContents(code);
    selection.removeAllRanges();
    selection.addRange(range);
  };
  const copy = () => {
    if (!("clipboard" in navigator) || !window.isSecureContext) {
      select();
      return;
    }
    navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => select(),
    );
  };
  const [labelId] = useState(() => `copy-${++fieldIds}`);
  return (
    <div class="copy-value">
      <span class="sr-only" id={labelId}>
        {label}
      </span>
      <code ref={setCode} aria-labelledby={labelId}>
        {value}
      </code>
      <button type="button" class="button" onClick={copy}>
        {copied ? t("form.copied") : t("form.copy")}
      </button>
    </div>
  );
}

/** A titled box for one part of a page. */
export function Panel({ title, id, children }: { title: string; id: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A form's save button, which says it is saving while the request runs. */
export function SaveButton({ busy }: { busy: boolean }) {
  return (
    <p>
      <button type="submit" class="button button-primary" disabled={busy}>
        {busy ? t("form.saving") : t("form.save")}
      </button>
    </p>
  );
}
