/** "Offline, updated …" (SPEC §23): while the browser is offline the board shows the last payload the service worker kept, and says how old it is. */
import { useSignal, type ReadonlySignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { IncentivesPayload } from "../api/client.ts";
import { formatRelative, t } from "../i18n/index.ts";
import { servedOffline } from "../push.ts";

export function OfflineNote({ payload }: { payload: ReadonlySignal<IncentivesPayload | null> }) {
  const online = useSignal(navigator.onLine);
  useEffect(() => {
    const on = () => (online.value = true);
    const off = () => (online.value = false);
    window.addEventListener("online", on);
    window.addEventListener("offline", off);
    return () => {
      window.removeEventListener("online", on);
      window.removeEventListener("offline", off);
    };
  }, []);
  // Online, the payload is not even read, so the stream's messages do not render this again.
  if (online.value && !servedOffline.value) return null;
  const updated = payload.value?.updatedAt ?? null;
  if (updated === null) return null;
  return (
    <p class="offline-note" role="status">
      {t("push.offline", { time: formatRelative(Date.parse(updated), Date.now()) })}
    </p>
  );
}
