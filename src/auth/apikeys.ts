/**
 * User API keys: `hub_` + 43 base64url characters, shown once; only the
 * SHA-256 is stored. A key acts as its owner with the owner's current role,
 * only while it is enabled, unexpired, its owner enabled and keys allowed.
 */
import { and, count, eq } from "drizzle-orm";
import type { Orm } from "../db/open.ts";
import { apiKeys } from "../db/schema.ts";
import { writeIfPossible } from "../db/storage.ts";
import { findUserById, type UserRow } from "../db/users.ts";
import { HttpProblem } from "../domain/problem.ts";
import { randomToken, sha256Hex } from "../domain/tokens.ts";

export const API_KEY_PREFIX = "hub_";
export const API_KEY_PATTERN = /^hub_[A-Za-z0-9_-]{43}$/;
/** Keys minted by the field's hub (`bpi_` + 86 base64url characters) and imported from it keep working for the scripts that hold them. */
const FIELD_API_KEY_PATTERN = /^bpi_[A-Za-z0-9_-]{86}$/;
/** Only `hub_…` (or the field's `bpi_…`) bearer credentials are API keys; any other bearer token (a metrics token) is left alone. */
const BEARER_API_KEY = /^Bearer[ ]+((?:hub|bpi)_\S*)\s*$/i;
const LAST_USED_INTERVAL_MS = 60_000;
/** Keys one user may hold, enabled or not: enough for every script and dashboard, and a bound on what one account can make the hub store. */
export const MAX_API_KEYS_PER_USER = 50;

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

/** A new key: `key` is the token, which exists only in this reply. */
export interface CreatedApiKey {
  readonly key: string;
  readonly apiKey: ApiKeyBody;
}

export function toApiKeyBody(row: ApiKeyRow): ApiKeyBody {
  return { id: row.id, label: row.label, prefix: row.prefix, enabled: row.enabled, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt, expiresAt: row.expiresAt };
}

/** The header a key came in, as a client would recognise it in a message. */
export type ApiKeyHeader = "X-API-Key" | "Authorization: Bearer";

export interface PresentedApiKey {
  readonly header: ApiKeyHeader;
  readonly token: string;
}

/** Every API key sent with a request, from X-API-Key and from a `Bearer hub_…` credential. */
export function presentedApiKeys(request: Request): PresentedApiKey[] {
  const presented: PresentedApiKey[] = [];
  const header = request.headers.get("x-api-key");
  if (header !== null) presented.push({ header: "X-API-Key", token: header.trim() });
  const authorization = request.headers.get("authorization");
  const bearer = authorization === null ? undefined : BEARER_API_KEY.exec(authorization)?.[1];
  if (bearer !== undefined) presented.push({ header: "Authorization: Bearer", token: bearer });
  return presented;
}

/** The owner a request's keys authenticate as, or why they do not. */
export type ApiKeyCheck = { readonly owner: UserRow; readonly refusal: null } | { readonly owner: null; readonly refusal: string };

export class ApiKeys {
  private readonly touched = new Map<number, number>();

  constructor(
    private readonly orm: Orm,
    private readonly now: () => number,
  ) {}

  /** A new key, or 409 when the user already holds the most keys allowed; the count and the insert are one immediate transaction, so no other writer (another process included) slips in between. */
  create(userId: number, label: string | null, expiresAt: number | null): CreatedApiKey {
    const key = `${API_KEY_PREFIX}${randomToken(32)}`;
    const row = this.orm.transaction(
      (tx) => {
        const held = tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, userId)).get()?.n ?? 0;
        if (held >= MAX_API_KEYS_PER_USER) {
          throw new HttpProblem(409, `You already hold ${held} API keys, the most one user may have (${MAX_API_KEYS_PER_USER}); delete one you no longer use first.`);
        }
        return tx
          .insert(apiKeys)
          .values({ userId, keyHash: sha256Hex(key), prefix: key.slice(0, 12), label, createdAt: this.now(), expiresAt })
          .returning()
          .get();
      },
      { behavior: "immediate" },
    );
    return { key, apiKey: toApiKeyBody(row) };
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

  /** Switches off every key of a user (after a password change, since the old password may have been used to make them). */
  disableAll(userId: number): void {
    this.orm.update(apiKeys).set({ enabled: false }).where(eq(apiKeys.userId, userId)).run();
  }

  remove(id: number): void {
    this.orm.delete(apiKeys).where(eq(apiKeys.id, id)).run();
  }

  /**
   * Every presented key must be usable, so that a typo in one header is
   * reported instead of hidden behind a good key in the other; and two headers
   * must carry the same key, since acting as one of two owners would be a guess.
   */
  authenticate(presented: readonly PresentedApiKey[]): ApiKeyCheck {
    const refusals: string[] = [];
    const usable: { header: ApiKeyHeader; row: ApiKeyRow; owner: UserRow }[] = [];
    for (const { header, token } of presented) {
      const row = API_KEY_PATTERN.test(token) || FIELD_API_KEY_PATTERN.test(token) ? this.orm.select().from(apiKeys).where(eq(apiKeys.keyHash, sha256Hex(token))).get() : undefined;
      const owner = row ? findUserById(this.orm, row.userId) : undefined;
      const refusal = this.refusalOf(header, row, owner);
      if (refusal !== null) refusals.push(refusal);
      else if (row && owner) usable.push({ header, row, owner });
    }
    if (refusals.length > 0) return { owner: null, refusal: refusals.join(" ") };
    const [first, ...others] = usable;
    if (!first) return { owner: null, refusal: "No API key was sent." };
    if (others.some((other) => other.row.id !== first.row.id)) {
      return { owner: null, refusal: `${usable.map((u) => u.header).join(" and ")} carry two different API keys; send one key, in one header (or the same key in both).` };
    }
    this.markUsed(first.row);
    return { owner: first.owner, refusal: null };
  }

  private refusalOf(header: ApiKeyHeader, row: ApiKeyRow | undefined, owner: UserRow | undefined): string | null {
    if (!row || !owner?.enabled) return `The key in ${header} is not valid.`;
    if (row.expiresAt !== null && row.expiresAt <= this.now()) {
      return `The key in ${header} expired at ${new Date(row.expiresAt).toISOString()}; create a new one.`;
    }
    if (!row.enabled) return `The key in ${header} is switched off; its owner can switch it on again.`;
    return null;
  }

  /** lastUsedAt is written at most once a minute per key, so a busy script does not write on every request. */
  private markUsed(row: ApiKeyRow): void {
    const now = this.now();
    if (now - (this.touched.get(row.id) ?? 0) < LAST_USED_INTERVAL_MS) return;
    // A read path: when storage refuses the write the request goes on, and the next use within a minute tries again.
    if (writeIfPossible(() => this.orm.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.id)).run())) this.touched.set(row.id, now);
  }
}
