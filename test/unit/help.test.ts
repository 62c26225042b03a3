import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderHelp, renderSettingsTable } from "../../src/config/help.ts";
import { OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";
import { withSettingsTable } from "../../scripts/readme.ts";

describe("generated documentation of settings", () => {
  test("the README's settings table is the generated one", () => {
    const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
    expect(withSettingsTable(readme)).toBe(readme);
  });

  test("the table has a row per setting with its variable, flag and default", () => {
    const table = renderSettingsTable();
    for (const key of OPTION_KEYS) {
      const option = OPTIONS[key];
      const row = table.split("\n").find((line) => line.includes(`\`${option.env}`));
      expect(row ?? `no row for ${option.env}`).toContain(`\`${option.flag}`);
      expect(row ?? "").toContain(`\`${key}\``);
    }
    expect(table).toContain("HUB_CONFIG");
  });

  test("help lists the commands", () => {
    const help = renderHelp("Hub", [{ name: "serve", usage: "hub serve", summary: "Run it" }]);
    expect(help).toContain("hub serve  Run it");
    expect(help).toContain("Precedence: flag, then environment variable, then config file, then default.");
  });
});
