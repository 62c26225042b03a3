/**
 * An audit entry as a sentence: who did what to what, in the viewer's
 * language. The raw action and detail stay one click away on the page.
 */
import { t, type MessageKey } from "../../i18n/index.ts";
import type { AuditEntry } from "./parts.tsx";

/** The last part of an action, for the actions whose sentence only needs a verb. */
const VERBS: Readonly<Record<string, MessageKey>> = {
  create: "audit.created",
  update: "audit.changed",
  delete: "audit.deleted",
  enable: "audit.enabled",
  disable: "audit.disabled",
};

const SENTENCES: Readonly<Record<string, MessageKey>> = {
  setup: "audit.setup",
  "signin.refused": "audit.signinRefused",
  "agent.rotateToken": "audit.rotateToken",
  "agent.import": "audit.agentImport",
  "readings.delete": "audit.readingsDelete",
  "readings.deleteOrphans": "audit.readingsOrphans",
  "user.mfaReset": "audit.mfaReset",
  "user.passwordReset": "audit.passwordReset",
  "settings.update": "audit.settings",
  "settings.mfaPolicy": "audit.mfaPolicy",
  "webhook.rotateSecret": "audit.rotateSecret",
  "webhook.test": "audit.webhookTest",
  "webhook.disable": "audit.webhookDisabled",
  "mfa.totp.add": "audit.factorAdded",
  "mfa.passkey.add": "audit.factorAdded",
  "mfa.totp.remove": "audit.factorRemoved",
  "mfa.passkey.remove": "audit.factorRemoved",
};

const KINDS: Readonly<Record<string, MessageKey>> = {
  agent: "audit.kind.agent",
  user: "audit.kind.user",
  webhook: "audit.kind.webhook",
  event: "audit.kind.event",
  apikey: "audit.kind.apikey",
};

function text(detail: AuditEntry["detail"], key: string): string | null {
  const value = (detail as Record<string, unknown> | null)?.[key];
  return typeof value === "string" && value !== "" ? value : null;
}

/** "agent #3", "user #2 (viewer)": the kind and id of a target, with the name the detail gives when it gives one. */
function targetName(entry: AuditEntry): string {
  if (entry.target === null) return "";
  const [kind = "", id = ""] = entry.target.split(":");
  const label = KINDS[kind];
  if (label === undefined) return entry.target;
  const name = text(entry.detail, "username") ?? text(entry.detail, "label") ?? text(entry.detail, "key") ?? text(entry.detail, "host");
  const base = t(label, { id });
  return name === null ? base : `${base} (${name})`;
}

export function auditSentence(entry: AuditEntry, who: string): string {
  const params = { who, target: targetName(entry), username: text(entry.detail, "username") ?? "?", action: entry.action };
  const special = SENTENCES[entry.action];
  if (special !== undefined) return t(special, params);
  const verb = VERBS[entry.action.split(".").pop() ?? ""];
  if (verb !== undefined && entry.target !== null && KINDS[entry.target.split(":")[0] ?? ""] !== undefined) return t(verb, params);
  return t("audit.other", params);
}
