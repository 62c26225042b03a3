/** Where stored things came from: how an agent came to exist, and how an audited change came in. */

/** manual: created by an admin or the command line; provisioned: from the configuration; imported: from an export or the field's hub. */
export const AGENT_SOURCES = ["manual", "provisioned", "imported"] as const;
export type AgentSource = (typeof AGENT_SOURCES)[number];

export function isAgentSource(value: string): value is AgentSource {
  return (AGENT_SOURCES as readonly string[]).includes(value);
}

/**
 * How an audited change came in (SPEC §11.5b): a signed-in session, an API
 * key, the hub command line, or the configuration. An agent's event report
 * (SPEC §9.1) is recorded as `config` with the agent named as actor: the
 * contract lists these four.
 */
export const AUDIT_VIA = ["session", "api-key", "cli", "config"] as const;
export type AuditVia = (typeof AUDIT_VIA)[number];
