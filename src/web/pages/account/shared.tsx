/**
 * Pieces the setup, sign-in and account pages share: the session as the hub
 * says it now, one action's busy and refusal state, entering the hub after
 * signing in, a labelled checkbox and a confirmation line.
 */
import { WebAuthnError } from "@simplewebauthn/browser";
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, type SessionBody } from "../../api/client.ts";
import type { operations } from "../../api/schema";
import { t } from "../../i18n/index.ts";
import { returnTarget } from "../../return-path.ts";
import { refreshSession, session } from "../../session.ts";
import { useLoad } from "../../use-load.ts";

/** The JSON body an operation of the hub's API takes, so each call's wire shape is checked against the hub's own description. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

interface CurrentSession {
  /** Null until the hub has answered. */
  readonly body: SessionBody | null;
  readonly error: ApiError | null;
  readonly retry: () => void;
}

/**
 * The session read afresh when the page opens (the shell's copy may predate a
 * sign-in in another tab), then kept current by every refreshSession().
 */
export function useCurrentSession(): CurrentSession {
  const load = useLoad(() => refreshSession(), []);
  return { body: load.loading ? null : session.value, error: load.error, retry: load.retry };
}

/**
 * A failure as the ApiError the forms show: the hub's refusal as it worded
 * it; a passkey prompt that was dismissed or timed out, or an authenticator
 * that already holds a passkey, in the viewer's language; anything else with
 * the browser's own sentence.
 */
function asProblem(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // The library passes some refusals through as the browser's own DOMException.
  if (error instanceof WebAuthnError || error instanceof DOMException) {
    if (error.name === "NotAllowedError" || error.name === "AbortError") return new ApiError(0, t("account.passkey.cancelled"));
    if (error.name === "InvalidStateError") return new ApiError(0, t("account.passkey.known"));
    return new ApiError(0, t("account.passkey.failed", { detail: error.message }));
  }
  return new ApiError(0, error instanceof Error ? error.message : String(error));
}

export interface Action {
  readonly busy: boolean;
  readonly error: ApiError | null;
  /** Runs `work` unless one is already running; a failure becomes `error`. */
  run(work: () => Promise<void>): void;
  clear(): void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  return {
    busy,
    error,
    run(work) {
      if (busy) return;
      setBusy(true);
      setError(null);
      work().then(
        () => setBusy(false),
        (failure: unknown) => {
          setBusy(false);
          setError(asProblem(failure));
        },
      );
    },
    clear: () => setError(null),
  };
}

/**
 * Opens a page of the hub after signing in or out, with a full load: the
 * shell reads the hub's data once, and with requireAuth on that read is
 * refused to a signed-out viewer (or would outlive the signed-in one); a
 * fresh load reads the session and the data again as they are now. Only a
 * page of this hub is ever opened, whatever path was asked for.
 */
export function enterHub(path: string): void {
  window.location.assign(returnTarget(path, window.location.origin));
}

let checkIds = 0;

export function Checkbox({ label, hint, checked, onChange }: { label: string; hint?: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const [id] = useState(() => `check-${++checkIds}`);
  return (
    <div class="account-check">
      <input type="checkbox" id={id} checked={checked} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
      {hint ? (
        <p class="form-hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/** What just succeeded, announced to screen readers as well. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="account-notice" role="status">
      {children}
    </div>
  );
}
