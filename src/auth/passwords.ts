/** Passwords: argon2id through Bun.password, with equal work for unknown users. */
import { scrypt, timingSafeEqual } from "node:crypto";
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
 * The field's hub stores `scrypt$N$r$p$salt$hash` (standard base64). Its
 * parameters come from a database file, so they are bounded: a doctored row
 * must not make one sign-in take the machine's memory or minutes of work.
 */
const FIELD_SCRYPT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
const SCRYPT_LIMITS = { maxN: 1 << 20, maxR: 32, maxP: 16 } as const;

interface FieldScrypt {
  readonly n: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

function parseFieldScrypt(stored: string): FieldScrypt | null {
  const match = FIELD_SCRYPT.exec(stored);
  if (!match) return null;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4] ?? "", "base64");
  const hash = Buffer.from(match[5] ?? "", "base64");
  const powerOfTwo = n > 1 && (n & (n - 1)) === 0;
  if (!powerOfTwo || n > SCRYPT_LIMITS.maxN || r < 1 || r > SCRYPT_LIMITS.maxR || p < 1 || p > SCRYPT_LIMITS.maxP) return null;
  if (salt.length === 0 || hash.length < 16 || hash.length > 128) return null;
  return { n, r, p, salt, hash };
}

/** The field hub's own parameters (scrypt N), and the floors this hub holds bcrypt and argon2 to (cost, memory in KiB). */
const FIELD_SCRYPT_MIN_N = 16_384;
const BCRYPT_MIN_COST = 10;
const ARGON2_MIN_MEMORY_KIB = OPTIONS.memoryCost;
const BCRYPT = /^\$2[abxy]?\$(\d{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(?:id|i|d)\$v=\d+\$m=(\d+),t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/**
 * Whether a hash brought in from elsewhere (the field's database) may be
 * kept: a scrypt one with at least the field's own N, a bcrypt one of cost
 * 10 or more, an argon2 one of 19 MiB or more. Anything weaker, or in a
 * form this hub cannot check, makes a password cheap to guess or unusable.
 */
export function isStrongEnoughHash(stored: string): boolean {
  if (isFieldPasswordHash(stored)) {
    const parsed = parseFieldScrypt(stored);
    return parsed !== null && parsed.n >= FIELD_SCRYPT_MIN_N;
  }
  const bcrypt = BCRYPT.exec(stored);
  if (bcrypt) return Number(bcrypt[1]) >= BCRYPT_MIN_COST;
  const argon2 = ARGON2.exec(stored);
  if (argon2) return Number(argon2[1]) >= ARGON2_MIN_MEMORY_KIB;
  return false;
}

/** A hash in the field hub's form: accepted at sign-in, and replaced by this hub's own on the first success. */
export function isFieldPasswordHash(stored: string): boolean {
  return stored.startsWith("scrypt$");
}

async function verifyFieldScrypt(password: string, stored: FieldScrypt): Promise<boolean> {
  const derived = await new Promise<Buffer>((resolve, reject) => {
    scrypt(password, stored.salt, stored.hash.length, { N: stored.n, r: stored.r, p: stored.p, maxmem: 256 * stored.n * stored.r + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
  return timingSafeEqual(derived, stored.hash);
}

/**
 * Checks a password against a stored hash. Without a hash (unknown user,
 * disabled user, no password) it still verifies against a dummy hash, so
 * every failure takes the same time. A hash imported from the field's hub is
 * checked with its own scrypt parameters.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash !== null && isFieldPasswordHash(hash)) {
    const parsed = parseFieldScrypt(hash);
    if (parsed === null) return await verifyPassword(password, null);
    return await verifyFieldScrypt(password, parsed);
  }
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
