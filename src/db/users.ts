/** The users table and the public User shape. */
import { and, count, eq, isNotNull, ne } from "drizzle-orm";
import type { Method } from "../domain/auth-levels.ts";
import type { Role } from "../config/options.ts";
import type { Orm } from "./open.ts";
import { passkeys, users } from "./schema.ts";

export type UserRow = typeof users.$inferSelect;

export interface UserBody {
  readonly id: number;
  readonly username: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly role: Role;
  readonly enabled: boolean;
  readonly hasPassword: boolean;
  readonly hasPasskey: boolean;
  readonly totpEnabled: boolean;
  readonly createdAt: number;
  readonly lastLoginAt: number | null;
}

export const USERNAME_PATTERN = /^[\p{L}\p{N}._-]{1,64}$/u;
export const PASSWORD_LENGTH = { min: 10, max: 1024 } as const;

export function usernameKey(username: string): string {
  return username.toLowerCase();
}

export function findUserById(orm: Orm, id: number): UserRow | undefined {
  return orm.select().from(users).where(eq(users.id, id)).get();
}

export function findUserByName(orm: Orm, username: string): UserRow | undefined {
  return orm.select().from(users).where(eq(users.usernameKey, usernameKey(username))).get();
}

export function listUsers(orm: Orm): UserRow[] {
  return orm.select().from(users).orderBy(users.id).all();
}

export function passkeyCount(orm: Orm, userId: number): number {
  return orm.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)).get()?.n ?? 0;
}

export function toUserBody(orm: Orm, row: UserRow): UserBody {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    email: row.email,
    role: row.role,
    enabled: row.enabled,
    hasPassword: row.passwordHash !== null,
    hasPasskey: passkeyCount(orm, row.id) > 0,
    totpEnabled: row.totpEnabled,
    createdAt: row.createdAt,
    lastLoginAt: row.lastLoginAt,
  };
}

/** The second factors a user has enrolled, in the order the API lists them. */
export function enrolledMethods(orm: Orm, row: UserRow): Method[] {
  const methods: Method[] = [];
  if (row.totpEnabled) methods.push("totp");
  if (passkeyCount(orm, row.id) > 0) methods.push("webauthn");
  return methods;
}

export function adminExists(orm: Orm): boolean {
  return orm.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1).get() !== undefined;
}

/** Enabled admins other than this user: zero means the user is the last one standing. */
export function otherEnabledAdmins(orm: Orm, userId: number): number {
  return (
    orm
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.role, "admin"), eq(users.enabled, true), ne(users.id, userId)))
      .get()?.n ?? 0
  );
}

export interface NewUser {
  readonly username: string;
  readonly role: Role;
  readonly passwordHash: string | null;
  readonly email: string | null;
  readonly name: string | null;
}

export function insertUser(orm: Orm, fields: NewUser, now: number): UserRow {
  return orm
    .insert(users)
    .values({ ...fields, usernameKey: usernameKey(fields.username), createdAt: now, updatedAt: now })
    .returning()
    .get();
}

/** Every stored TOTP secret (sealed or, in a database from before the hub's key, plaintext). */
export function storedTotpSecrets(orm: Orm): { id: number; totpSecret: string }[] {
  return orm
    .select({ id: users.id, totpSecret: users.totpSecret })
    .from(users)
    .where(isNotNull(users.totpSecret))
    .all()
    .flatMap((row) => (row.totpSecret === null ? [] : [{ id: row.id, totpSecret: row.totpSecret }]));
}

/** Replaces a user's stored TOTP secret only if it is still `from`, so a change made meanwhile by another process is kept. */
export function replaceTotpSecret(orm: Orm, id: number, from: string, to: string): boolean {
  return orm.update(users).set({ totpSecret: to }).where(and(eq(users.id, id), eq(users.totpSecret, from))).returning({ id: users.id }).get() !== undefined;
}
