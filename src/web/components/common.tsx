/** Small pieces every page uses: loading and error states, the connection badge. */
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api/client.ts";
import { t } from "../i18n/index.ts";
import type { Connection } from "../live.ts";

export function Loading() {
  return (
    <p class="state" role="status">
      {t("load.loading")}
    </p>
  );
}

export function Failed({ error, retry }: { error: ApiError | Error; retry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p>{t("load.failed", { detail: error.message })}</p>
      {retry ? (
        <button type="button" class="button" onClick={retry}>
          {t("load.retry")}
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state">{children}</p>;
}

const CONNECTION_LABELS = { connecting: "live.connecting", live: "live.live", reconnecting: "live.reconnecting", offline: "live.offline" } as const;

export function ConnectionBadge({ state }: { state: Connection }) {
  return (
    <p class={`connection connection-${state}`} role="status" aria-live="polite">
      <span class="dot" aria-hidden="true" />
      {t(CONNECTION_LABELS[state])}
    </p>
  );
}

/** The regions of a payload as <option>s, flag and name. */
export function RegionOptions({ regions }: { regions: readonly { region: string; displayName: string }[] }) {
  return (
    <>
      {regions.map((r) => (
        <option key={r.region} value={r.region}>
          {r.displayName}
        </option>
      ))}
    </>
  );
}
