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

interface FieldScrypt {
  readonly n: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** A hash in the field's scrypt form, whatever its cost; null when it is not one this hub could check. */
function parseFieldScrypt(stored: string): FieldScrypt | null {
  const match = FIELD_SCRYPT.exec(stored);
  if (!match) return null;
  const [n, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4] ?? "", "base64");
  const hash = Buffer.from(match[5] ?? "", "base64");
  const powerOfTwo = n > 1 && (n & (n - 1)) === 0;
  if (!powerOfTwo || r < 1 || p < 1) return null;
  if (salt.length === 0 || hash.length < 16 || hash.length > 128) return null;
  return { n, r, p, salt, hash };
}

/**
 * The most a sign-in can afford to check one password with. Past these, one
 * wrong password takes seconds of a core or a gigabyte of memory: bcrypt
 * cost 16 took 6.3 s, argon2 with 1 GiB took the hub from 97 MB to 1.13 GB.
 * scrypt is also held to N × r × p ≤ 2^21: its memory (128 × N × r bytes)
 * stays within argon2's 256 MiB, and its time within about 2 s on a small
 * server, as bcrypt's cost 14 (N = 2^20 with r = 8 would take 1 GiB).
 */
export const AFFORDABLE_HASH = {
  bcryptCost: 14,
  argon2MemoryKib: 256 * 1024,
  argon2Time: 10,
  argon2Parallelism: 16,
  scryptN: 1 << 20,
  scryptRP: 64,
  scryptWork: 1 << 21,
} as const;

/** The field hub's own parameters (scrypt N), and the floors this hub holds bcrypt and argon2 to (cost, memory in KiB). */
const FIELD_SCRYPT_MIN_N = 16_384;
const BCRYPT_MIN_COST = 10;
const ARGON2_MIN_MEMORY_KIB = OPTIONS.memoryCost;
const BCRYPT = /^\$2[abxy]?\$(\d{2})\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(?:id|i|d)\$v=\d+\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** How a password hash brought in from elsewhere is judged: kept, too weak to keep, or too costly to check at sign-in. */
export type HashVerdict = "kept" | "weak" | "costly";

/**
 * Whether a hash brought in from elsewhere (the field's database) may be
 * kept. Too weak (or in a form this hub cannot check): a scrypt one below
 * the field's own N, bcrypt below cost 10, argon2 below 19 MiB. Too costly:
 * anything past AFFORDABLE_HASH. Either way its user must reset the password.
 */
export function judgeImportedHash(stored: string): HashVerdict {
  if (isFieldPasswordHash(stored)) {
    const parsed = parseFieldScrypt(stored);
    if (parsed === null) return "weak";
    if (!affordableScrypt(parsed)) return "costly";
    return parsed.n >= FIELD_SCRYPT_MIN_N ? "kept" : "weak";
  }
  const bcrypt = BCRYPT.exec(stored);
  if (bcrypt) {
    const cost = Number(bcrypt[1]);
    return cost > AFFORDABLE_HASH.bcryptCost ? "costly" : cost >= BCRYPT_MIN_COST ? "kept" : "weak";
  }
  const argon2 = ARGON2.exec(stored);
  if (argon2) {
    if (!affordableArgon2(argon2)) return "costly";
    return Number(argon2[1]) >= ARGON2_MIN_MEMORY_KIB ? "kept" : "weak";
  }
  return "weak";
}

function affordableScrypt({ n, r, p }: FieldScrypt): boolean {
  return n <= AFFORDABLE_HASH.scryptN && r * p <= AFFORDABLE_HASH.scryptRP && n * r * p <= AFFORDABLE_HASH.scryptWork;
}

function affordableArgon2(match: RegExpExecArray): boolean {
  return Number(match[1]) <= AFFORDABLE_HASH.argon2MemoryKib && Number(match[2]) <= AFFORDABLE_HASH.argon2Time && Number(match[3]) <= AFFORDABLE_HASH.argon2Parallelism;
}

/** Whether checking a password against this stored hash stays within what a sign-in can afford. */
function affordable(stored: string): boolean {
  const bcrypt = BCRYPT.exec(stored);
  if (bcrypt) return Number(bcrypt[1]) <= AFFORDABLE_HASH.bcryptCost;
  const argon2 = ARGON2.exec(stored);
  return argon2 === null || affordableArgon2(argon2);
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
 * checked with its own scrypt parameters, within AFFORDABLE_HASH.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash !== null && isFieldPasswordHash(hash)) {
    const parsed = parseFieldScrypt(hash);
    if (parsed === null || !affordableScrypt(parsed)) return await verifyPassword(password, null);
    return await verifyFieldScrypt(password, parsed);
  }
  // A stored hash costlier than a sign-in can afford (put there before imports were bounded, or by hand) is never run: its user resets the password.
  if (hash !== null && !affordable(hash)) return await verifyPassword(password, null);
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
