/**
 * The migrations, in order, embedded into the program (and so into the
 * compiled binary) as text. Append only: a shipped migration is never edited.
 */
import init from "../../migrations/0001_init.sql" with { type: "text" };
import autoincrementIds from "../../migrations/0002_autoincrement_ids.sql" with { type: "text" };
import probeReadingsAndAuditVia from "../../migrations/0003_probe_readings_and_audit_via.sql" with { type: "text" };
import webhooks from "../../migrations/0004_webhooks.sql" with { type: "text" };
import sessionReauthentication from "../../migrations/0005_session_reauthentication.sql" with { type: "text" };
import webhookMessageIds from "../../migrations/0006_webhook_message_ids.sql" with { type: "text" };
import agentEvents from "../../migrations/0007_agent_events.sql" with { type: "text" };
import fieldImport from "../../migrations/0008_field_import.sql" with { type: "text" };
import noValueChecks from "../../migrations/0009_no_value_checks.sql" with { type: "text" };
import passkeyFlags from "../../migrations/0010_passkey_flags.sql" with { type: "text" };
import agentEventReports from "../../migrations/0011_agent_event_reports.sql" with { type: "text" };
import push from "../../migrations/0012_push.sql" with { type: "text" };
import pushSubscriptionOwner from "../../migrations/0013_push_subscription_owner.sql" with { type: "text" };

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "0001_init", sql: init },
  { version: 2, name: "0002_autoincrement_ids", sql: autoincrementIds },
  { version: 3, name: "0003_probe_readings_and_audit_via", sql: probeReadingsAndAuditVia },
  { version: 4, name: "0004_webhooks", sql: webhooks },
  { version: 5, name: "0005_session_reauthentication", sql: sessionReauthentication },
  { version: 6, name: "0006_webhook_message_ids", sql: webhookMessageIds },
  { version: 7, name: "0007_agent_events", sql: agentEvents },
  { version: 8, name: "0008_field_import", sql: fieldImport },
  { version: 9, name: "0009_no_value_checks", sql: noValueChecks },
  { version: 10, name: "0010_passkey_flags", sql: passkeyFlags },
  { version: 11, name: "0011_agent_event_reports", sql: agentEventReports },
  { version: 12, name: "0012_push", sql: push },
  { version: 13, name: "0013_push_subscription_owner", sql: pushSubscriptionOwner },
];
