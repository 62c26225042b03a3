/**
 * The board's connection state, beside the platform tabs (SPEC §17, §23):
 * live, connecting or reconnecting; and while the browser is offline, or the
 * board shows a payload the service worker kept, "Offline, updated …" in its
 * place, so the header never says "Reconnecting…" above an older board that
 * says it is offline.
 */
import { useSignal, type ReadonlySignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { IncentivesPayload } from "../api/client.ts";
import { now } from "../clock.ts";
import { formatRelative, t } from "../i18n/index.ts";
import type { Connection } from "../live.ts";
import { servedOffline } from "../push.ts";
import { ConnectionBadge } from "./common.tsx";

export function LiveState({ connection, payload }: { connection: Connection; payload: ReadonlySignal<IncentivesPayload | null> }) {
  const online = useSignal(navigator.onLine);
  useEffect(() => {
    const on = () => (online.value = true);
    const off = () => (online.value = false);
    window.addEventListener("online", on);
    window.addEventListener("offline", off);
    // The browser may have gone offline between the first render and this effect, with no event left to hear.
    online.value = navigator.onLine;
    return () => {
      window.removeEventListener("online", on);
      window.removeEventListener("offline", off);
    };
  }, []);
  // Online, the payload is not even read, so the stream's messages do not render this again.
  const updated = online.value && !servedOffline.value ? null : (payload.value?.updatedAt ?? null);
  if (updated === null) return <ConnectionBadge state={connection} />;
  return (
    <p class="connection connection-offline offline-note" role="status" aria-live="polite">
      <span class="dot" aria-hidden="true" />
      {t("push.offline", { time: formatRelative(Date.parse(updated), now.value) })}
    </p>
  );
}
