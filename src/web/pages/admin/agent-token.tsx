/**
 * An agent's token, shown only once (the hub keeps its hash), with what the
 * field's agent needs to run against this hub: its configuration to copy or
 * download as a .env file, the guide that says which program to start, and a
 * request that proves the token works.
 */
import { useEffect, useRef } from "preact/hooks";
import { CopyValue } from "../../components/forms.tsx";
import { t } from "../../i18n/index.ts";
import type { Agent } from "./parts.tsx";

export const AGENTS_GUIDE = "/contribute/agents";

export function agentName(agent: Agent): string {
  return agent.label ? t("admin.agents.nameLabelled", { id: agent.id, label: agent.label }) : t("admin.agents.name", { id: agent.id });
}

/**
 * The variables of the field's agent, in its .env form (no quotes: Docker's
 * --env-file keeps them as part of the value). The Steam lines are left for
 * the person running it: those credentials never pass through the hub.
 */
export function agentEnv(origin: string, token: string): string {
  return [`HUB_URL=${origin}`, `AGENT_KEY=${token}`, "STEAM_USERNAME=", "STEAM_PASSWORD=", "STEAM_SHARED_SECRET=", ""].join("\n");
}

export function TokenOnce({ agent, token, onDone }: { agent: Agent; token: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const origin = window.location.origin;
  const env = agentEnv(origin, token);
  const file = `agent-${agent.id}.env`;
  const curl = `curl -H "Authorization: Bearer ${token}" ${origin}/api/v1/agent/assignment`;
  return (
    <div class="token-once" data-testid="token-once">
      <h3 ref={heading} tabIndex={-1}>
        {t("admin.agents.tokenTitle", { name: agentName(agent) })}
      </h3>
      <p>{t("admin.agents.tokenOnce")}</p>
      <CopyValue value={token} label={t("admin.agents.token")} />
      <h4>{t("admin.agents.configTitle")}</h4>
      <p class="form-hint">{t("admin.agents.configHint")}</p>
      <div class="config-block">
        <CopyValue value={env} label={t("admin.agents.configTitle")} />
      </div>
      <p class="button-row">
        <a class="button" href={`data:text/plain;charset=utf-8,${encodeURIComponent(env)}`} download={file} data-testid="env-download">
          {t("admin.agents.envDownload", { file })}
        </a>
        <a class="button" href={AGENTS_GUIDE}>
          {t("guide.title")}
        </a>
      </p>
      <h4>{t("admin.agents.curlTitle")}</h4>
      <p class="form-hint">{t("admin.agents.curlHint")}</p>
      <div class="config-block">
        <CopyValue value={curl} label={t("admin.agents.curlTitle")} />
      </div>
      <p>
        <button type="button" class="button" onClick={onDone}>
          {t("admin.agents.tokenDone")}
        </button>
      </p>
    </div>
  );
}
