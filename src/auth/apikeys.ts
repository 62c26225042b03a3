/**
 * User API keys: `hub_` + 43 base64url characters, shown once; only the
 * SHA-256 is stored. A key acts as its owner with the owner's current role,
 * only while it is enabled, unexpired, its owner enabled and keys allowed.
 */
import { and, eq } from "drizzle-orm";
import type { Orm } from "../db/open.ts";
import { apiKeys } from "../db/schema.ts";
import { randomToken, sha256Hex } from "./tokens.ts";

export const API_KEY_PREFIX = "hub_";
export const API_KEY_PATTERN = /^hub_[A-Za-z0-9_-]{43}$/;
const LAST_USED_INTERVAL_MS = 60_000;

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface ApiKeyBody {
  readonly id: number;
  readonly label: string | null;
  readonly prefix: string;
  readonly enabled: boolean;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly expiresAt: number | null;
}

export function toApiKeyBody(row: ApiKeyRow): ApiKeyBody {
  return { id: row.id, label: row.label, prefix: row.prefix, enabled: row.enabled, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, expiresAt: row.expiresAt };
}

/** The API key sent with a request (Bearer hub_… or X-API-Key), or null. */
export function presentedApiKey(request: Request): string | null {
  const header = request.headers.get("x-api-key");
  if (header !== null) return header.trim();
  const authorization = request.headers.get("authorization");
  const match = authorization ? /^Bearer[ ]+(hub_\S*)\s*$/i.exec(authorization) : null;
  return match?.[1] ?? null;
}

export class ApiKeys {
  private readonly touched = new Map<number, number>();

  constructor(
    private readonly orm: Orm,
    private readonly now: () => number,
  ) {}

  create(userId: number, label: string | null, expiresInDays: number | null): { key: ApiKeyBody; token: string } {
    const token = `${API_KEY_PREFIX}${randomToken(32)}`;
    const now = this.now();
    const row = this.orm
      .insert(apiKeys)
      .values({
        userId,
        keyHash: sha256Hex(token),
        prefix: token.slice(0, 12),
        label,
        createdAt: now,
        expiresAt: expiresInDays === null ? null : now + expiresInDays * 86_400_000,
      })
      .returning()
      .get();
    return { key: toApiKeyBody(row), token };
  }

  list(userId: number): ApiKeyBody[] {
    return this.orm.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(apiKeys.id).all().map(toApiKeyBody);
  }

  find(userId: number, id: number): ApiKeyRow | undefined {
    return this.orm.select().from(apiKeys).where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId))).get();
  }

  update(id: number, patch: { label?: string | null; enabled?: boolean }): ApiKeyBody | null {
    const values = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const row =
      Object.keys(values).length === 0
        ? this.orm.select().from(apiKeys).where(eq(apiKeys.id, id)).get()
        : this.orm.update(apiKeys).set(values).where(eq(apiKeys.id, id)).returning().get();
    return row ? toApiKeyBody(row) : null;
  }

  remove(id: number): void {
    this.orm.delete(apiKeys).where(eq(apiKeys.id, id)).run();
  }

  /** The usable key row for a presented token, or null. */
  authenticate(token: string): ApiKeyRow | null {
    if (!API_KEY_PATTERN.test(token)) return null;
    const row = this.orm.select().from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(token))).get();
    const now = this.now();
    if (!row || !row.enabled || (row.expiresAt !== null && row.expiresAt <= now)) return null;
    if (now - (this.touched.get(row.id) ?? 0) >= LAST_USED_INTERVAL_MS) {
      this.touched.set(row.id, now);
      this.orm.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id)).run();
    }
    return row;
  }
}
