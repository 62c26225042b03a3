/**
 * The vocabularies the API speaks, each a named schema derived from its one
 * declaration. The OpenAPI description lists each once under components (its
 * title is the name), and the web app's generated vocabulary.ts repeats its
 * values as a constant of the same name.
 */
import type { TLiteral } from "@sinclair/typebox";
import { t } from "elysia";
import { AUTH_LEVELS, FACTOR_METHODS } from "../domain/auth-levels.ts";
import { ROLES } from "../config/options.ts";
import { STORAGE_STATES } from "../db/storage.ts";
import { PLATFORMS, PROVIDERS } from "../domain/catalogue.ts";
import { EVENT_REPORT_MODES, EVENT_SOURCES } from "../domain/events.ts";
import { PLATFORM_STATUSES } from "../domain/incentives.ts";
import { AGENT_SOURCES, AUDIT_VIA } from "../domain/provenance.ts";
import { ALERT_ROLES, ALERT_TYPES, DELIVERY_STATUSES } from "../domain/alerts.ts";

type Literals<V extends readonly string[]> = { -readonly [K in keyof V]: TLiteral<V[K]> };

/** Exactly the given values, under a name that the description hoists into components. */
export function vocabulary<const V extends readonly [string, ...string[]]>(name: string, values: V, description?: string) {
  const literals = values.map((value) => t.Literal(value)) as unknown as [...Literals<V>];
  return t.Union(literals, description === undefined ? { title: name } : { title: name, description });
}

export const platformSchema = (description?: string) => vocabulary("Platform", PLATFORMS, description);
export const providerSchema = (description?: string) => vocabulary("Provider", PROVIDERS, description);
export const userRoleSchema = (description?: string) => vocabulary("UserRole", ROLES, description);
export const alertRoleSchema = (description?: string) => vocabulary("AlertRole", ALERT_ROLES, description);
export const eventSourceSchema = (description?: string) => vocabulary("EventSource", EVENT_SOURCES, description);
export const eventReportModeSchema = (description?: string) => vocabulary("EventReportMode", EVENT_REPORT_MODES, description);
export const storageStateSchema = (description?: string) => vocabulary("StorageState", STORAGE_STATES, description);
export const agentSourceSchema = (description?: string) => vocabulary("AgentSource", AGENT_SOURCES, description);
export const auditViaSchema = (description?: string) => vocabulary("AuditVia", AUDIT_VIA, description);
export const platformStatusSchema = (description?: string) => vocabulary("PlatformStatus", PLATFORM_STATUSES, description);
export const authLevelSchema = (description?: string) => vocabulary("AuthLevel", AUTH_LEVELS, description);
export const factorMethodSchema = (description?: string) => vocabulary("FactorMethod", FACTOR_METHODS, description);
export const deliveryTypeSchema = (description?: string) => vocabulary("DeliveryType", ALERT_TYPES, description);
export const deliveryStatusSchema = (description?: string) => vocabulary("DeliveryStatus", DELIVERY_STATUSES, description);
