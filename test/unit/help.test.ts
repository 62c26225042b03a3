import { describe, expect, test } from "bun:test";
import { HELP_WIDTH, renderCommandHelp, renderHelp, renderSettingsTable } from "../../src/config/help.ts";
import { COMMANDS } from "../../src/main.ts";
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
    expect(secrets.length).toBe(11);
    /** A setting's block in help: its flag line and the indented lines under it, as one text. */
    const block = (at: number): string => {
      const lines = [help[at] ?? ""];
      for (let i = at + 1; (help[i] ?? "").startsWith("      "); i++) lines.push((help[i] ?? "").trim());
      return lines.join(" ");
    };
    for (const key of secrets) {
      const option = OPTIONS[key];
      const variant = fileVariant(key);
      if (!variant) throw new Error(`${key} has no file variant`);
      const helpAt = help.findIndex((line) => line.startsWith(`  ${option.flag} `));
      const nextAt = help.findIndex((line, i) => i > helpAt && line.startsWith("  --"));
      const helpNext = block(nextAt);
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
    expect(help).toContain("  serve  Run it");
    expect(help).toContain("Precedence: flag, then environment variable, then config file, then default.");
  });
});

function named(name: string): (typeof COMMANDS)[number] {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new Error(`no command ${name}`);
  return command;
}

describe("each command's help", () => {
  test("no line of hub --help or of any command's --help is wider than 100 columns", () => {
    const texts = [renderHelp("Hub", COMMANDS), ...COMMANDS.map((command) => renderCommandHelp(command))];
    for (const text of texts) {
      const wide = text.split("\n").filter((line) => line.length > HELP_WIDTH);
      expect(wide).toEqual([]);
    }
  });

  test("a command's help shows its usage, every flag of its own with what it does, and the settings it reads", () => {
    for (const command of COMMANDS) {
      const help = renderCommandHelp(command);
      expect(help).toStartWith(`hub ${command.name}: `);
      for (const flag of command.flags) {
        expect(help).toContain(`  --${flag.name}`);
        expect(flag.help.length).toBeGreaterThan(5);
      }
      if (command.settings !== "all") for (const key of command.settings) expect(help).toContain(`  ${OPTIONS[key].flag} `);
    }
    const backup = renderCommandHelp(named("backup"));
    expect(backup).toContain("  --to TARGET");
    expect(backup).toContain("BACKUP_ENCRYPTION_KEY");
    expect(backup).not.toContain("--require-auth  ");
  });

  test("hub serve --help lists every setting and says which ones the database keeps after their flag is removed", () => {
    const serve = renderCommandHelp(named("serve"));
    for (const key of OPTION_KEYS) expect(serve).toContain(`  ${OPTIONS[key].flag}`);
    const flat = serve.replace(/\s+/g, " ");
    expect(flat).toContain("REQUIRE_AUTH, ENABLE_API_KEYS and MFA_ENFORCED_ROLES are kept in the database");
    expect(flat).toContain("Remove the flag and the hub keeps the last value it was given");
    for (const key of ["requireAuth", "enableApiKeys", "mfaEnforcedRoles"] as const) expect(OPTIONS[key].help).toContain("it stays after the flag is removed");
  });
});
