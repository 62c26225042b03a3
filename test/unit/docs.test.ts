/**
 * The documentation is kept true by this test (SPEC §24): the generated
 * reference is what the code says now, every relative link and anchor of
 * README.md and docs/ resolves, and every setting, flag and command the
 * pages name exists.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token, type Tokens } from "marked";
import { knownCommands, knownFlags, knownVariables, REFERENCE_PAGES, ROOT, STATUS_MEANINGS } from "../../scripts/docs.ts";
import { PLATFORMS } from "../../src/domain/catalogue.ts";
import { STATUS_TITLES } from "../../src/domain/problem.ts";

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith(".md") ? [path] : [];
  });
}

const PAGES = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];

function tokensOf(path: string): Token[] {
  return marked.lexer(readFileSync(path, "utf8"));
}

function walk(tokens: readonly Token[], visit: (token: Token) => void): void {
  marked.walkTokens([...tokens], visit);
}

/** A heading's text as GitHub reads it for its anchor: inline markup dropped, code kept, HTML tags left out. */
function plainText(tokens: readonly Token[] | undefined): string {
  return (tokens ?? [])
    .map((token) => {
      if (token.type === "html") return "";
      if (token.type === "codespan" || token.type === "escape") return (token as Tokens.Codespan).text;
      if ("tokens" in token && token.tokens) return plainText(token.tokens);
      return "text" in token ? String(token.text) : "";
    })
    .join("");
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors GitHub gives a page's headings (github-slugger: its rules, duplicates numbered). */
function anchorsOf(path: string): Set<string> {
  const cached = anchorCache.get(path);
  if (cached) return cached;
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walk(tokensOf(path), (token) => {
    if (token.type === "heading") anchors.add(slugger.slug(plainText((token as Tokens.Heading).tokens)));
  });
  anchorCache.set(path, anchors);
  return anchors;
}

/** Text of every code span and code block, where commands are written. */
function codeOf(path: string): string[] {
  const code: string[] = [];
  walk(tokensOf(path), (token) => {
    if (token.type === "codespan" || token.type === "code") code.push((token as Tokens.Codespan).text);
  });
  return code;
}

/**
 * Upper-case names the pages may use that are not settings, each with the
 * file that holds it (checked below), so a name that is gone from the code
 * cannot linger in the documentation.
 */
const OTHER_NAMES: Readonly<Record<string, string>> = {
  // Constants of the code, named where the docs say a limit is fixed.
  MAX_BODY_BYTES: "src/http/errors.ts",
  MAX_JSON_DEPTH: "src/http/errors.ts",
  MAX_UNSENT_BYTES: "src/live/streams.ts",
  REAUTH_WINDOW_MS: "src/auth/accounts.ts",
  MAX_API_KEYS_PER_USER: "src/auth/apikeys.ts",
  AUDIT_RATE_LIMIT: "src/db/audit.ts",
  SESSION_MAX_AGE_MS: "src/auth/sessions.ts",
  WINDOW_MS: "src/auth/throttle.ts",
  MAX_PER_USERNAME: "src/auth/throttle.ts",
  MAX_PER_IP: "src/auth/throttle.ts",
  FLUSH_SPACING_MS: "src/live/store.ts",
  BUILT_IN: "src/domain/catalogue.ts",
  BUILT_IN_REGIONS: "src/domain/catalogue.ts",
  WEBHOOK_FORMATS: "src/domain/alerts.ts",
  // The numbered agent variables the configuration reads.
  AGENTn_TOKEN: "src/config/load.ts",
  AGENTn_TOKEN_FILE: "src/config/load.ts",
  AGENTn_REGION: "src/config/load.ts",
  AGENTn_PROVIDER: "src/config/load.ts",
  AGENTn_ID: "src/config/load.ts",
  AGENTn_LABEL: "src/config/load.ts",
  // The field's agent reads these; the app's own agent guide names them.
  HUB_URL: "src/web/pages/agents-guide.tsx",
  AGENT_KEY: "src/web/pages/agents-guide.tsx",
  STEAM_USERNAME: "src/web/pages/agents-guide.tsx",
  STEAM_PASSWORD: "src/web/pages/agents-guide.tsx",
  STEAM_SHARED_SECRET: "src/web/pages/agents-guide.tsx",
  // The container recipe and the tests' switches.
  HUB_UPSTREAM: "deploy/pushpin/container-start.sh",
  PUSHPIN_DIR: "deploy/pushpin/container-start.sh",
  HUB_REQUIRE_BROWSER: ".ci/run",
  CI: ".ci/run",
  NODE_ENV: "src/runtime-mode.ts",
  // Bun honours it; the push tests trust their TLS front through it.
  NODE_EXTRA_CA_CERTS: "test/e2e/push-browser.test.ts",
  // The benchmarks' knobs.
  BENCH_BACKFILL_DAYS: "scripts/bench/index.ts",
  BENCH_STREAMS: "scripts/bench/streams.ts",
  BENCH_GRIP_STREAMS: "scripts/bench/grip.ts",
  BENCH_BACKUP_DAYS: "scripts/bench/backup.ts",
  BENCH_QUICK: "scripts/bench/quick.ts",
  BENCH_ONLY: "scripts/bench/index.ts",
  BENCH_OUT: "scripts/bench/index.ts",
  BENCH_INGEST_RATE: "scripts/bench/ingest.ts",
  BENCH_INGEST_SECONDS: "scripts/bench/ingest.ts",
  BENCH_WEBHOOKS: "scripts/bench/ingest.ts",
  BENCH_STARTUP_READINGS: "scripts/bench/startup.ts",
  BENCH_WEBHOOK_READINGS: "scripts/bench/webhooks.ts",
  // A placeholder the settings' own help uses (GRIP_VERIFY_ISS: fastly:SERVICE_ID).
  SERVICE_ID: "src/config/options.ts",
  // SQLite's result codes the storage checks name.
  SQLITE_CORRUPT: "src/db/storage.ts",
  SQLITE_NOTADB: "src/db/storage.ts",
  W_OK: "src/db/storage.ts",
};

/** Upper-case words in code that are not names of anything in the project (HTTP methods, SQLite's words). */
const WORDS = new Set([...PLATFORMS, "SIGTERM", "SIGINT", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "FULL", "NORMAL", "WAL", "COMMIT", "BEGIN", "IMMEDIATE", "ROLLBACK", "PRAGMA", "INSERT", "VACUUM", "INTO", "CHECK", "GROUP", "BY", "TXT", "AAAA", "CNAME", "HTTP", "JSON", "SSE", "CSP", "OK"]);

/** Flags of other programs that the guides use, by program. */
const OTHER_FLAGS: Readonly<Record<string, string>> = {
  "--now": "systemctl",
  "--restart": "docker run",
  "--env-file": "docker run",
  "--system": "useradd",
  "--home": "useradd",
  "--shell": "useradd",
  "--unix-socket": "curl",
  "--max-http-header-size": "bun",
  "--cpu-prof": "bun",
  "--compile": "bun build",
  "--target": "scripts/build.ts",
  "--no-audit": "npm",
  "--no-fund": "npm",
  "--noEmit": "tsc",
  "--timeout": "bun test",
};

describe("the front door", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");

  test("README.md is at most 250 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(250);
  });

  test("its first code block is the two set-up commands, exactly", () => {
    const first = marked.lexer(readme).find((token) => token.type === "code") as Tokens.Code | undefined;
    expect(first?.text.split("\n").map((line) => line.split("#")[0]?.trim())).toEqual(["npm ci && npm start", "npm ci && npm test"]);
  });

  test("every guide is on the map", () => {
    for (const guide of readdirSync(join(ROOT, "docs", "guides"))) expect(readme).toContain(`(docs/guides/${guide})`);
  });
});

describe("the generated reference", () => {
  for (const [path, render] of Object.entries(REFERENCE_PAGES)) {
    test(`${path} is what scripts/docs.ts makes from the code now (npm run docs)`, () => {
      expect(existsSync(join(ROOT, path))).toBe(true);
      expect(readFileSync(join(ROOT, path), "utf8")).toBe(render());
    });
  }

  test("every error status has its meaning, and no meaning is left for a status that is gone", () => {
    expect(Object.keys(STATUS_MEANINGS).sort()).toEqual(Object.keys(STATUS_TITLES).sort());
  });
});

describe("links and anchors", () => {
  test("the pages are found", () => {
    expect(PAGES.length).toBeGreaterThan(10);
  });

  for (const page of PAGES) {
    test(`every relative link and #anchor in ${relative(ROOT, page)} resolves`, () => {
      const broken: string[] = [];
      walk(tokensOf(page), (token) => {
        if (token.type !== "link" && token.type !== "image") return;
        const href = (token as Tokens.Link).href;
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return;
        if (href.startsWith("/")) {
          broken.push(`${href}: an absolute path does not resolve on a forge; link relatively`);
          return;
        }
        const [file = "", anchor] = href.split("#");
        const target = file === "" ? page : resolve(dirname(page), decodeURIComponent(file));
        if (!existsSync(target)) {
          broken.push(`${href}: no such file`);
          return;
        }
        if (anchor !== undefined && (!target.endsWith(".md") || !anchorsOf(target).has(decodeURIComponent(anchor)))) broken.push(`${href}: no heading makes #${anchor}`);
      });
      expect(broken).toEqual([]);
    });
  }

  test("the slugs are GitHub's", () => {
    const slugger = new GithubSlugger();
    expect(slugger.slug("`since` (SPEC §7)")).toBe("since-spec-7");
    expect(slugger.slug("Coming from bloodpoint-incentives")).toBe("coming-from-bloodpoint-incentives");
    expect(slugger.slug("Coming from bloodpoint-incentives")).toBe("coming-from-bloodpoint-incentives-1");
  });
});

describe("every setting, flag and command named exists", () => {
  const variables = knownVariables();
  const flags = knownFlags();
  const commands = knownCommands();
  /** Commands whose first word after them is an action (`hub agent create`). */
  const withActions = new Set([...commands].filter((c) => c.includes(" ")).map((c) => c.split(" ")[0] ?? ""));

  test("the names kept beside the settings are still in the files they name", () => {
    for (const [name, file] of Object.entries(OTHER_NAMES)) {
      const pattern = name.startsWith("AGENTn_") ? name.replace("AGENTn_", "").split("_")[0] ?? name : name;
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(new RegExp(`\\b${pattern}\\b`).test(text) ? name : `${name} is not in ${file}`).toBe(name);
    }
  });

  for (const page of PAGES) {
    const name = relative(ROOT, page);
    const text = readFileSync(page, "utf8");

    test(`${name}: every UPPER_CASE variable is a setting (or a name the test knows)`, () => {
      const unknown = new Set<string>();
      for (const match of text.matchAll(/\b(?:AGENTn_[A-Z_]*[A-Z]|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)) {
        const word = match[0];
        // `${NAME}` in a config file is the operator's own variable, substituted into the value.
        if (text.slice(Math.max(0, (match.index ?? 0) - 2), match.index) === "${") continue;
        if (!variables.has(word) && !(word in OTHER_NAMES)) unknown.add(word);
      }
      for (const code of codeOf(page)) {
        for (const line of code.split("\n")) {
          const single = /^\s*([A-Z][A-Z0-9]+)(?:=|$)/.exec(line)?.[1];
          if (single && !variables.has(single) && !(single in OTHER_NAMES) && !WORDS.has(single)) unknown.add(single);
        }
      }
      expect([...unknown]).toEqual([]);
    });

    test(`${name}: every --flag is the hub's (or another program's the test knows)`, () => {
      const unknown = new Set<string>();
      for (const match of text.matchAll(/(?<![\w-])--[a-zA-Z][a-zA-Z0-9-]*/g)) {
        if (!flags.has(match[0]) && !(match[0] in OTHER_FLAGS)) unknown.add(match[0]);
      }
      expect([...unknown]).toEqual([]);
    });

    test(`${name}: every \`hub <command>\` is a command`, () => {
      const unknown = new Set<string>();
      for (const code of codeOf(page)) {
        // A shell comment is prose ("# the hub on http://…"), not a command.
        const withoutComments = code.replaceAll(/(^|\s)#.*$/gm, "");
        for (const match of withoutComments.matchAll(/(?:^|[\s(;&|`])hub ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/gm)) {
          const [, command = "", action] = match;
          if (command === "hub") continue;
          if (!commands.has(command)) unknown.add(`hub ${command}`);
          else if (action && withActions.has(command) && !commands.has(`${command} ${action}`)) unknown.add(`hub ${command} ${action}`);
        }
      }
      expect([...unknown]).toEqual([]);
    });
  }

  test("a stale name is caught: POLL_MIN is not a setting", () => {
    expect(variables.has("POLL_MIN")).toBe(false);
    expect(variables.has("POLL_MIN_SECONDS")).toBe(true);
    expect(flags.has("--poll-min")).toBe(true);
    expect(commands.has("agent list")).toBe(true);
    expect(commands.has("agent remove")).toBe(false);
  });
});
