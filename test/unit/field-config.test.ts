/** The field hub's config file and variables read with the same meaning (SPEC §22): its keys are aliases in the one options table. */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, configFrom, type Config, type Env } from "../../src/config/load.ts";
import { OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
import { FIELD_YAML } from "../field-fixture.ts";
import { tempDir } from "../helpers.ts";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function file(contents: string): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const path = join(dir.path, "hub.yaml");
  writeFileSync(path, contents);
  return path;
}

const load = (path: string, env: Env = {}): Config => configFrom([], { HUB_CONFIG: path, ...env }).config;
const failure = (path: string, env: Env = {}): string => {
  try {
    load(path, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError");
};


describe("the field hub's config file", () => {
  test("every key of its file is understood, with its meaning", () => {
    const c = load(file(FIELD_YAML));
    expect(c.logLevel).toBe("debug");
    expect(c.tz).toBe("Europe/Berlin");
    expect(c.port).toBe(3123);
    expect(c.contactEmail).toBe("ops@example.org");
    expect(c.trustedProxies).not.toEqual({ kind: "none" });
    expect(c.pageSize).toBe(12);
    expect(c.staleAfter).toBe(600);
    expect(c.db).toBe("./data/bloodpoint-hub.db");
    expect(c.retentionDays).toBe(45);
    expect(c.forecastWindowDays).toBe(56);
    expect(c.contribute).toBe(true);
    expect(c.seoEnabled).toBe(true);
    expect(c.enableApiKeys).toBe(true);
    expect(c.agentSetupUrl).toBe("https://github.com/Buco7854/bloodpoint-incentives#running-an-agent");
    expect(c.discordUrl).toBe("https://discord.gg/example");
    expect(c.matrixUrl).toBe("https://matrix.to/#/#bloodpoints:example.org");
    expect(c.corsOrigins).toEqual({ kind: "list", origins: ["https://dash.example.org"] });
    expect(c.sessionSecret).toBe("a-session-secret-of-at-least-32-characters");
    expect(c.origin).toBe("https://incentives.example.org");
    expect(c.rpId).toBe("incentives.example.org");
    expect(c.rpName).toBe("Bloodpoint Incentives");
    expect(c.cookieSecure).toBe(true);
    expect(c.sessionTtlHours).toBe(72);
    expect(c.requireAuth).toBe(true);
    expect(c.adminUser).toBe("admin");
    expect(c.adminPassword).toBe("first-admin-password");
    expect(c.adminEmail).toBe("admin@example.org");
    expect(c.adminName).toBe("Admin");
    expect(c.pollMin).toBe("%refreshTime%");
    expect(c.pollMax).toBe("%refreshTime% * 1.5");
    expect(c.provision.map((p) => p.id)).toEqual(["eu-1"]);
    for (const key of ["staleAfter", "db", "requireAuth", "adminUser", "pollMax", "seoEnabled"] as const) expect(c.explicit.has(key)).toBe(true);
  });

  test("a matching environment variable still wins, as in the field's hub", () => {
    const c = load(file(FIELD_YAML), { STALE_AFTER_SECONDS: "1200", ORIGIN: "https://other.example.org", POLL_MAX_SECONDS: "700", SEO_ENABLED: "false", DB_PATH: "/srv/hub.db" });
    expect(c.staleAfter).toBe(1200);
    expect(c.origin).toBe("https://other.example.org");
    expect(c.pollMax).toBe("700");
    expect(c.seoEnabled).toBe(false);
    expect(c.db).toBe("/srv/hub.db");
  });

  test("an empty value under one of its keys means not set, as the field reads it", () => {
    const c = load(file("auth:\n  sessionSecret: ${SESSION_SECRET:-}\n  origin: ${ORIGIN:-}\n  bootstrap:\n"));
    expect(c.sessionSecret).toBeNull();
    expect(c.origin).toBe("http://localhost:3000");
    expect(c.explicit.has("origin")).toBe(false);
  });

  test("its ${VAR} with no default that is unset still stops start-up naming it", () => {
    expect(failure(file("provision:\n  - id: eu-1\n    token: ${AGENT_EU_1_TOKEN}\n    region: eu-central-1\n    provider: steam\n"))).toContain("${AGENT_EU_1_TOKEN}, which is not set");
  });

  test("a bad value under its key is named by the key as written", () => {
    expect(failure(file("staleAfterSeconds: 5\n"))).toStartWith('invalid value "5" for staleAfterSeconds in ');
    expect(failure(file("auth:\n  sessionTtlHours: zero\n"))).toStartWith('invalid value "zero" for auth.sessionTtlHours in ');
  });

  test("a key neither hub knows is refused with its line and the nearest known key", () => {
    const top = file("port: 3000\n\nstaleAftr: 100\n");
    expect(failure(top)).toBe(`unknown setting "staleAftr" in config file ${top} at line 3; did you mean "staleAfter"? (keys are the flag names in camelCase, or the field hub's)`);
    const nested = file("port: 3000\nauth:\n  rpId: x.example.org\n  origni: https://x.example.org\n");
    expect(failure(nested)).toBe(`unknown setting "auth.origni" in config file ${nested} at line 4; did you mean "auth.origin"? (keys are the flag names in camelCase, or the field hub's)`);
    expect(failure(file("poll:\n  mix: 10\n"))).toContain('did you mean "poll.min"?');
    expect(failure(file("auth: true\n"))).toContain("auth in config file");
  });

  test("one setting under both names must not disagree", () => {
    expect(load(file("staleAfter: 600\nstaleAfterSeconds: 600\n")).staleAfter).toBe(600);
    const both = file("enableApiKeys: true\nauth:\n  enableApiKeys: false\n");
    expect(failure(both)).toBe(`config file ${both} gives enableApiKeys and auth.enableApiKeys, which are the same setting, different values; keep one`);
  });

  test("a blank AGENTn_TOKEN is an agent managed in the admin UI, skipped as the field skips it; an unset one is still incomplete", () => {
    expect(configFrom([], { AGENT1_TOKEN: "", AGENT1_REGION: "eu-central-1", AGENT1_PROVIDER: "steam" }).config.provision).toEqual([]);
    expect(() => configFrom([], { AGENT1_REGION: "eu-central-1", AGENT1_PROVIDER: "steam" })).toThrow("AGENT1_* is incomplete");
  });

  test("its variables are ours: SEO_ENABLED, PUBLIC_DIR, TZ", () => {
    const c = configFrom([], { SEO_ENABLED: "true", PUBLIC_DIR: "/srv/dashboard", TZ: "UTC" }).config;
    expect(c.seoEnabled).toBe(true);
    expect(c.publicDir).toBe("/srv/dashboard");
    expect(c.tz).toBe("UTC");
  });

  test("the aliases live in the one options table, each naming a setting once", () => {
    const aliases = OPTION_KEYS.flatMap((key) => OPTIONS[key].fieldKey ?? []);
    expect(new Set(aliases).size).toBe(aliases.length);
    expect(aliases).toContain("staleAfterSeconds");
    expect(aliases).toContain("auth.bootstrap.password");
  });
});
