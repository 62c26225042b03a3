import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, configFrom, parseArgs, unquote, type Config, type Env } from "../../src/config/load.ts";
import { fileVariant, OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
import { provisionAgents } from "../../src/db/agents.ts";
import { BUILT_IN_REGIONS } from "../../src/domain/catalogue.ts";
import { memoryDb, tempDir } from "../helpers.ts";

const load = (argv: string[] = [], env: Env = {}): Config => configFrom(argv, env).config;
const failure = (argv: string[], env: Env = {}): string => {
  try {
    load(argv, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
};

const TOKEN = "t0ken-abcdefghijklmnop";
let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function file(name: string, contents: string): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const path = join(dir.path, name);
  writeFileSync(path, contents);
  return path;
}

describe("defaults", () => {
  test("every setting has the default of the spec", () => {
    const c = load();
    expect(c.host).toBe("0.0.0.0");
    expect(c.port).toBe(3000);
    expect(c.db).toBe("./data/hub.db");
    expect(c.staleAfter).toBe(900);
    expect(c.retentionDays).toBe(31);
    expect(c.forecastWindowDays).toBe(84);
    expect(c.pageSize).toBe(20);
    expect(c.pollMin).toBe("%refreshTime%");
    expect(c.pollMax).toBeNull();
    expect(c.requireAuth).toBe(false);
    expect(c.enableApiKeys).toBe(false);
    expect(c.mfaEnforcedRoles).toEqual(["admin"]);
    expect(c.sessionSecret).toBeNull();
    expect(c.secretKey).toBeNull();
    expect(c.origin).toBe("http://localhost:3000");
    expect(c.rpId).toBe("localhost");
    expect(c.rpName).toBe("Incentives Hub");
    expect(c.cookieSecure).toBe(false);
    expect(c.sessionTtlHours).toBe(168);
    expect(c.adminUser).toBeNull();
    expect(c.provision).toEqual([]);
    expect(c.trustedProxies).toEqual({ kind: "none" });
    expect(c.corsOrigins).toEqual({ kind: "none" });
    expect(c.contactEmail).toBeNull();
    expect(c.contribute).toBe(false);
    expect(c.agentSetupUrl).toBe("http://localhost:3000/contribute/agents");
    expect(c.maxStreams).toBe(10000);
    expect(c.logLevel).toBe("info");
    expect(c.metricsToken).toBeNull();
    expect(c.explicit.size).toBe(0);
    expect(Object.isFrozen(c)).toBe(true);
  });

  test("derived defaults follow the origin and port", () => {
    const c = load(["--port", "8080"]);
    expect(c.origin).toBe("http://localhost:8080");
    const https = load([], { ORIGIN: "https://hub.example.org" });
    expect(https.cookieSecure).toBe(true);
    expect(https.rpId).toBe("hub.example.org");
    expect(https.agentSetupUrl).toBe("https://hub.example.org/contribute/agents");
    expect(load([], { ORIGIN: "https://hub.example.org", COOKIE_SECURE: "false" }).cookieSecure).toBe(false);
  });
});

describe("precedence: flag > env > file > default", () => {
  test("each source overrides the one below it", () => {
    const yaml = file("hub.yaml", "port: 4000\npageSize: 30\nstaleAfter: 120\n");
    expect(load(["--config", yaml]).port).toBe(4000);
    expect(load(["--config", yaml], { PORT: "5000" }).port).toBe(5000);
    expect(load(["--config", yaml, "--port", "6000"], { PORT: "5000" }).port).toBe(6000);
    const c = load(["--config", yaml, "--port=6001"], { PORT: "5000", PAGE_SIZE: "40" });
    expect(c.port).toBe(6001);
    expect(c.pageSize).toBe(40);
    expect(c.staleAfter).toBe(120);
    expect([...c.explicit].sort()).toEqual(["pageSize", "port", "staleAfter"]);
  });

  test("HUB_CONFIG names the file when --config does not", () => {
    const yaml = file("hub.yaml", "port: 4100\n");
    expect(load([], { HUB_CONFIG: yaml }).port).toBe(4100);
  });

  test("environment values lose one pair of surrounding quotes", () => {
    expect(load([], { PORT: '"4200"' }).port).toBe(4200);
    expect(load([], { CONTACT_EMAIL: "'ops@example.org'" }).contactEmail).toBe("ops@example.org");
    expect(unquote(`"a'`)).toBe(`"a'`);
  });

  test("switches take an optional true or false", () => {
    expect(load(["--require-auth"]).requireAuth).toBe(true);
    expect(load(["--require-auth", "false"]).requireAuth).toBe(false);
    expect(load(["--require-auth=no"]).requireAuth).toBe(false);
    expect(load([], { REQUIRE_AUTH: "yes" }).requireAuth).toBe(true);
    expect(load([], { ENABLE_API_KEYS: "1" }).enableApiKeys).toBe(true);
  });

  test("a switch takes only true or false: any other next word, or value after =, is an error naming the flag and the word", () => {
    for (const [word, value] of [["true", true], ["FALSE", false], ["1", true], ["0", false], ["yes", true], ["no", false], ["on", true], ["Off", false]] as const) {
      expect(load(["--require-auth", word]).requireAuth).toBe(value);
      expect(load([`--require-auth=${word}`]).requireAuth).toBe(value);
    }
    expect(load(["--require-auth", "--port", "4000"]).requireAuth).toBe(true);
    expect(failure(["--require-auth", "flase"])).toBe("--require-auth takes true or false, not 'flase'");
    expect(failure(["--demo=maybe"])).toBe("--demo takes true or false, not 'maybe'");
    const own = [{ name: "dry-run", takesValue: false, help: "x" }];
    expect(parseArgs(["--dry-run", "no"], own).command.get("dry-run")).toBe("false");
    expect(parseArgs(["--dry-run=on"], own).command.get("dry-run")).toBe("true");
    expect(() => parseArgs(["--dry-run", "./field.db"], own)).toThrow("--dry-run takes true or false, not './field.db'");
  });
});

describe("config file", () => {
  test("YAML with lists, interpolation and defaults", () => {
    const yaml = file(
      "hub.yaml",
      [
        "port: ${HUB_PORT}",
        "origin: ${HUB_ORIGIN:-https://fallback.example.org}",
        "corsOrigins: [https://a.example.org, https://b.example.org]",
        "mfaEnforcedRoles: []",
        "provision:",
        "  - id: a1",
        "    token: ${A1_TOKEN}",
        '    region: "${A1_REGION:-eu-west-1}"',
        "    provider: Steam",
        "    label: Attic",
        "regions:",
        "  - { id: me-south-1, name: Middle East (Bahrain), tz: Asia/Bahrain, flag: BH }",
      ].join("\n"),
    );
    const c = load(["--config", yaml], { HUB_PORT: "4300", A1_TOKEN: TOKEN });
    expect(c.port).toBe(4300);
    expect(c.origin).toBe("https://fallback.example.org");
    expect(c.corsOrigins).toEqual({ kind: "list", origins: ["https://a.example.org", "https://b.example.org"] });
    expect(c.mfaEnforcedRoles).toEqual([]);
    expect(c.provision).toEqual([{ id: "a1", token: TOKEN, region: "eu-west-1", provider: "steam", label: "Attic", source: `provision[0] in ${yaml}` }]);
    expect(c.catalogue.region("me-south-1")).toMatchObject({ flag: "\u{1F1E7}\u{1F1ED}", country: "BH", zones: [], latencyHost: "gamelift.me-south-1.amazonaws.com" });
    expect(c.catalogue.regions.length).toBe(BUILT_IN_REGIONS.length + 1);
  });

  test("JSON works too", () => {
    const json = file("hub.json", JSON.stringify({ port: 4400, requireAuth: true, corsOrigins: "*" }));
    const c = load(["--config", json]);
    expect(c.port).toBe(4400);
    expect(c.requireAuth).toBe(true);
    expect(c.corsOrigins).toEqual({ kind: "any" });
  });

  test("file problems are one clear line", () => {
    expect(failure(["--config", "/nonexistent/hub.yaml"])).toContain("does not exist");
    expect(failure(["--config", file("bad.yaml", "port: [1, 2\n")])).toContain("not valid YAML");
    expect(failure(["--config", file("bad.json", "{port:")])).toContain("not valid JSON");
    expect(failure(["--config", file("list.yaml", "- 1\n- 2\n")])).toContain("mapping");
    expect(failure(["--config", file("typo.yaml", "prot: 3000\n")])).toContain('unknown setting "prot"');
    expect(failure(["--config", file("unset.yaml", "port: ${NOPE}\n")])).toContain("${NOPE}");
    expect(failure(["--config", file("port.yaml", "port: 0\n")])).toContain("port in");
    expect(failure(["--config", file("region.yaml", "regions:\n  - { id: bad, name: X, tz: UTC }\n")])).toContain("must match");
    expect(failure(["--config", file("host.yaml", "regions:\n  - { id: xx-own-1, name: X, tz: UTC, latencyHost: 'ping.example.net; img-src *' }\n")])).toContain('latencyHost "ping.example.net; img-src *"');
    expect(failure(["--config", file("typo-region.yaml", "regions:\n  - { id: xx-own-1, name: X, tz: UTC, latencyhost: ping.example.net }\n")])).toContain('unknown key "latencyhost"');
  });
});

describe("bad values stop start-up with the setting, the value and what is allowed", () => {
  test("one line naming all three", () => {
    const message = failure(["--port", "70000"]);
    expect(message).toBe('invalid value "70000" for --port: expected an integer from 1 to 65535');
    expect(message.includes("\n")).toBe(false);
    expect(failure([], { PORT: "abc" })).toBe('invalid value "abc" for PORT: expected an integer from 1 to 65535');
  });

  test.each([
    ["STALE_AFTER_SECONDS", "59"],
    ["DATA_RETENTION_DAYS", "0"],
    ["FORECAST_WINDOW_DAYS", "1.5"],
    ["PAGE_SIZE", "-1"],
    ["POLL_MIN_SECONDS", "%refresh%"],
    ["POLL_MAX_SECONDS", "1 +"],
    ["REQUIRE_AUTH", "perhaps"],
    ["MFA_ENFORCED_ROLES", "admin,root"],
    ["ORIGIN", "https://hub.example.org/path"],
    ["ORIGIN", "ftp://hub.example.org"],
    ["SESSION_TTL_HOURS", "0"],
    ["TRUSTED_PROXIES", "some"],
    ["CORS_ALLOWED_ORIGINS", "not a url"],
    ["CONTACT_EMAIL", "nobody"],
    ["DISCORD_URL", "discord"],
    ["MAX_STREAMS", "0"],
    ["LOG_LEVEL", "loud"],
    ["ADMIN_BOOTSTRAP_USER", "has space"],
  ])("%s=%s", (name, value) => {
    const message = failure([], { [name]: value });
    expect(message).toContain(name);
    expect(message).toContain(JSON.stringify(value));
    expect(message).toContain("expected");
  });

  test("secrets are never echoed", () => {
    const message = failure([], { SESSION_SECRET: "short-secret" });
    expect(message).toContain("SESSION_SECRET");
    expect(message).toContain("(hidden)");
    expect(message).not.toContain("short-secret");
    expect(failure([], { ADMIN_BOOTSTRAP_PASSWORD: "tiny" })).not.toContain("tiny");
    expect(failure([], { METRICS_TOKEN: "has spaces in it!!" })).not.toContain("spaces");
  });

  test("unknown flags and missing values", () => {
    expect(failure(["--prot", "1"])).toContain("unknown flag --prot");
    expect(failure(["--port"])).toContain("needs a value");
  });
});

describe("provisioned agents", () => {
  test("PROVISION_AGENTS, AGENTn_* and --provision merge by id, higher precedence winning", () => {
    const yaml = file("hub.yaml", `provision:\n  - { id: a1, token: ${TOKEN}-file, region: eu-west-1, provider: steam }\n  - { id: a9, token: ${TOKEN}-nine, region: eu-west-2, provider: epic }\n`);
    const c = load(["--config", yaml, "--provision", `a3:${TOKEN}-flag:us-east-1:grdk`], {
      PROVISION_AGENTS: `a1:${TOKEN}-env:eu-west-1:steam,a2:${TOKEN}-two:us-east-2:EPIC`,
      AGENT1_TOKEN: `${TOKEN}-n1`,
      AGENT1_REGION: "ap-south-1",
      AGENT1_PROVIDER: "grdk",
      AGENT1_LABEL: "Numbered",
      AGENT2_ID: "a3",
      AGENT2_TOKEN: `${TOKEN}-lost`,
      AGENT2_REGION: "eu-west-1",
      AGENT2_PROVIDER: "steam",
    });
    const byId = Object.fromEntries(c.provision.map((p) => [p.id, p]));
    expect(Object.keys(byId).sort()).toEqual(["a1", "a2", "a3", "a9", "agent1"]);
    expect(byId.a1?.token).toBe(`${TOKEN}-env`);
    expect(byId.a2?.provider).toBe("epic");
    expect(byId.a3?.token).toBe(`${TOKEN}-flag`);
    expect(byId.a9?.region).toBe("eu-west-2");
    expect(byId.agent1).toEqual({ id: "agent1", token: `${TOKEN}-n1`, region: "ap-south-1", provider: "grdk", label: "Numbered", source: "AGENT1_*" });
    expect(byId.a1?.source).toBe("PROVISION_AGENTS entry 1");
    expect(byId.a2?.source).toBe("PROVISION_AGENTS entry 2");
    expect(byId.a3?.source).toBe("--provision entry 1");
    expect(byId.a9?.source).toBe(`provision[1] in ${yaml}`);
    expect(c.explicit.has("provision")).toBe(true);
  });

  test("a bad entry in PROVISION_AGENTS is named by the variable and its place in the list, never by its token", () => {
    const good = `a0:${TOKEN}-zero:eu-west-1:steam`;
    expect(failure([], { PROVISION_AGENTS: `${good},a1:${TOKEN}:eu-west-1` })).toBe(
      "invalid value (hidden) for PROVISION_AGENTS entry 2: expected id:token:region:provider (3 parts instead of 4)",
    );
    expect(failure([], { PROVISION_AGENTS: `${good},a1:${TOKEN}:eu-west-1:xbox` })).toBe(
      'invalid value "xbox" for the provider of PROVISION_AGENTS entry 2: expected steam, epic or grdk',
    );
    expect(failure([], { PROVISION_AGENTS: "a1:tiny-secret:eu-west-1:steam" })).toBe(
      "invalid value (hidden) for the token of PROVISION_AGENTS entry 1: expected 16 to 512 visible ASCII characters without spaces",
    );
    expect(failure([], { PROVISION_AGENTS: `a1:${TOKEN}:mars-north-1:steam` })).toBe(
      'invalid value "mars-north-1" for the region of PROVISION_AGENTS entry 1: expected a region id of the catalogue or one added under regions in the config file (unknown region)',
    );
    expect(failure([], { PROVISION_AGENTS: `bad id:${TOKEN}:eu-west-1:steam` })).toBe(
      'invalid value "bad id" for the id of PROVISION_AGENTS entry 1: expected 1 to 64 letters, digits, ".", "_" or "-"',
    );
    const misplaced = failure([], { PROVISION_AGENTS: `${"T".repeat(86)}:a1:eu-west-1:steam` });
    expect(misplaced).toContain("(hidden) for the id of PROVISION_AGENTS entry 1");
    for (const env of [{ PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1` }, { PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1:xbox` }, { PROVISION_AGENTS: `${"T".repeat(86)}:a1:eu-west-1:steam` }]) {
      const message = failure([], env);
      expect(message).not.toContain(TOKEN);
      expect(message).not.toContain("T".repeat(20));
    }
    expect(failure([], { PROVISION_AGENTS: "a1:tiny-secret:eu-west-1:steam" })).not.toContain("tiny-secret");
  });

  test("a bad entry of --provision is named by the flag", () => {
    expect(failure(["--provision", `a1:${TOKEN}:eu-west-1:steam,a2:${TOKEN}-2:mars-north-1:epic`])).toBe(
      'invalid value "mars-north-1" for the region of --provision entry 2: expected a region id of the catalogue or one added under regions in the config file (unknown region)',
    );
    expect(failure(["--provision", `a1:${TOKEN}`])).toBe("invalid value (hidden) for --provision entry 1: expected id:token:region:provider (2 parts instead of 4)");
  });

  test("a bad AGENTn_* agent is named by the variable that holds the bad value", () => {
    const agent = { AGENT3_TOKEN: TOKEN, AGENT3_REGION: "eu-west-1", AGENT3_PROVIDER: "steam" };
    expect(failure([], { ...agent, AGENT3_PROVIDER: "xbox" })).toBe('invalid value "xbox" for AGENT3_PROVIDER: expected steam, epic or grdk');
    expect(failure([], { ...agent, AGENT3_REGION: "mars-north-1" })).toBe(
      'invalid value "mars-north-1" for AGENT3_REGION: expected a region id of the catalogue or one added under regions in the config file (unknown region)',
    );
    expect(failure([], { ...agent, AGENT3_TOKEN: "tiny-secret" })).toBe(
      "invalid value (hidden) for AGENT3_TOKEN: expected 16 to 512 visible ASCII characters without spaces",
    );
    expect(failure([], { ...agent, AGENT3_ID: "bad id" })).toBe('invalid value "bad id" for AGENT3_ID: expected 1 to 64 letters, digits, ".", "_" or "-"');
    expect(failure([], { ...agent, AGENT3_LABEL: "x".repeat(121) })).toStartWith("invalid value ");
    expect(failure([], { ...agent, AGENT3_LABEL: "x".repeat(121) })).toContain("for AGENT3_LABEL: expected at most 120 characters");
    expect(failure([], { AGENT4_TOKEN: TOKEN, AGENT4_PROVIDER: "steam" })).toContain("AGENT4_REGION");
  });

  test("a bad entry of the config file's provision list is named by its key and index", () => {
    const yaml = file(
      "hub.yaml",
      `provision:\n  - { id: a1, token: ${TOKEN}, region: eu-west-1, provider: steam }\n  - { id: a2, token: ${TOKEN}-2, region: eu-west-1, provider: xbox }\n`,
    );
    expect(failure(["--config", yaml])).toBe(`invalid value "xbox" for provision[1].provider in ${yaml}: expected steam, epic or grdk`);
    const secret = file("hub.yaml", "provision:\n  - { id: a1, token: tiny-secret, region: eu-west-1, provider: steam }\n");
    expect(failure(["--config", secret])).toBe(`invalid value (hidden) for provision[0].token in ${secret}: expected 16 to 512 visible ASCII characters without spaces`);
    const region = file("hub.json", JSON.stringify({ provision: [{ id: "a1", token: TOKEN, region: "me-south-1", provider: "steam" }] }));
    expect(failure(["--config", region])).toContain(`"me-south-1" for provision[0].region in ${region}`);
    const listed = file("hub.yaml", `provision:\n  - "a1:${TOKEN}:eu-west-1:xbox"\n`);
    expect(failure(["--config", listed])).toBe(`invalid value "xbox" for the provider of provision[0] entry 1 in ${listed}: expected steam, epic or grdk`);
    const scalar = file("hub.yaml", "provision: 42\n");
    expect(failure(["--config", scalar])).toBe(`invalid value (hidden) for provision entry 1 in ${scalar}: expected id:token:region:provider (1 part instead of 4)`);
    const nested = file("hub.yaml", "provision:\n  - [a1]\n");
    expect(failure(["--config", nested])).toBe(`invalid value (hidden) for provision[0] in ${nested}: expected an entry with id, token, region and provider`);
  });

  test("a token given to two agents stops start-up naming where the second was configured", () => {
    const c = load([], { PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1:steam`, AGENT2_TOKEN: TOKEN, AGENT2_REGION: "eu-west-1", AGENT2_PROVIDER: "steam" });
    expect(() => provisionAgents(memoryDb().orm, c.provision, 0)).toThrow('the token of provisioned agent "agent2" (AGENT2_*) is already used by agent 1; give it its own token');
  });

  test("extra regions of the config file count for provisioned agents from every source", () => {
    const yaml = file("hub.yaml", "regions:\n  - { id: me-south-1, name: Middle East (Bahrain), tz: Asia/Bahrain }\n");
    const c = load(["--config", yaml], { PROVISION_AGENTS: `a1:${TOKEN}:me-south-1:steam`, AGENT2_TOKEN: `${TOKEN}-2`, AGENT2_REGION: "me-south-1", AGENT2_PROVIDER: "epic" });
    expect(c.provision.map((p) => p.region)).toEqual(["me-south-1", "me-south-1"]);
  });
});

describe("secrets from files (_FILE variants)", () => {
  const SECRET = "s".repeat(20) + "-session-secret-from-a-file";
  const KEY_HEX = "0123456789abcdef".repeat(4);
  const PASSWORD = "  a password with spaces  ";
  const METRICS = "metrics-token-from-a-file";

  test("every secret setting has a _FILE variable, a -file flag and a File key, and no other setting has one", () => {
    const secrets = OPTION_KEYS.filter((key) => fileVariant(key) !== null).sort();
    expect(secrets).toEqual(["adminPassword", "backupEncryptionKey", "backupS3SecretAccessKey", "gripKey", "gripPublishToken", "gripVerifyKey", "metricsToken", "provision", "secretKey", "sessionSecret", "vapidPrivateKey"]);
    expect(fileVariant("sessionSecret")).toEqual({ flag: "--session-secret-file", env: "SESSION_SECRET_FILE", key: "sessionSecretFile" });
    expect(failure(["--port-file", "/x"])).toContain("unknown flag --port-file");
    expect(failure(["--config", file("hub.yaml", "portFile: /x\n")])).toContain('unknown setting "portFile"');
  });

  test("each secret from a file given by variable: the content less one trailing line break", () => {
    const c = load([], {
      SESSION_SECRET_FILE: file("session", `${SECRET}\n`),
      SECRET_KEY_FILE: file("key", `${KEY_HEX}\r\n`),
      ADMIN_BOOTSTRAP_USER: "root",
      ADMIN_BOOTSTRAP_PASSWORD_FILE: file("password", `${PASSWORD}\n`),
      METRICS_TOKEN_FILE: file("metrics", METRICS),
      PROVISION_AGENTS_FILE: file("agents", `a1:${TOKEN}-one:eu-west-1:steam\na2:${TOKEN}-two:us-east-1:epic,a3:${TOKEN}-three:eu-west-2:grdk\n`),
      AGENT4_TOKEN_FILE: file("agent4", `${TOKEN}-four\n`),
      AGENT4_REGION: "ap-south-1",
      AGENT4_PROVIDER: "steam",
    });
    expect(c.sessionSecret).toBe(SECRET);
    expect(Buffer.from(c.secretKey ?? []).toString("hex")).toBe(KEY_HEX);
    expect(c.adminPassword).toBe(PASSWORD);
    expect(c.metricsToken).toBe(METRICS);
    expect(c.provision.map((p) => [p.id, p.token])).toEqual([
      ["a1", `${TOKEN}-one`],
      ["a2", `${TOKEN}-two`],
      ["a3", `${TOKEN}-three`],
      ["agent4", `${TOKEN}-four`],
    ]);
    for (const key of ["sessionSecret", "secretKey", "adminPassword", "metricsToken", "provision"] as const) expect(c.explicit.has(key)).toBe(true);
  });

  test("only one line break is dropped: a password keeps the rest of what the file holds", () => {
    expect(load([], { ADMIN_BOOTSTRAP_PASSWORD_FILE: file("password", "long password\n\n") }).adminPassword).toBe("long password\n");
    expect(load([], { ADMIN_BOOTSTRAP_PASSWORD_FILE: file("password", "\tlong password ") }).adminPassword).toBe("\tlong password ");
  });

  test("each secret from a file given by flag", () => {
    const agents = file("agents", `a1:${TOKEN}:eu-west-1:steam\n`);
    const c = load([
      "--session-secret-file", file("session", SECRET),
      "--secret-key-file", file("key", Buffer.from(KEY_HEX, "hex").toString("base64")),
      "--admin-password-file", file("password", PASSWORD),
      "--metrics-token-file=" + file("metrics", `${METRICS}\n`),
      "--provision-file", agents,
    ]);
    expect(c.sessionSecret).toBe(SECRET);
    expect(Buffer.from(c.secretKey ?? []).toString("hex")).toBe(KEY_HEX);
    expect(c.adminPassword).toBe(PASSWORD);
    expect(c.metricsToken).toBe(METRICS);
    expect(c.provision).toEqual([{ id: "a1", token: TOKEN, region: "eu-west-1", provider: "steam", label: null, source: `--provision-file entry 1 (${agents})` }]);
  });

  test("each secret from a file given by config-file key", () => {
    const agents = file("agents", `a1:${TOKEN}:eu-west-1:steam`);
    const yaml = file(
      "hub.yaml",
      [
        `sessionSecretFile: ${file("session", SECRET)}`,
        `secretKeyFile: ${file("key", Buffer.from(KEY_HEX, "hex").toString("base64url"))}`,
        `adminPasswordFile: ${file("password", PASSWORD)}`,
        "metricsTokenFile: ${METRICS_DIR}/metrics",
        `provisionFile: ${agents}`,
      ].join("\n"),
    );
    const metrics = file("metrics", METRICS);
    const c = load(["--config", yaml], { METRICS_DIR: metrics.slice(0, metrics.lastIndexOf("/")) });
    expect(c.sessionSecret).toBe(SECRET);
    expect(Buffer.from(c.secretKey ?? []).toString("hex")).toBe(KEY_HEX);
    expect(c.adminPassword).toBe(PASSWORD);
    expect(c.metricsToken).toBe(METRICS);
    expect(c.provision[0]?.source).toBe(`provisionFile entry 1 in ${yaml} (${agents})`);
  });

  test("a secret and its file in the same place stop start-up naming both", () => {
    const session = file("session", SECRET);
    expect(failure([], { SESSION_SECRET: SECRET, SESSION_SECRET_FILE: session })).toBe(
      "SESSION_SECRET and SESSION_SECRET_FILE are both set; give the value or the file, not both",
    );
    expect(failure(["--metrics-token", METRICS, "--metrics-token-file", session])).toBe(
      "--metrics-token and --metrics-token-file are both set; give the value or the file, not both",
    );
    const yaml = file("hub.yaml", `adminPassword: ${PASSWORD.trim()}\nadminPasswordFile: ${session}\n`);
    expect(failure(["--config", yaml])).toBe(`adminPassword in ${yaml} and adminPasswordFile in ${yaml} are both set; give the value or the file, not both`);
    expect(failure([], { PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1:steam`, PROVISION_AGENTS_FILE: session })).toContain("PROVISION_AGENTS and PROVISION_AGENTS_FILE are both set");
    expect(failure([], { AGENT2_TOKEN: TOKEN, AGENT2_TOKEN_FILE: session, AGENT2_REGION: "eu-west-1", AGENT2_PROVIDER: "steam" })).toBe(
      "AGENT2_TOKEN and AGENT2_TOKEN_FILE are both set; give the value or the file, not both",
    );
    expect(failure([], { SECRET_KEY: KEY_HEX, SECRET_KEY_FILE: session })).toContain("SECRET_KEY and SECRET_KEY_FILE are both set");
    for (const message of [failure([], { SESSION_SECRET: SECRET, SESSION_SECRET_FILE: session }), failure(["--metrics-token", METRICS, "--metrics-token-file", session])]) {
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(METRICS);
    }
  });

  test("between places the usual precedence holds, and a lower place's file is not even read", () => {
    const fromFlag = file("flag", `${METRICS}-flag`);
    expect(load(["--metrics-token-file", fromFlag], { METRICS_TOKEN: `${METRICS}-env` }).metricsToken).toBe(`${METRICS}-flag`);
    expect(load(["--metrics-token", `${METRICS}-flag`], { METRICS_TOKEN_FILE: "/nonexistent/metrics" }).metricsToken).toBe(`${METRICS}-flag`);
    const yaml = file("hub.yaml", `metricsToken: ${METRICS}-file\n`);
    expect(load(["--config", yaml], { METRICS_TOKEN_FILE: fromFlag }).metricsToken).toBe(`${METRICS}-flag`);
  });

  test("a missing, unreadable or empty file stops start-up with one line naming the setting and the path", () => {
    expect(failure([], { SESSION_SECRET_FILE: "/nonexistent/session" })).toBe("cannot read /nonexistent/session (SESSION_SECRET_FILE): it does not exist");
    expect(failure(["--admin-password-file", "/nonexistent/pw"])).toBe("cannot read /nonexistent/pw (--admin-password-file): it does not exist");
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    expect(failure([], { METRICS_TOKEN_FILE: dir.path })).toBe(`cannot read ${dir.path} (METRICS_TOKEN_FILE): it is a directory`);
    expect(failure([], { METRICS_TOKEN_FILE: "/dev/null" })).toBe("cannot read /dev/null (METRICS_TOKEN_FILE): it is not a regular file");
    const empty = file("empty", "\n");
    expect(failure([], { SECRET_KEY_FILE: empty })).toBe(`${empty} (SECRET_KEY_FILE) is empty`);
    expect(failure([], { AGENT1_TOKEN_FILE: "/nonexistent/token", AGENT1_REGION: "eu-west-1", AGENT1_PROVIDER: "steam" })).toBe(
      "cannot read /nonexistent/token (AGENT1_TOKEN_FILE): it does not exist",
    );
    expect(failure([], { SESSION_SECRET_FILE: "" })).toBe('invalid value "" for SESSION_SECRET_FILE: expected a file path');
    expect(failure([], { AGENT1_REGION: "eu-west-1", AGENT1_PROVIDER: "steam" })).toBe("AGENT1_* is incomplete: AGENT1_TOKEN (or AGENT1_TOKEN_FILE) is not set");
  });

  test("a bad value in a file is named by the setting and the path, and never shown", () => {
    const short = file("session", "short-secret\n");
    expect(failure([], { SESSION_SECRET_FILE: short })).toBe(`invalid value (hidden) for SESSION_SECRET_FILE (${short}): expected at least 32 characters`);
    const key = file("key", "not a key at all");
    expect(failure([], { SECRET_KEY_FILE: key })).toBe(`invalid value (hidden) for SECRET_KEY_FILE (${key}): expected 64 hex characters, or 32 bytes in base64`);
    const agents = file("agents", `a1:${TOKEN}:eu-west-1:steam\na2:tiny-secret:eu-west-1:steam\n`);
    const message = failure([], { PROVISION_AGENTS_FILE: agents });
    expect(message).toBe(`invalid value (hidden) for the token of PROVISION_AGENTS_FILE entry 2 (${agents}): expected 16 to 512 visible ASCII characters without spaces`);
    const token = file("token", "tiny-secret");
    expect(failure([], { AGENT1_TOKEN_FILE: token, AGENT1_REGION: "eu-west-1", AGENT1_PROVIDER: "steam" })).toBe(
      `invalid value (hidden) for AGENT1_TOKEN_FILE (${token}): expected 16 to 512 visible ASCII characters without spaces`,
    );
    for (const text of [failure([], { SESSION_SECRET_FILE: short }), message]) {
      expect(text).not.toContain("short-secret");
      expect(text).not.toContain("tiny-secret");
    }
  });

  test("the hub's key is 64 hex characters or 32 bytes in base64", () => {
    const bytes = Buffer.from(KEY_HEX, "hex");
    for (const form of [KEY_HEX, KEY_HEX.toUpperCase(), bytes.toString("base64"), bytes.toString("base64url")]) {
      expect(Buffer.from(load([], { SECRET_KEY: form }).secretKey ?? []).toString("hex")).toBe(KEY_HEX);
    }
    for (const bad of [KEY_HEX.slice(2), `${KEY_HEX}00`, Buffer.alloc(31).toString("base64"), "z".repeat(64)]) {
      const message = failure([], { SECRET_KEY: bad });
      expect(message).toBe("invalid value (hidden) for SECRET_KEY: expected 64 hex characters, or 32 bytes in base64");
    }
  });
});

describe("argument parsing", () => {
  test("setting flags, command flags and positionals are told apart", () => {
    const args = parseArgs(["backup.db", "--port", "1", "--yaml", "--label", "x y"], [
      { name: "yaml", takesValue: false, help: "YAML" },
      { name: "label", takesValue: true, help: "a label" },
    ]);
    expect(args.positionals).toEqual(["backup.db"]);
    expect(args.settings.get("port")).toBe("1");
    expect(args.command.get("yaml")).toBe("true");
    expect(args.command.get("label")).toBe("x y");
  });

  test("every option has a flag, a variable, help and a default shown", () => {
    const flags = new Set<string>();
    const envs = new Set<string>();
    for (const key of OPTION_KEYS) {
      const option = OPTIONS[key];
      expect(option.flag).toMatch(/^--[a-z][a-z0-9-]*$/);
      expect(option.env).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(option.help.length).toBeGreaterThan(5);
      expect(option.defaultText.length).toBeGreaterThan(0);
      flags.add(option.flag);
      envs.add(option.env);
    }
    expect(flags.size).toBe(OPTION_KEYS.length);
    expect(envs.size).toBe(OPTION_KEYS.length);
  });
});
