import { describe, expect, test } from "bun:test";
import { captureConsole, createLogger, MAX_LOGGED_TEXT } from "../../src/log.ts";

describe("log lines stay bounded and JSON", () => {
  test("an error whose message holds a huge value is logged cut short", () => {
    const lines: string[] = [];
    const log = createLogger("error", (line) => lines.push(line));
    log.error("request failed", { error: new Error(`found: ${JSON.stringify(Array.from({ length: 200_000 }, () => 1))}`) });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length ?? 0).toBeLessThan(3 * MAX_LOGGED_TEXT);
    const record = JSON.parse(lines[0] ?? "") as { error: { message: string } };
    expect(record.error.message).toContain("more characters");
  });

  test("what a library prints through the console becomes one JSON line per call", () => {
    const saved = { log: console.log, info: console.info, debug: console.debug, warn: console.warn, error: console.error, trace: console.trace };
    const lines: string[] = [];
    try {
      captureConsole(createLogger("info", (line) => lines.push(line)));
      console.log("[Sucrose] warning: something\n--- body ---");
      console.error("%s failed", "x");
    } finally {
      Object.assign(console, saved);
    }
    const records = lines.map((line) => JSON.parse(line) as { level: string; text: string; via: string });
    expect(records.map((r) => [r.level, r.via, r.text])).toEqual([
      ["warn", "console.log", "[Sucrose] warning: something\n--- body ---"],
      ["warn", "console.error", "x failed"],
    ]);
  });
});
