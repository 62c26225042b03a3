import { describe, expect, test } from "bun:test";
import { cadenceProblem, evaluateCadence, parseCadence, usesRefreshTime } from "../../src/domain/cadence-expression.ts";

const value = (source: string, refreshTime = 300): number => evaluateCadence(parseCadence(source), refreshTime);

describe("cadence expressions", () => {
  test("plain numbers", () => {
    expect(value("300")).toBe(300);
    expect(value(" 450 ")).toBe(450);
    expect(value("12.5")).toBe(12.5);
    expect(value(".5")).toBe(0.5);
  });

  test("operators follow the usual precedence and associativity", () => {
    expect(value("1 + 2 * 3")).toBe(7);
    expect(value("(1 + 2) * 3")).toBe(9);
    expect(value("10 - 4 - 3")).toBe(3);
    expect(value("100 / 10 / 2")).toBe(5);
    expect(value("-5 + 10")).toBe(5);
    expect(value("--5")).toBe(5);
    expect(value("+5")).toBe(5);
    expect(value("2*(3+(4-1))")).toBe(12);
  });

  test("the refresh-time placeholder and its alias", () => {
    expect(value("%refreshTime%", 240)).toBe(240);
    expect(value("%auto%", 240)).toBe(240);
    expect(value("%refreshTime% * 1.5 + 30", 200)).toBe(330);
    expect(usesRefreshTime(parseCadence("%auto% + 1"))).toBe(true);
    expect(usesRefreshTime(parseCadence("(2 * -%auto%)"))).toBe(true);
    expect(usesRefreshTime(parseCadence("300"))).toBe(false);
  });

  test("malformed expressions are refused with a reason", () => {
    expect(cadenceProblem("")).toContain("empty");
    expect(cadenceProblem("1 +")).toContain("ends too early");
    expect(cadenceProblem("(1 + 2")).toContain('missing ")"');
    expect(cadenceProblem("1 2")).toContain("unexpected");
    expect(cadenceProblem("%refresh%")).toContain("placeholder");
    expect(cadenceProblem("300s")).toContain('unexpected character "s"');
    expect(cadenceProblem("1 / 0")).toContain("finite");
    expect(cadenceProblem("x".repeat(201))).toContain("longer than");
  });

  test("code is never evaluated", () => {
    expect(cadenceProblem("process.exit(1)")).not.toBeNull();
    expect(cadenceProblem("1; 2")).not.toBeNull();
    expect(cadenceProblem("constructor")).not.toBeNull();
    expect(cadenceProblem("2 ** 3")).not.toBeNull();
  });

  test("valid expressions have no problem", () => {
    expect(cadenceProblem("%refreshTime%")).toBeNull();
    expect(cadenceProblem("%auto% * 1.33")).toBeNull();
    expect(cadenceProblem("600")).toBeNull();
  });
});
