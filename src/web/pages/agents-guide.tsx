/**
 * /contribute/agents (SPEC §21): what an agent is, the program that runs
 * against this hub as it is, its configuration, a way to try the hub without
 * a game account, and how to see that an agent reports. Commands and variable
 * names stay as typed; everything said about them is translated.
 */
import { CopyValue } from "../components/forms.tsx";
import { t, type MessageKey } from "../i18n/index.ts";

/** The field's agent: its repository, and the container image its project publishes. */
export const FIELD_AGENT = {
  name: "bloodpoint-incentives",
  repository: "https://github.com/Buco7854/bloodpoint-incentives",
  image: "ghcr.io/buco7854/bloodpoint-incentives/agent:latest",
} as const;

const VARIABLES: readonly { names: readonly string[]; meaning: MessageKey }[] = [
  { names: ["HUB_URL"], meaning: "guide.var.hubUrl" },
  { names: ["AGENT_KEY"], meaning: "guide.var.agentKey" },
  { names: ["STEAM_USERNAME", "STEAM_PASSWORD"], meaning: "guide.var.steam" },
  { names: ["STEAM_SHARED_SECRET"], meaning: "guide.var.sharedSecret" },
  { names: ["AGENT_MIN_POLL_SECONDS", "AGENT_MAX_POLL_SECONDS"], meaning: "guide.var.poll" },
  { names: ["AGENT_HEALTH_PORT"], meaning: "guide.var.health" },
];

export function AgentsGuide() {
  const origin = window.location.origin;
  const run = `docker run -d --name bp-agent --restart unless-stopped --env-file ./agent-1.env -v bp-agent-data:/app/data ${FIELD_AGENT.image}`;
  const simulateKey = `hub simulate --hub ${origin} --api-key-file ./admin.key --agents 3`;
  const simulateDb = `hub simulate --hub ${origin} --db ./data/hub.db --agents 3`;
  return (
    <article class="guide">
      <h1>{t("guide.title")}</h1>
      <p class="lead">{t("guide.what")}</p>
      <p>{t("guide.token")}</p>
      <p>
        <a class="button" href="/admin/agents">
          {t("guide.adminLink")}
        </a>
      </p>

      <section aria-labelledby="guide-programs">
        <h2 id="guide-programs">{t("guide.programsTitle")}</h2>
        <p>{t("guide.field", { name: FIELD_AGENT.name })}</p>
        <p>
          <a href={FIELD_AGENT.repository}>{t("guide.fieldSource", { name: FIELD_AGENT.name })}</a>
        </p>
        <h3>{t("guide.varsTitle")}</h3>
        <p>{t("guide.varsIntro")}</p>
        <dl class="guide-vars">
          {VARIABLES.map((v) => (
            <div key={v.names[0]} data-variable={v.names.join(" ")}>
              <dt>
                {v.names.map((name) => (
                  <code key={name}>{name}</code>
                ))}
              </dt>
              <dd>{t(v.meaning, { origin })}</dd>
            </div>
          ))}
        </dl>
        <h3>{t("guide.runTitle")}</h3>
        <p>{t("guide.run")}</p>
        <div class="config-block">
          <CopyValue value={run} label={t("guide.runTitle")} />
        </div>
      </section>

      <section aria-labelledby="guide-simulate">
        <h2 id="guide-simulate">{t("guide.simTitle")}</h2>
        <p>{t("guide.sim")}</p>
        <div class="config-block">
          <CopyValue value={simulateKey} label={t("guide.simKey")} />
        </div>
        <div class="config-block">
          <CopyValue value={simulateDb} label={t("guide.simDb")} />
        </div>
      </section>

      <section aria-labelledby="guide-verify">
        <h2 id="guide-verify">{t("guide.verifyTitle")}</h2>
        <p>{t("guide.verify")}</p>
      </section>

      <section aria-labelledby="guide-own">
        <h2 id="guide-own">{t("guide.ownTitle")}</h2>
        <p>{t("guide.own")}</p>
        <p>
          <a href="/docs#/agent" data-external="">
            {t("guide.ownLink")}
          </a>
        </p>
      </section>
    </article>
  );
}
