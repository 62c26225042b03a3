/** Passwords: argon2id through Bun.password, with equal work for unknown users. */
import { PASSWORD_LENGTH } from "../db/users.ts";
import { characters } from "../domain/characters.ts";

/** OWASP's argon2id baseline: 19 MiB, two passes. */
const OPTIONS = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

/** For start-up and the CLI, where nothing else waits on the event loop. */
export function hashPasswordSync(password: string): string {
  return Bun.password.hashSync(password, OPTIONS);
}

let dummyHash: Promise<string> | null = null;

export async function hashPassword(password: string): Promise<string> {
  return await Bun.password.hash(password, OPTIONS);
}

/**
 * Checks a password against a stored hash. Without a hash (unknown user,
 * disabled user, no password) it still verifies against a dummy hash, so
 * every failure takes the same time.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(crypto.randomUUID());
    await Bun.password.verify(password, await dummyHash);
    return false;
  }
  return await Bun.password.verify(password, hash);
}

export function passwordProblem(password: string): string | null {
  const length = characters(password);
  if (length < PASSWORD_LENGTH.min || length > PASSWORD_LENGTH.max) {
    return `a password needs ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`;
  }
  return null;
}
