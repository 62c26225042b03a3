import { describe, expect, test } from "bun:test";
import { renderHelp, renderSettingsTable } from "../../src/config/help.ts";
import { fileVariant, OPTIONS, OPTION_KEYS } from "../../src/config/options.ts";

describe("generated documentation of settings", () => {
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

  test("right under each secret, --help and the settings reference name its _FILE variant and say why", () => {
    const help = renderHelp("Hub", []).split("\n");
    const table = renderSettingsTable().split("\n");
    const secrets = OPTION_KEYS.filter((key) => OPTIONS[key].secret);
    expect(secrets.length).toBe(12);
    for (const key of secrets) {
      const option = OPTIONS[key];
      const variant = fileVariant(key);
      if (!variant) throw new Error(`${key} has no file variant`);
      const helpAt = help.findIndex((line) => line.trimStart().startsWith(`${option.flag} `));
      const helpNext = help[helpAt + 1] ?? "";
      expect(helpNext.trimStart()).toStartWith(`${variant.flag} FILE`);
      expect(helpNext).toContain(variant.env);
      expect(helpNext).toContain("visible to every local user in ps");
      const tableAt = table.findIndex((line) => line.includes(`\`${option.env}`));
      const tableNext = table[tableAt + 1] ?? "";
      expect(tableNext).toContain(`\`${variant.env}`);
      expect(tableNext).toContain(`\`${variant.flag} FILE\``);
      expect(tableNext).toContain(`\`${variant.key}\``);
      expect(tableNext).toContain("visible to every local user in ps");
    }
    expect(help.find((line) => line.includes("AGENTn_TOKEN_FILE"))).toContain("--provision-file");
  });

  test("help lists the commands", () => {
    const help = renderHelp("Hub", [{ name: "serve", usage: "hub serve", summary: "Run it" }]);
    expect(help).toContain("hub serve  Run it");
    expect(help).toContain("Precedence: flag, then environment variable, then config file, then default.");
  });
});
