/** The field hub's scrypt password hashes (SPEC §22): checked at sign-in with their own parameters, within bounds. */
import { describe, expect, test } from "bun:test";
import { AFFORDABLE_HASH, isFieldPasswordHash, judgeImportedHash, verifyPassword } from "../../src/auth/passwords.ts";
import { fieldPasswordHash } from "../field-fixture.ts";

describe("field password hashes", () => {
  const hash = fieldPasswordHash("correct horse battery staple");

  test("the right password passes, any other fails", async () => {
    expect(isFieldPasswordHash(hash)).toBe(true);
    expect(await verifyPassword("correct horse battery staple", hash)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", hash)).toBe(false);
    expect(await verifyPassword("", hash)).toBe(false);
  });

  test("a doctored hash never passes, and cannot make a sign-in take the machine", async () => {
    const [, , , , salt, key] = hash.split("$");
    const doctored = [
      `scrypt$1073741824$8$1$${salt}$${key}`,
      `scrypt$16777216$8$1$${salt}$${key}`,
      `scrypt$16384$4096$1$${salt}$${key}`,
      `scrypt$16384$8$1000$${salt}$${key}`,
      `scrypt$16383$8$1$${salt}$${key}`,
      `scrypt$16384$8$1$$${key}`,
      `scrypt$16384$8$1$${salt}$AAAA`,
      "scrypt$not-a-hash",
    ];
    for (const stored of doctored) expect(await verifyPassword("correct horse battery staple", stored)).toBe(false);
  });

  test("this hub's own hashes are not taken for the field's", () => {
    expect(isFieldPasswordHash(Bun.password.hashSync("x", { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 }))).toBe(false);
  });

  test("an imported hash is kept, too weak, or too costly to check at sign-in, by its parameters alone", () => {
    const [, , , , salt, key] = hash.split("$");
    const scrypt = (n: number, r: number, p: number) => ["scrypt", String(n), String(r), String(p), salt, key].join("$");
    const bcrypt = Bun.password.hashSync("x", { algorithm: "bcrypt", cost: 4 });
    const argon2 = Bun.password.hashSync("x", { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 });
    const cases: [string, string][] = [
      [hash, "kept"],
      [scrypt(1 << 20, 2, 1), "kept"],
      [scrypt(1 << 21, 1, 1), "costly"],
      [scrypt(16_384, 16, 8), "costly"],
      [scrypt(1 << 20, 8, 1), "costly"],
      [scrypt(8192, 8, 1), "weak"],
      [bcrypt.replace("$04$", "$14$"), "kept"],
      [bcrypt.replace("$04$", "$15$"), "costly"],
      [bcrypt.replace("$04$", "$09$"), "weak"],
      [argon2, "kept"],
      [argon2.replace("m=19456", `m=${AFFORDABLE_HASH.argon2MemoryKib}`), "kept"],
      [argon2.replace("m=19456", `m=${AFFORDABLE_HASH.argon2MemoryKib + 1}`), "costly"],
      [argon2.replace("t=2", "t=11"), "costly"],
      [argon2.replace("p=1", "p=17"), "costly"],
      [argon2.replace("m=19456", "m=8"), "weak"],
      ["plain text", "weak"],
    ];
    for (const [stored, verdict] of cases) expect(`${stored} ${judgeImportedHash(stored)}`).toBe(`${stored} ${verdict}`);
  });

  test("a stored hash costlier than a sign-in can afford is never run: the sign-in fails as fast as any other", async () => {
    const costly = Bun.password.hashSync("the password", { algorithm: "bcrypt", cost: 4 }).replace("$04$", "$16$");
    const started = performance.now();
    expect(await verifyPassword("the password", costly)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    const argon = Bun.password.hashSync("the password", { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 }).replace("m=19456", "m=1048576");
    const before = process.memoryUsage().rss;
    expect(await verifyPassword("the password", argon)).toBe(false);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});
