import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { ConfigError, configFrom } from "../../src/config/load.ts";
import { gripAuth, gripChannel, gripLastId } from "../../src/fanout/grip.ts";
import { tempDir } from "../helpers.ts";

function refusal(env: Record<string, string>): string {
  try {
    configFrom([], env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return "";
}

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

  test("Pushpin's one GRIP_KEY checks Grip-Sig and signs publishes; Fastly Fanout's public key, issuer and API token come separately", () => {
    const url = "https://api.fastly.com/service/service-one";
    const pushpin = configFrom([], { GRIP_URL: "http://127.0.0.1:5561", GRIP_KEY: "a-key-of-sixteen-chars" }).config;
    expect(gripAuth(pushpin)).toEqual({ verifyKey: "a-key-of-sixteen-chars", verifyIss: null, publish: { key: "a-key-of-sixteen-chars" } });
    const publicPem = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString();
    const dir = tempDir("hub-grip-keys-");
    try {
      const pemFile = `${dir.path}/fanout.pem`;
      const tokenFile = `${dir.path}/fastly.token`;
      writeFileSync(pemFile, publicPem);
      writeFileSync(tokenFile, "fastly-api-token-0123456789abcdef\n");
      const fanout = configFrom([], { GRIP_URL: url, GRIP_VERIFY_KEY_FILE: pemFile, GRIP_VERIFY_ISS: "fastly:service-one", GRIP_PUBLISH_TOKEN_FILE: tokenFile }).config;
      expect(gripAuth(fanout)).toEqual({ verifyKey: publicPem.trim(), verifyIss: "fastly:service-one", publish: { token: "fastly-api-token-0123456789abcdef" } });
    } finally {
      dir.cleanup();
    }
    expect(gripAuth(configFrom([], { GRIP_VERIFY_KEY: publicPem, GRIP_VERIFY_ISS: "fastly:service-one" }).config)).toBeNull();

    // Each half missing stops start-up, naming what would fill it.
    expect(refusal({ GRIP_URL: url, GRIP_PUBLISH_TOKEN: "fastly-api-token-0123456789abcdef" })).toMatch(/GRIP_VERIFY_KEY/);
    expect(refusal({ GRIP_URL: url, GRIP_VERIFY_KEY: publicPem, GRIP_VERIFY_ISS: "fastly:service-one" })).toMatch(/GRIP_PUBLISH_TOKEN/);
    // Fastly signs every service's requests with the one key, so a public key without the issuer is refused.
    expect(refusal({ GRIP_URL: url, GRIP_VERIFY_KEY: publicPem, GRIP_PUBLISH_TOKEN: "fastly-api-token-0123456789abcdef" })).toMatch(/GRIP_VERIFY_ISS/);
    // A broken key or a short token is refused without echoing it.
    const broken = publicPem.replace(/[A-Za-z0-9]{20}/, "x");
    const brokenMessage = refusal({ GRIP_URL: url, GRIP_VERIFY_KEY: broken, GRIP_VERIFY_ISS: "fastly:service-one", GRIP_PUBLISH_TOKEN: "fastly-api-token-0123456789abcdef" });
    expect(brokenMessage).toContain("GRIP_VERIFY_KEY");
    expect(brokenMessage).not.toContain(broken.split("\n")[1] ?? "");
    const shortMessage = refusal({ GRIP_URL: url, GRIP_VERIFY_KEY: publicPem, GRIP_VERIFY_ISS: "fastly:service-one", GRIP_PUBLISH_TOKEN: "tooshort" });
    expect(shortMessage).toContain("GRIP_PUBLISH_TOKEN");
    expect(shortMessage).not.toContain("tooshort");
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
