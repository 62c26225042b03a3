/** The agents table: creation, provisioning and look-ups. */
import { eq } from "drizzle-orm";
import { platformOf, type Platform, type Provider } from "../domain/catalogue.ts";
import { sha256Hex } from "../domain/tokens.ts";
import type { ProvisionEntry } from "../config/options.ts";
import type { Orm } from "./open.ts";
import { agents } from "./schema.ts";

export type Agent = typeof agents.$inferSelect;

export function listAgents(orm: Orm): Agent[] {
  return orm.select().from(agents).orderBy(agents.id).all();
}

export function findAgentByTokenHash(orm: Orm, tokenHash: string): Agent | undefined {
  return orm.select().from(agents).where(eq(agents.tokenHash, tokenHash)).get();
}

export interface NewAgent {
  readonly tokenHash: string;
  readonly provider: Provider;
  readonly region: string;
  readonly label: string | null;
  readonly source: Agent["source"];
  readonly provisionId?: string | null;
}

export function insertAgent(orm: Orm, fields: NewAgent, now: number): Agent {
  const platform: Platform = platformOf(fields.provider);
  return orm
    .insert(agents)
    .values({
      tokenHash: fields.tokenHash,
      provider: fields.provider,
      platform,
      region: fields.region,
      label: fields.label,
      source: fields.source,
      provisionId: fields.provisionId ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
}

export class ProvisionError extends Error {
  override readonly name = "ProvisionError";
}

/**
 * Upserts the configured agents by provisionId, in one transaction: a
 * redeploy updates them in place and never duplicates them. An admin's
 * enabled/disabled choice is kept.
 */
export function provisionAgents(orm: Orm, entries: readonly ProvisionEntry[], now: number): { created: number; updated: number } {
  let created = 0;
  let updated = 0;
  orm.transaction((tx) => {
    for (const entry of entries) {
      const tokenHash = sha256Hex(entry.token);
      const holder = tx.select({ id: agents.id, provisionId: agents.provisionId }).from(agents).where(eq(agents.tokenHash, tokenHash)).get();
      if (holder && holder.provisionId !== entry.id) {
        throw new ProvisionError(`the token of provisioned agent "${entry.id}" (${entry.source}) is already used by agent ${holder.id}; give it its own token`);
      }
      const existing = tx.select({ id: agents.id }).from(agents).where(eq(agents.provisionId, entry.id)).get();
      const fields = {
        tokenHash,
        provider: entry.provider,
        platform: platformOf(entry.provider),
        region: entry.region,
        label: entry.label,
        source: "provisioned" as const,
        updatedAt: now,
      };
      if (existing) {
        tx.update(agents).set(fields).where(eq(agents.id, existing.id)).run();
        updated++;
      } else {
        tx.insert(agents).values({ ...fields, provisionId: entry.id, createdAt: now }).run();
        created++;
      }
    }
  });
  return { created, updated };
}
