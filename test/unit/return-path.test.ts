/** SPEC §10.1: a return path after signing in stays on the hub's origin. */
import { describe, expect, test } from "bun:test";
import { returnTarget } from "../../src/web/return-path.ts";

const ORIGIN = "https://hub.example.org";
const HOME = "/";

describe("returnTarget", () => {
  test.each([
    ["/account", "/account"],
    ["/Windows?role=killer#eu", "/Windows?role=killer#eu"],
    ["/admin/users", "/admin/users"],
    ["/a/../account", "/account"],
    [null, HOME],
    ["", HOME],
  ])("a path on the hub is followed: %p", (next, expected) => {
    expect(returnTarget(next, ORIGIN)).toBe(expected);
  });

  test.each([
    "/\\evil.example/path",
    "/\\\\evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "//evil.example",
    "///evil.example",
    "https://evil.example/",
    "http://hub.example.org/",
    "javascript:alert(1)",
    "data:text/html,hi",
    "account",
    " /account",
  ])("anything that leaves the origin or is not a path returns to the board: %p", (next) => {
    expect(returnTarget(next, ORIGIN)).toBe(HOME);
  });

  test("a path that only normalises to //host is refused: followed again, it would name a host", () => {
    expect(new URL("/.//evil.example/x", ORIGIN).pathname).toBe("//evil.example/x");
    expect(returnTarget("/.//evil.example/x", ORIGIN)).toBe(HOME);
    expect(returnTarget("/%2e//evil.example/x", ORIGIN)).toBe(HOME);
  });

  test("applying it twice changes nothing", () => {
    for (const next of ["/account", "/Windows?role=killer", "/\\evil.example", "/.//evil.example"]) {
      const once = returnTarget(next, ORIGIN);
      expect(returnTarget(once, ORIGIN)).toBe(once);
    }
  });

  test("what the login page reads from ?next= after decoding: %5C, %09 and their doubles", () => {
    for (const raw of ["/%5Chost/path", "/%09/host", "/%5C%5Chost"]) {
      const next = new URLSearchParams(`next=${raw}`).get("next");
      expect(returnTarget(next, ORIGIN)).toBe(HOME);
    }
  });
});
