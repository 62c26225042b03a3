/**
 * Drizzle's view of the tables created by migrations/. The SQL files are the
 * source of truth; test/api/db.test.ts checks that both agree.
 */
import { sql } from "drizzle-orm";
import { AUTH_LEVELS } from "../domain/auth-levels.ts";
import { ROLES } from "../config/options.ts";
import { PLATFORMS, PROVIDERS } from "../domain/catalogue.ts";
import { EVENT_REPORT_MODES, EVENT_SOURCES } from "../domain/events.ts";
import { AGENT_SOURCES, AUDIT_VIA } from "../domain/provenance.ts";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ALERT_ROLES, ALERT_TYPES, DELIVERY_STATUSES, type WebhookFormat } from "../domain/alerts.ts";

export const agents = sqliteTable(
  "agents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull().unique(),
    provider: text("provider", { enum: PROVIDERS }).notNull(),
    platform: text("platform", { enum: PLATFORMS }).notNull(),
    region: text("region").notNull(),
    label: text("label"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    source: text("source", { enum: AGENT_SOURCES }).notNull().default("manual"),
    provisionId: text("provision_id").unique(),
    pollMin: text("poll_min"),
    pollMax: text("poll_max"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** Whether its event reports are scheduled (SPEC §16.3). */
    eventReports: text("event_reports", { enum: EVENT_REPORT_MODES }).notNull().default("accepted"),
  },
  (t) => [index("agents_slot").on(t.platform, t.region)],
);

export const readings = sqliteTable(
  "readings",
  {
    id: integer("id").primaryKey(),
    platform: text("platform").notNull(),
    region: text("region").notNull(),
    survivor: integer("survivor").notNull(),
    killer: integer("killer").notNull(),
    ratio: real("ratio").notNull(),
    version: text("version"),
    category: text("category"),
    refreshTimeSeconds: real("refresh_time_seconds"),
    measuredAt: integer("measured_at").notNull(),
    receivedAt: integer("received_at").notNull(),
    agentId: integer("agent_id").references(() => agents.id, { onDelete: "set null" }),
    activeEvent: text("active_event"),
    /** The agent's assignment said probeImmediately when this reading arrived. */
    probe: integer("probe", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("readings_slot_time").on(t.platform, t.region, t.measuredAt),
    index("readings_time").on(t.measuredAt),
    index("readings_agent").on(t.agentId, t.measuredAt),
  ],
);

export const slotState = sqliteTable(
  "slot_state",
  {
    platform: text("platform").notNull(),
    region: text("region").notNull(),
    refreshTimeSeconds: real("refresh_time_seconds").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.platform, t.region] })],
);

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  username: text("username").notNull(),
  usernameKey: text("username_key").notNull().unique(),
  name: text("name"),
  email: text("email"),
  role: text("role", { enum: ROLES }).notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  passwordHash: text("password_hash"),
  totpSecret: text("totp_secret"),
  totpEnabled: integer("totp_enabled", { mode: "boolean" }).notNull().default(false),
  totpLastStep: integer("totp_last_step"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  lastLoginAt: integer("last_login_at"),
});

export const sessions = sqliteTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    authLevel: text("auth_level", { enum: AUTH_LEVELS }).notNull(),
    csrfToken: text("csrf_token").notNull(),
    challenge: text("challenge"),
    challengeKind: text("challenge_kind"),
    challengeExpiresAt: integer("challenge_expires_at"),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    /** When the holder last passed a password or second-factor check (SPEC §10.1 recent authentication). */
    authenticatedAt: integer("authenticated_at").notNull().default(0),
    /** Issued by POST /auth/setup to the admin who created the hub. */
    fromSetup: integer("from_setup", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("sessions_user").on(t.userId), index("sessions_expiry").on(t.expiresAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    label: text("label"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    expiresAt: integer("expires_at"),
  },
  (t) => [index("api_keys_user").on(t.userId)],
);

export const passkeys = sqliteTable(
  "passkeys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialId: text("credential_id").notNull().unique(),
    publicKey: blob("public_key", { mode: "buffer" }).notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports"),
    label: text("label"),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    /** The authenticator data's flags (see PASSKEY_FLAGS); null when not known. */
    flags: integer("flags"),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

export const trustedDevices = sqliteTable(
  "trusted_devices",
  {
    id: integer("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("trusted_devices_user").on(t.userId)],
);

export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    key: text("key").notNull(),
    label: text("label").notNull(),
    multiplier: real("multiplier").notNull(),
    startsAt: integer("starts_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    platforms: text("platforms"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    source: text("source", { enum: EVENT_SOURCES }).notNull().default("admin"),
    /** The agent that reported it; null for admin events and once that agent is deleted. */
    agentId: integer("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** Seen only in a reading's activeEvent, not on the schedule agents report. */
    seen: integer("seen", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("events_window").on(t.endsAt, t.startsAt), index("events_source").on(t.source, t.key, t.startsAt)],
);

/** Every agent whose report held an entry of the agents' schedule: the entry is withdrawn with the last of them. */
export const eventReporters = sqliteTable(
  "event_reporters",
  {
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    agentId: integer("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.eventId, t.agentId] }), index("event_reporters_agent").on(t.agentId)],
);

/** Agent events an admin hid, matched by key and start whenever they are reported again. */
export const hiddenEvents = sqliteTable(
  "hidden_events",
  {
    key: text("key").notNull(),
    startsAt: integer("starts_at").notNull(),
    hiddenAt: integer("hidden_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.startsAt] })],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey(),
    at: integer("at").notNull(),
    actorUserId: integer("actor_user_id"),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    detail: text("detail"),
    /** How the change came in; null on entries written before the hub recorded it. */
    via: text("via", { enum: AUDIT_VIA }),
  },
  (t) => [index("audit_log_at").on(t.at)],
);

export const webhooks = sqliteTable("webhooks", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  url: text("url").notNull(),
  format: text("format").$type<WebhookFormat>().notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  /** JSON array of platform ids; null for all. */
  platforms: text("platforms"),
  /** JSON array of region ids; null for all. */
  regions: text("regions"),
  /** JSON array, a subset of survivor and killer. */
  roles: text("roles").notNull(),
  /** Null: no bonus alerts. */
  minBonus: integer("min_bonus"),
  onStatus: integer("on_status", { mode: "boolean" }).notNull().default(false),
  onEvents: integer("on_events", { mode: "boolean" }).notNull().default(false),
  /** The signing secret, sealed under a key derived from the hub's key. */
  secret: text("secret").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  lastDeliveryAt: integer("last_delivery_at"),
  failingSince: integer("failing_since"),
  disabledReason: text("disabled_reason"),
});

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    type: text("type", { enum: ALERT_TYPES }).notNull(),
    /** The message { type, timestamp, data } as JSON, fixed when written. */
    payload: text("payload").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: integer("created_at").notNull(),
    deliveredAt: integer("delivered_at"),
    nextAttemptAt: integer("next_attempt_at"),
    /** The `webhook-id` receivers see: random and time-ordered, never the row id, which repeats after a restore. */
    messageId: text("message_id").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_message").on(t.messageId),
    index("webhook_deliveries_webhook").on(t.webhookId, t.id),
    index("webhook_deliveries_pending").on(t.webhookId, t.id).where(sql`status = 'pending'`),
    index("webhook_deliveries_created").on(t.createdAt),
  ],
);

export const webhookConditions = sqliteTable(
  "webhook_conditions",
  {
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    region: text("region").notNull(),
    role: text("role", { enum: ALERT_ROLES }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.webhookId, t.platform, t.region, t.role] })],
);

export const alertPlatformState = sqliteTable("alert_platform_state", {
  platform: text("platform").primaryKey(),
  status: text("status").notNull(),
  /** JSON of the event in force, or null. */
  activeEvent: text("active_event"),
  updatedAt: integer("updated_at").notNull(),
});

/** One row per user, agent, passkey or API key that `hub import-field` copied: the field's id beside ours. */
export const fieldImport = sqliteTable(
  "field_import",
  {
    kind: text("kind", { enum: ["user", "agent", "passkey", "apiKey"] }).notNull(),
    fieldId: integer("field_id").notNull(),
    hubId: integer("hub_id").notNull(),
    importedAt: integer("imported_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.fieldId] })],
);

export const schemaMigrations = sqliteTable("schema_migrations", {
  version: integer("version").primaryKey(),
  name: text("name").notNull(),
  appliedAt: integer("applied_at")
    .notNull()
    .default(sql`(unixepoch() * 1000)`),
});

export const schema = {
  agents,
  readings,
  slotState,
  users,
  sessions,
  apiKeys,
  passkeys,
  trustedDevices,
  settings,
  events,
  eventReporters,
  hiddenEvents,
  auditLog,
  webhooks,
  webhookDeliveries,
  webhookConditions,
  alertPlatformState,
  fieldImport,
  schemaMigrations,
};
