import { describe, expect, test } from "bun:test";
import { ConfigError, configFrom } from "../../src/config/load.ts";
import { gripChannel, gripLastId } from "../../src/fanout/grip.ts";

describe("GRIP settings and headers", () => {
  test("GRIP_URL without GRIP_KEY stops start-up: without a key any client could ask for a hold", () => {
    expect(() => configFrom([], { GRIP_URL: "http://127.0.0.1:5561" })).toThrow(ConfigError);
    expect(() => configFrom([], { GRIP_URL: "http://127.0.0.1:5561" })).toThrow(/GRIP_KEY/);
    const { config } = configFrom([], { GRIP_URL: "http://127.0.0.1:5561, http://10.0.0.2:5561", GRIP_KEY: "a-key-of-sixteen-chars" });
    expect(config.gripUrl).toEqual(["http://127.0.0.1:5561/", "http://10.0.0.2:5561/"]);
    expect(configFrom([], {}).config.gripUrl).toEqual([]);
  });

  test("a bad GRIP_URL or a short GRIP_KEY (Pushpin's default changeme) is refused without echoing the key", () => {
    expect(() => configFrom([], { GRIP_URL: "tcp://127.0.0.1:5560", GRIP_KEY: "a-key-of-sixteen-chars" })).toThrow(/GRIP_URL/);
    let message = "";
    try {
      configFrom([], { GRIP_URL: "http://127.0.0.1:5561", GRIP_KEY: "changeme" });
    } catch (error) {
      message = error instanceof Error ? error.message : "";
    }
    expect(message).toContain("GRIP_KEY");
    expect(message).not.toContain("changeme");
  });

  test("Grip-Last yields the id the proxy holds for this channel only", () => {
    const channel = gripChannel("Windows");
    expect(channel).toBe("incentives.Windows");
    expect(gripLastId(null, channel)).toBeNull();
    expect(gripLastId("incentives.Windows; last-id=123", channel)).toBe("123");
    expect(gripLastId("incentives.EGS; last-id=7, incentives.Windows; last-id=\"9\"", channel)).toBe("9");
    expect(gripLastId("incentives.EGS; last-id=7", channel)).toBeNull();
    expect(gripLastId("incentives.Windows", channel)).toBeNull();
  });
});
