/** Sharing (SPEC §19): copy-paste snippets for a badge, an embed and a feed of the chosen platform and region. */
import { useState } from "preact/hooks";
import { api, Platform, PLATFORM_LABELS } from "../../api/client.ts";
import { Failed, Loading } from "../../components/common.tsx";
import { Panel } from "../../components/forms.tsx";
import { t, type MessageKey } from "../../i18n/index.ts";
import { useLoad } from "../../use-load.ts";
import { SelectField, useId } from "./parts.tsx";

function Snippet({ label, text }: { label: MessageKey; text: string }) {
  const id = useId("snippet");
  return (
    <div class="form-field">
      <label for={id}>{t(label)}</label>
      <textarea id={id} readOnly rows={2} value={text} data-snippet={label} onFocus={(e) => e.currentTarget.select()} />
    </div>
  );
}

export function SharingSection() {
  const [platform, setPlatform] = useState<Platform>("Windows");
  const [chosen, setRegion] = useState("");
  const coverage = useLoad((signal) => api.coverage(platform, signal), [platform]);
  const origin = location.origin;
  const covered = coverage.data?.regions.filter((r) => r.agents > 0) ?? [];
  const region = covered.some((r) => r.region === chosen) ? chosen : (covered[0]?.region ?? "");
  const name = covered.find((r) => r.region === region)?.displayName ?? region;
  return (
    <Panel title={t("admin.sharing.title")} id="sharing-title">
      <p class="form-hint">{t("admin.sharing.intro")}</p>
      <SelectField label={t("admin.sharing.platform")} name="platform" value={platform} options={Platform.map((p) => ({ value: p, label: PLATFORM_LABELS[p] }))} onChange={(v) => setPlatform(v as Platform)} />
      {coverage.error ? (
        <Failed error={coverage.error} retry={coverage.retry} />
      ) : coverage.data === null ? (
        <Loading />
      ) : covered.length === 0 ? (
        <p>{t("admin.sharing.none")}</p>
      ) : (
        <>
          <SelectField label={t("admin.sharing.region")} name="region" value={region} options={covered.map((r) => ({ value: r.region, label: r.displayName }))} onChange={setRegion} />
          <Snippet label="admin.sharing.badge" text={`[![${name}](${origin}/badge/${platform}/${region}.svg)](${origin}/${platform}/${region})`} />
          <Snippet label="admin.sharing.badgeJson" text={`https://img.shields.io/endpoint?url=${encodeURIComponent(`${origin}/badge/${platform}/${region}.json`)}`} />
          <Snippet label="admin.sharing.embedRegion" text={`<iframe src="${origin}/embed/${platform}/${region}" title="${name}" width="360" height="80" style="border:0"></iframe>`} />
          <Snippet label="admin.sharing.embed" text={`<iframe src="${origin}/embed/${platform}" title="${PLATFORM_LABELS[platform]}" width="360" height="480" style="border:0"></iframe>`} />
          <Snippet label="admin.sharing.feedRegion" text={`${origin}/feeds/${platform}/${region}.atom?min=50`} />
          <Snippet label="admin.sharing.feed" text={`${origin}/feeds/${platform}.atom`} />
        </>
      )}
    </Panel>
  );
}
