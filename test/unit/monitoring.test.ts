/**
 * The shipped monitoring (SPEC §27), checked with Debian's promtool: the
 * alert rules load and pass their own promtool tests, every rule has its
 * test cases (firing and not firing), a summary and a runbook that exists,
 * and every dashboard expression is PromQL that promtool parses. (That the
 * names they use are metrics a real hub serves, and that the rules fire in
 * a real Prometheus: test/e2e/prometheus.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token, type Tokens } from "marked";
import { type Dashboard, plainPromql, prometheusAvailable, promtool } from "../../scripts/support/prometheus.ts";

const ROOT = join(import.meta.dir, "..", "..");
const RULES = join(ROOT, "deploy", "prometheus", "alerts.yml");
const RULE_TESTS = join(ROOT, "deploy", "prometheus", "alerts.test.yml");
const DASHBOARD = join(ROOT, "deploy", "grafana", "hub.json");

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
interface RuleFile {
  readonly groups: readonly { readonly name: string; readonly rules: readonly AlertRule[] }[];
}
interface RuleTestFile {
  readonly rule_files: readonly string[];
  readonly tests: readonly { readonly alert_rule_test?: readonly { readonly alertname: string; readonly exp_alerts?: readonly unknown[] | null }[] }[];
}

const rules = (Bun.YAML.parse(readFileSync(RULES, "utf8")) as RuleFile).groups.flatMap((group) => group.rules);
const ruleTests = Bun.YAML.parse(readFileSync(RULE_TESTS, "utf8")) as RuleTestFile;
const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as Dashboard;
/** The anchors GitHub gives a page's headings. */
function anchorsOf(path: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const text = (tokens: readonly Token[] | undefined): string =>
    (tokens ?? []).map((token) => (token.type === "codespan" ? (token as Tokens.Codespan).text : "tokens" in token && token.tokens ? text(token.tokens) : "text" in token ? String(token.text) : "")).join("");
  marked.walkTokens(marked.lexer(readFileSync(path, "utf8")), (token) => {
    if (token.type === "heading") anchors.add(slugger.slug(text((token as Tokens.Heading).tokens)));
  });
  return anchors;
}

const scratch = mkdtempSync(join(tmpdir(), "hub-monitoring-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** promtool check rules on the expressions given, each as a recording rule. */
function checkExpressions(exprs: readonly string[]): ReturnType<typeof promtool> {
  const file = join(scratch, `exprs-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, JSON.stringify({ groups: [{ name: "dashboard", rules: exprs.map((expr, i) => ({ record: `dashboard:expression_${i}`, expr })) }] }));
  return promtool(["check", "rules", file]);
}

const enabled = prometheusAvailable();

describe("deploy/prometheus/alerts.yml", () => {
  test.if(enabled)("promtool check rules accepts it", () => {
    const result = promtool(["check", "rules", RULES]);
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.exitCode).toBe(0);
  });

  test.if(enabled)("promtool test rules passes alerts.test.yml", () => {
    const result = promtool(["test", "rules", RULE_TESTS]);
    expect(result.output).toContain("SUCCESS");
    expect(result.exitCode).toBe(0);
  }, 60_000);

  test.if(enabled)("a rule that no longer does what its tests say fails them (the tests are not empty)", () => {
    const dir = mkdtempSync(join(scratch, "mutant-"));
    writeFileSync(join(dir, "alerts.yml"), readFileSync(RULES, "utf8").replace("expr: hub_storage_ok == 0", "expr: hub_storage_ok == 2"));
    writeFileSync(join(dir, "alerts.test.yml"), readFileSync(RULE_TESTS, "utf8"));
    const result = promtool(["test", "rules", join(dir, "alerts.test.yml")]);
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain("HubStorageNotOk");
  }, 60_000);

  test("the alerts SPEC §27 asks for are all there", () => {
    expect(rules.map((rule) => rule.alert).sort()).toEqual(
      [
        "HubDown",
        "HubStorageNotOk",
        "HubBackupOverdue",
        "HubNoRegionReporting",
        "HubReadingsRefused",
        "HubWebhookDeliveriesFailing",
        "HubPushDeliveriesFailing",
        "HubStreamsDropped",
        "HubClockBehind",
        "HubGripPublishFailing",
      ].sort(),
    );
    const storage = rules.find((rule) => rule.alert === "HubStorageNotOk");
    expect(storage?.expr.trim()).toBe("hub_storage_ok == 0");
    expect(storage?.for).toBe("1m");
    expect(rules.find((rule) => rule.alert === "HubNoRegionReporting")?.for).toBe("15m");
  });

  test("every rule has a severity, a summary and a runbook_url whose section exists", () => {
    for (const rule of rules) {
      expect([rule.alert, rule.labels?.severity]).toEqual([rule.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect([rule.alert, (rule.annotations?.summary ?? "").length > 20]).toEqual([rule.alert, true]);
      const [path = "", anchor = ""] = (rule.annotations?.runbook_url ?? "").split("#");
      expect([rule.alert, path]).toEqual([rule.alert, "docs/guides/storage-and-backups.md"]);
      expect([rule.alert, anchorsOf(join(ROOT, path)).has(anchor)]).toEqual([rule.alert, true]);
      expect(anchor).toBe(rule.alert.toLowerCase());
    }
  });

  test("every rule has promtool cases where it fires and where it does not, and no case names a rule that is gone", () => {
    expect(ruleTests.rule_files).toEqual(["alerts.yml"]);
    const cases = ruleTests.tests.flatMap((group) => group.alert_rule_test ?? []);
    for (const rule of rules) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      expect([rule.alert, mine.some((c) => (c.exp_alerts ?? []).length > 0), mine.some((c) => (c.exp_alerts ?? []).length === 0)]).toEqual([rule.alert, true, true]);
    }
    const names = new Set(rules.map((rule) => rule.alert));
    expect(cases.filter((c) => !names.has(c.alertname))).toEqual([]);
  });
});

describe("deploy/grafana/hub.json", () => {
  const variables = dashboard.templating.list.map((variable) => variable.name);
  const panels = dashboard.panels.filter((panel) => panel.type !== "row");
  const exprs = panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));

  test("the datasource is a variable, so it imports into any Grafana", () => {
    expect(dashboard.templating.list.find((variable) => variable.name === "datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    for (const panel of panels) {
      expect([panel.title, panel.datasource?.uid]).toEqual([panel.title, "${datasource}"]);
      for (const target of panel.targets ?? []) expect([panel.title, target.datasource?.uid]).toEqual([panel.title, "${datasource}"]);
    }
    expect(JSON.stringify(dashboard)).not.toMatch(/"uid":\s*"(?!\$\{datasource\}|incentives-hub|-- Grafana --)[^"]*"/);
  });

  test("it has the panels SPEC §27 names", () => {
    const text = exprs.join("\n");
    for (const metric of ["hub_readings_accepted_total", "hub_readings_rejected_total", "hub_regions_reporting", "hub_ingest_duration_seconds_bucket", "hub_history_duration_seconds_bucket", "hub_streams_open", "hub_push_sent_total", "hub_webhook_deliveries_total", "hub_storage_ok", "hub_backup_last_success_timestamp_seconds", "hub_grip_published_total", "hub_build_info"]) {
      expect(text).toContain(metric);
    }
    expect(panels.length).toBeGreaterThanOrEqual(15);
  });

  test("every variable an expression uses is the dashboard's or Grafana's", () => {
    expect(exprs.flatMap((expr) => plainPromql(expr, variables).unknown)).toEqual([]);
  });

  test.if(enabled)("promtool parses every panel's expression", () => {
    const result = checkExpressions(exprs.map((expr) => plainPromql(expr, variables).promql));
    expect(result.output).toContain(`SUCCESS: ${exprs.length} rules found`);
    expect(result.exitCode).toBe(0);
  });

  test.if(enabled)("and would refuse one that is not PromQL", () => {
    const result = checkExpressions(["sum by (instance) (rate(hub_streams_open[5m])"]);
    expect(result.exitCode).not.toBe(0);
  });
});
