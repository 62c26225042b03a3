/** /contribute (when the hub enables it): which regions need agents on each platform, and how to run one. */
import { api, Platform, PLATFORM_LABELS, type SiteMeta } from "../api/client.ts";
import { Failed, Loading } from "../components/common.tsx";
import { Flag } from "../components/flag.tsx";
import { t } from "../i18n/index.ts";
import { useLoad } from "../use-load.ts";

export function Contribute({ meta }: { meta: SiteMeta }) {
  const coverage = useLoad((signal) => Promise.all(Platform.map((p) => api.coverage(p, signal))), []);
  return (
    <>
      <h1>{t("contribute.title")}</h1>
      <p class="lead">{t("contribute.body")}</p>
      <p>
        <a class="button button-primary" href={meta.agentSetupUrl}>
          {t("guide.title")}
        </a>
      </p>
      {coverage.error ? (
        <Failed error={coverage.error} retry={coverage.retry} />
      ) : coverage.data === null ? (
        <Loading />
      ) : (
        coverage.data.map((platform) => (
          <section class="panel" key={platform.platform} aria-labelledby={`coverage-${platform.platform}`}>
            <h2 id={`coverage-${platform.platform}`}>{PLATFORM_LABELS[platform.platform as keyof typeof PLATFORM_LABELS] ?? platform.platform}</h2>
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t("contribute.region")}</th>
                    <th scope="col">{t("contribute.agents")}</th>
                    <th scope="col">{t("contribute.fresh")}</th>
                  </tr>
                </thead>
                <tbody>
                  {platform.regions.map((region) => (
                    <tr key={region.region} class={region.freshAgents === 0 ? "needs-agent" : undefined}>
                      <th scope="row">
                        <Flag region={region.region} /> {region.displayName}
                      </th>
                      <td>{region.agents}</td>
                      <td>{region.freshAgents === 0 ? <span class="badge badge-stale">{t("contribute.needed")}</span> : region.freshAgents}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ))
      )}
    </>
  );
}
