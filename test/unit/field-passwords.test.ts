/** The field hub's scrypt password hashes (SPEC §22): checked at sign-in with their own parameters, within bounds. */
import { describe, expect, test } from "bun:test";
import { isFieldPasswordHash, verifyPassword } from "../../src/auth/passwords.ts";
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
});
