/**
 * The documentation is kept true by this test (SPEC §24): the generated
 * reference is what the code says now, every relative link and anchor of
 * README.md and docs/ resolves, and every setting, flag and command the
 * pages name exists.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token, type Tokens } from "marked";
import { guideBlocks, unmatchedLines } from "../../scripts/guide-blocks.ts";
import { lastRun, renderPerformance } from "../../scripts/bench/report.ts";
import { en } from "../../src/web/i18n/messages/en.ts";
import { OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
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
const WORDS = new Set([...PLATFORMS, "SIGTERM", "SIGINT", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "FULL", "NORMAL", "WAL", "COMMIT", "BEGIN", "IMMEDIATE", "ROLLBACK", "PRAGMA", "INSERT", "VACUUM", "INTO", "CHECK", "GROUP", "BY", "TXT", "AAAA", "CNAME", "HTTP", "JSON", "SSE", "CSP", "OK", "PATH", "HOME"]);

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

  test("it says how to change the port, with the setting's real variable and flag", () => {
    const portLine = readme.split("\n\n").find((paragraph) => paragraph.includes("Port 3000 taken")) ?? "";
    expect(portLine).toContain(`${OPTIONS.port.env}=8080 npm start`);
    expect(portLine).toContain(`npm start -- ${OPTIONS.port.flag} 8080`);
    expect(portLine).toContain(`hub serve ${OPTIONS.port.flag} 8080`);
  });

  test("every guide is on the map", () => {
    for (const guide of readdirSync(join(ROOT, "docs", "guides"))) expect(readme).toContain(`(docs/guides/${guide})`);
  });
});

describe("the decisions' index", () => {
  test("docs/decisions/README.md lists every record, by its number and file, with the record's own title", () => {
    const index = readFileSync(join(ROOT, "docs", "decisions", "README.md"), "utf8");
    const records = readdirSync(join(ROOT, "docs", "decisions")).filter((name) => /^\d{4}-.*\.md$/.test(name));
    const missing = records.filter((name) => {
      const title = readFileSync(join(ROOT, "docs", "decisions", name), "utf8").split("\n")[0]?.replace(/^# \d{4}\. /, "") ?? "";
      return !index.includes(`| [${name.slice(0, 4)}](${name}) | ${title} |`);
    });
    expect(missing).toEqual([]);
  });
});

describe("the guides' shell blocks are marked (test/e2e/guides.test.ts runs them)", () => {
  for (const guide of readdirSync(join(ROOT, "docs", "guides"))) {
    test(`docs/guides/${guide}: every shell block says whether it is run, and why not`, () => {
      const { blocks, problems } = guideBlocks(join(ROOT, "docs", "guides", guide));
      expect(problems.map((p) => `line ${p.line}: ${p.problem}`)).toEqual([]);
      for (const block of blocks) if (block.marker?.kind === "not-run") expect(block.marker.reason.length).toBeGreaterThan(3);
    });
  }

  test("an unmarked block, a run block that needs sudo and an unknown marker are caught", () => {
    const dir = mkdtempSync(join(tmpdir(), "guide-blocks-"));
    try {
      const page = join(dir, "guide.md");
      writeFileSync(page, "# A guide\n\n```sh\nhub version\n```\n\n<!-- run -->\n\n```sh\nsudo hub version\n```\n\n<!-- runn -->\n\n```sh\nhub version\n```\n\n<!-- run -->\n\n```sh\nhub version\n```\n\n<!-- output -->\n\n```text\nhub …\n```\n");
      const { blocks, problems } = guideBlocks(page);
      expect(problems.map((p) => p.line)).toEqual([3, 9, 13, 15]);
      expect(blocks.at(-1)?.output).toEqual(["hub …"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a shown line matches exactly, except where it says …", () => {
    expect(unmatchedLines(['{"status":"ok","version":"…"}'], 'x\n{"status":"ok","version":"1.2.3"}\n')).toEqual([]);
    expect(unmatchedLines(['{"status":"ok"}'], '{"status":"degraded"}')).toEqual(['{"status":"ok"}']);
    expect(unmatchedLines(["b", "a"], "a\nb")).toEqual(["a"]);
  });
});

describe("the generated reference", () => {
  for (const [path, render] of Object.entries(REFERENCE_PAGES)) {
    test(`${path} is what scripts/docs.ts makes from the code now (npm run docs)`, async () => {
      expect(existsSync(join(ROOT, path))).toBe(true);
      expect(readFileSync(join(ROOT, path), "utf8")).toBe(await render());
    });
  }

  test("every error status has its meaning, and no meaning is left for a status that is gone", () => {
    expect(Object.keys(STATUS_MEANINGS).sort()).toEqual(Object.keys(STATUS_TITLES).sort());
  });
});

describe("docs/ stands alone", () => {
  for (const page of [...PAGES, join(ROOT, "docs", "performance.jsonl")]) {
    test(`${relative(ROOT, page)} cites no document outside the repository`, () => {
      const text = readFileSync(page, "utf8");
      const citations = [...text.matchAll(/[^\n]{0,40}(?:\bSPEC\b|§|ARCHITECTURE\.md|\/work\/)[^\n]{0,40}/g)].map((m) => m[0]);
      expect(citations).toEqual([]);
    });
  }

  test("docs/performance.md is what the bench's writer makes of the last run in performance.jsonl, with its commit", () => {
    const run = lastRun(readFileSync(join(ROOT, "docs", "performance.jsonl"), "utf8"));
    const page = readFileSync(join(ROOT, "docs", "performance.md"), "utf8");
    expect(page).toBe(renderPerformance(run));
    expect(run.commit).toMatch(/^[0-9a-f]{7,40}$/);
    expect(page).toContain(`| Commit | ${run.commit} |`);
  });

  test("an offered load is not shown as a capacity", () => {
    const page = readFileSync(join(ROOT, "docs", "performance.md"), "utf8");
    const ingest = page.split("\n").filter((line) => line.startsWith("| Ingest at"));
    expect(ingest.length).toBe(1);
    expect(ingest[0]).toContain("offered load");
    expect(page).not.toContain("| Ingest readings/s");
  });
});

/**
 * Quoted words of a guide that are not the web app's, each with the file that
 * says them (so a quote cannot outlive its source), or "outside:" and whose
 * words they are.
 */
const QUOTES_NOT_OF_THE_APP: Readonly<Record<string, string>> = {
  "New Webhook": "outside: Discord's channel settings",
  "New Application": "outside: Discord's Developer Portal",
  "Reset Token": "outside: Discord's Developer Portal, an application's Bot page",
  "Copy Server ID": "outside: Discord's menu of a server, with Developer Mode on",
  "The interactions endpoint URL could not be verified": "outside: Discord's Developer Portal, when its check of the endpoint fails",
  OK: "outside: systemd-analyze security's rating",
  "Held back": "src/alerts/formats/summary.ts",
  "stop it first": "src/backup/restore.ts",
  "migrated by a newer hub": "src/db/open.ts",
  "public: …": "src/config/help.ts",
  "field: …": "src/config/help.ts",
  " beside ": "outside: prose around two quoted labels",
  " is not ": "outside: prose around two quoted names",
  "São Paulo": "src/domain/catalogue.ts",
  "Killer +75 %": "src/share/words.ts",
  "read-only file system": "outside: the system's EROFS message, which the hub passes on (test/e2e/systemd.test.ts)",
};

/** A catalogue string as a pattern: its {placeholders} stand for any text. */
function cataloguePattern(text: string): RegExp {
  return new RegExp(`^${text.split(/\{[a-zA-Z]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".+")}$`, "s");
}
const CATALOGUE = Object.values(en).map(cataloguePattern);

/** Whether a quote says what the catalogue says: exactly, or with … for what a placeholder or the rest holds. */
function inCatalogue(quote: string): boolean {
  if (CATALOGUE.some((pattern) => pattern.test(quote))) return true;
  if (!quote.includes("…")) return false;
  const pattern = new RegExp(`^${quote.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}`, "s");
  return Object.values(en).some((text) => pattern.test(text));
}

/** The "…" quotes in a page's prose (not its code). */
function quotesOf(path: string): string[] {
  const quotes: string[] = [];
  walk(tokensOf(path), (token) => {
    if (token.type === "text" && !("tokens" in token && token.tokens)) for (const m of token.raw.matchAll(/"([^"\n]{2,120})"/g)) quotes.push(m[1] ?? "");
  });
  return quotes;
}

describe("every label a guide quotes is the app's (the English catalogue) or a known other source", () => {
  for (const page of PAGES.filter((p) => p.includes(join("docs", "guides")))) {
    test(relative(ROOT, page), () => {
      const unknown = quotesOf(page).filter((quote) => !inCatalogue(quote) && !(quote in QUOTES_NOT_OF_THE_APP));
      expect(unknown).toEqual([]);
    });
  }

  test("the quotes kept beside the catalogue are still in the files they name", () => {
    for (const [quote, source] of Object.entries(QUOTES_NOT_OF_THE_APP)) {
      if (source.startsWith("outside: ")) continue;
      const text = readFileSync(join(ROOT, source), "utf8");
      expect(text.includes(quote.replace(/…$/, "")) ? quote : `${quote} is not in ${source}`).toBe(quote);
    }
  });

  test("a label the console does not have is caught", () => {
    expect(inCatalogue("Add a webhook")).toBe(true);
    expect(inCatalogue("Send a test")).toBe(true);
    expect(inCatalogue("New webhook")).toBe(false);
    expect(inCatalogue("EU Central (Frankfurt), Steam: Killer +75 % now")).toBe(true);
    expect(inCatalogue("Offline, updated …")).toBe(true);
  });
});

describe("every API path a page names is in the OpenAPI description", () => {
  test("README.md and docs/guides/", async () => {
    const { testHub, call } = await import("../helpers.ts");
    const doc = (await (await call(testHub(), "GET", "/openapi.json")).json()) as { paths: Record<string, unknown> };
    const patterns = Object.keys(doc.paths).map((path) => new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`));
    const unknown = new Set<string>();
    for (const page of PAGES.filter((p) => p.includes(join("docs", "guides")) || p.endsWith("README.md"))) {
      for (const match of readFileSync(page, "utf8").matchAll(/\/api\/v1\/[^\s"'`)?,;]*/g)) {
        const path = match[0].replace(/[.:]+$/, "");
        // `/api/v1/agent/*`: a prefix that stands for the routes under it.
        const found = path.endsWith("/*") ? Object.keys(doc.paths).some((p) => p.startsWith(path.slice(0, -1))) : patterns.some((p) => p.test(path));
        if (!found) unknown.add(`${relative(ROOT, page)}: ${path}`);
      }
    }
    expect([...unknown]).toEqual([]);
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

  /** A default as the options table gives it, without its explanation: "none (…)" is "none", "10,000" is "10000". */
  const defaultHead = (text: string) => text.replace(/`/g, "").split(" (")[0]?.replaceAll(",", "").trim().toLowerCase() ?? "";
  const defaults = new Map(OPTION_KEYS.map((key) => [OPTIONS[key].env, defaultHead(OPTIONS[key].defaultText)]));

  for (const page of PAGES.filter((p) => p.includes(join("docs", "guides")))) {
    test(`${relative(ROOT, page)}: every default it gives a setting is the options table's`, () => {
      const text = readFileSync(page, "utf8");
      const wrong: string[] = [];
      const check = (name: string, shown: string) => {
        let given = shown;
        const expected = defaults.get(name);
        // A guide may give milliseconds in seconds ("10 s" for BODY_TIMEOUT_MS's 10000).
        const seconds = name.endsWith("_MS") ? /^([0-9.]+) s$/.exec(given.trim())?.[1] : undefined;
        if (seconds !== undefined) given = String(Number(seconds) * 1000);
        if (expected !== undefined && defaultHead(given) !== expected) wrong.push(`${name}: the guide says ${given}, the options table ${expected}`);
      };
      // "`DATA_RETENTION_DAYS` (default 31)", "`AUDIT_RETENTION_DAYS` (365)", "`MAX_PUSH_SUBSCRIPTIONS` in all (100,000 by default"
      for (const m of text.matchAll(/`([A-Z][A-Z0-9_]+)`[^.(`]{0,12}\((?:default (`[^`]+`|[0-9][0-9,]*)|([0-9][0-9,]*)(?: by default)?)[),;]/g)) check(m[1] ?? "", m[2] ?? m[3] ?? "");
      // A table with a Default column, its first cell the setting.
      walk(tokensOf(page), (token) => {
        if (token.type !== "table") return;
        const table = token as Tokens.Table;
        const column = table.header.findIndex((cell) => cell.text.trim() === "Default");
        if (column === -1) return;
        // The setting is the row's first cell, or the whole of a "To change it" cell.
        const changeColumn = table.header.findIndex((cell) => cell.text.trim() === "To change it");
        for (const row of table.rows) {
          const name = /^`([A-Z][A-Z0-9_]+)`/.exec(row[0]?.text ?? "")?.[1] ?? /^`([A-Z][A-Z0-9_]+)`$/.exec(row[changeColumn]?.text.trim() ?? "")?.[1];
          if (name) check(name, row[column]?.text ?? "");
        }
      });
      expect(wrong).toEqual([]);
    });
  }

  test("a wrong default is caught", () => {
    expect(defaults.get("BACKUP_S3_REGION")).toBe("none");
    expect(defaults.get("DATA_RETENTION_DAYS")).toBe("31");
  });

  test("the configuration guide lists every secret with a _FILE variant, and only those", () => {
    const text = readFileSync(join(ROOT, "docs", "guides", "configuration.md"), "utf8");
    const list = /Each secret setting \(([^)]*)\) has a `_FILE` variant/.exec(text)?.[1] ?? "";
    const listed = [...list.matchAll(/`([A-Z][A-Za-z0-9_]+)`/g)].map((m) => m[1]).filter((name) => name !== "AGENTn_TOKEN");
    expect(listed.sort()).toEqual(OPTION_KEYS.filter((key) => OPTIONS[key].secret).map((key) => OPTIONS[key].env).sort());
  });

  test("a stale name is caught: POLL_MIN is not a setting", () => {
    expect(variables.has("POLL_MIN")).toBe(false);
    expect(variables.has("POLL_MIN_SECONDS")).toBe(true);
    expect(flags.has("--poll-min")).toBe(true);
    expect(commands.has("agent list")).toBe(true);
    expect(commands.has("agent remove")).toBe(false);
  });
});
