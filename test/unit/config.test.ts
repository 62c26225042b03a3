import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, configFrom, parseArgs, unquote, type Config, type Env } from "../../src/config/load.ts";
import { OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
import { tempDir } from "../helpers.ts";

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
    expect(c.sessionSecretGenerated).toBe(true);
    expect(c.sessionSecret.length).toBeGreaterThanOrEqual(32);
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
    expect(c.agentSetupUrl).toBe("http://localhost:3000/docs#/agent");
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
    expect(https.agentSetupUrl).toBe("https://hub.example.org/docs#/agent");
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
    expect(c.provision).toEqual([{ id: "a1", token: TOKEN, region: "eu-west-1", provider: "steam", label: "Attic" }]);
    expect(c.catalogue.region("me-south-1")?.flag).toBe("\u{1F1E7}\u{1F1ED}");
    expect(c.catalogue.regions.length).toBe(16);
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
    expect(byId.agent1).toEqual({ id: "agent1", token: `${TOKEN}-n1`, region: "ap-south-1", provider: "grdk", label: "Numbered" });
    expect(c.explicit.has("provision")).toBe(true);
  });

  test("bad entries stop start-up", () => {
    expect(failure([], { PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1` })).toContain("id:token:region:provider");
    expect(failure([], { PROVISION_AGENTS: `a1:${TOKEN}:eu-west-1:xbox` })).toContain("provider");
    expect(failure([], { PROVISION_AGENTS: "a1:short:eu-west-1:steam" })).toContain("token");
    expect(failure([], { PROVISION_AGENTS: `a1:${TOKEN}:mars-north-1:steam` })).toContain('unknown region "mars-north-1"');
    expect(failure([], { AGENT4_TOKEN: TOKEN, AGENT4_PROVIDER: "steam" })).toContain("AGENT4_REGION");
    expect(failure([], { PROVISION_AGENTS: `bad id:${TOKEN}:eu-west-1:steam` })).toContain("agent id");
  });
});

describe("argument parsing", () => {
  test("setting flags, command flags and positionals are told apart", () => {
    const args = parseArgs(["backup.db", "--port", "1", "--yaml", "--label", "x y"], [
      { name: "yaml", takesValue: false },
      { name: "label", takesValue: true },
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
      expect(option.flag).toMatch(/^--[a-z-]+$/);
      expect(option.env).toMatch(/^[A-Z_]+$/);
      expect(option.help.length).toBeGreaterThan(5);
      expect(option.defaultText.length).toBeGreaterThan(0);
      flags.add(option.flag);
      envs.add(option.env);
    }
    expect(flags.size).toBe(OPTION_KEYS.length);
    expect(envs.size).toBe(OPTION_KEYS.length);
  });
});
