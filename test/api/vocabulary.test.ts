/**
 * One vocabulary, one place (issue 27): the web app's generated vocabularies
 * are the server's declarations, and no list in the web app repeats one by hand.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AUTH_LEVELS, FACTOR_METHODS } from "../../src/domain/auth-levels.ts";
import { ROLES } from "../../src/config/options.ts";
import { agents, auditLog, events, sessions, users, webhookConditions, webhookDeliveries } from "../../src/db/schema.ts";
import { STORAGE_STATES } from "../../src/db/storage.ts";
import { PLATFORMS, PROVIDERS } from "../../src/domain/catalogue.ts";
import { EVENT_REPORT_MODES, EVENT_SOURCES } from "../../src/domain/events.ts";
import { PLATFORM_STATUSES } from "../../src/domain/incentives.ts";
import { AGENT_SOURCES, AUDIT_VIA } from "../../src/domain/provenance.ts";
import * as generated from "../../src/web/api/vocabulary.ts";
import { ALERT_ROLES, ALERT_TYPES, DELIVERY_STATUSES, WEBHOOK_FORMATS } from "../../src/domain/alerts.ts";

const WEB = join(import.meta.dir, "..", "..", "src", "web");
/** The generated files themselves are where the values are meant to be. */
const GENERATED = new Set(["api/vocabulary.ts", "api/schema.d.ts"]);

const vocabularies: ReadonlyMap<string, readonly string[]> = new Map(Object.entries(generated));

/** Array literals in `source` that open with two values of one vocabulary, as `file:line: [a, b` for the failure message. */
function handCopies(source: string, file: string, known: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/\[\s*(["'`])([^"'`\n]+)\1\s*,\s*(["'`])([^"'`\n]+)\3/g)) {
    const [first, second] = [match[2] ?? "", match[4] ?? ""];
    for (const [name, values] of known) {
      if (values.includes(first) && values.includes(second)) {
        const line = source.slice(0, match.index).split("\n").length;
        found.push(`${file}:${line}: ["${first}", "${second}", … copies ${name}; import it from src/web/api/vocabulary.ts`);
      }
    }
  }
  return found;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("vocabularies", () => {
  test("each generated vocabulary is the server's one declaration, and the drizzle columns derive from it too", () => {
    const declared: Record<string, readonly string[]> = {
      Platform: PLATFORMS,
      Provider: PROVIDERS,
      UserRole: ROLES,
      AlertRole: ALERT_ROLES,
      EventSource: EVENT_SOURCES,
      EventReportMode: EVENT_REPORT_MODES,
      StorageState: STORAGE_STATES,
      AgentSource: AGENT_SOURCES,
      AuditVia: AUDIT_VIA,
      PlatformStatus: PLATFORM_STATUSES,
      AuthLevel: AUTH_LEVELS,
      FactorMethod: FACTOR_METHODS,
      WebhookFormat: WEBHOOK_FORMATS,
      DeliveryType: ALERT_TYPES,
      DeliveryStatus: DELIVERY_STATUSES,
    };
    expect(Object.fromEntries(vocabularies)).toEqual(declared);
    expect({
      platform: agents.platform.enumValues,
      provider: agents.provider.enumValues,
      agentSource: agents.source.enumValues,
      role: users.role.enumValues,
      via: auditLog.via.enumValues,
      eventSource: events.source.enumValues,
      eventReports: agents.eventReports.enumValues,
      alertRole: webhookConditions.role.enumValues,
      authLevel: sessions.authLevel.enumValues,
      deliveryType: webhookDeliveries.type.enumValues,
      deliveryStatus: webhookDeliveries.status.enumValues,
    }).toEqual({
      platform: [...PLATFORMS],
      provider: [...PROVIDERS],
      agentSource: [...AGENT_SOURCES],
      role: [...ROLES],
      via: [...AUDIT_VIA],
      eventSource: [...EVENT_SOURCES],
      eventReports: [...EVENT_REPORT_MODES],
      alertRole: [...ALERT_ROLES],
      authLevel: [...AUTH_LEVELS],
      deliveryType: [...ALERT_TYPES],
      deliveryStatus: [...DELIVERY_STATUSES],
    });
  });

  test("no list in src/web/ repeats a generated vocabulary by hand", () => {
    const copies = sourcesUnder(WEB)
      .filter((path) => !GENERATED.has(relative(WEB, path)))
      .flatMap((path) => handCopies(readFileSync(path, "utf8"), relative(WEB, path), vocabularies));
    expect(copies).toEqual([]);
  });

  test("the scan finds a copied list, whatever its quotes and layout, and leaves other lists alone", () => {
    const known = new Map([["WebhookFormat", ["json", "discord", "slack"]], ["Platform", ["Windows", "EGS"]]]);
    expect(handCopies('const A = ["json", "discord", "slack"];', "a.ts", known)).toEqual(['a.ts:1: ["json", "discord", … copies WebhookFormat; import it from src/web/api/vocabulary.ts']);
    expect(handCopies("x\nconst P = new Set([\n  'Windows',\n  'EGS',\n]);", "b.ts", known)).toEqual(['b.ts:2: ["Windows", "EGS", … copies Platform; import it from src/web/api/vocabulary.ts']);
    expect(handCopies('const SHOW = ["all", "json"]; const ONE = ["EGS"];', "c.ts", known)).toEqual([]);
  });
});
