/** The hub's command line: find the command, parse its flags and settings, run it. */
import "./runtime-mode.ts";
import { writeSync } from "node:fs";
import { agent } from "./cli/agent.ts";
import { backup } from "./cli/backup.ts";
import { backups } from "./cli/backups.ts";
import { CommandError, type Command } from "./cli/command.ts";
import { importFieldCommand } from "./cli/import-field.ts";
import { migrate } from "./cli/migrate.ts";
import { openapi } from "./cli/openapi.ts";
import { pushCommand } from "./cli/push.ts";
import { restore } from "./cli/restore.ts";
import { serve } from "./cli/serve.ts";
import { simulate } from "./cli/simulate.ts";
import { user } from "./cli/user.ts";
import { version, versionLine } from "./cli/version.ts";
import { renderCommandHelp, renderHelp } from "./config/help.ts";
import { ConfigError, configFrom } from "./config/load.ts";
import { DatabaseError } from "./db/open.ts";
import { HUB_NAME, HUB_VERSION } from "./version.ts";

export const COMMANDS: readonly Command[] = [serve, migrate, openapi, backup, backups, restore, user, agent, simulate, importFieldCommand, pushCommand, version];

/** Written synchronously, so nothing is lost when the process exits right after. */
function print(line: string): void {
  writeSync(1, `${line}\n`);
}

async function readStdin(): Promise<string> {
  return await new Response(Bun.stdin.stream()).text();
}

/** A word more than the command takes: one line, exit code 2, never ignored. */
function strayWord(command: Command, positionals: readonly string[]): string | null {
  const stray = positionals[command.words];
  if (stray === undefined) return null;
  const takes = command.words === 0 ? "takes no words, only flags" : `takes ${command.words === 1 ? "one word" : `${command.words} words`} (${command.usage})`;
  return `hub ${command.name} ${takes}, not '${stray}'; run "hub ${command.name} --help"`;
}

export async function main(argv: readonly string[]): Promise<number> {
  const first = argv[0];
  const asked = argv.includes("--help") || argv.includes("-h");
  const named = first !== undefined && !first.startsWith("-");
  if (asked && named && first !== "help") {
    const wanted = COMMANDS.find((c) => c.name === first);
    if (wanted) {
      print(renderCommandHelp(wanted));
      return 0;
    }
  }
  if (first === "help" || asked) {
    print(renderHelp(`${HUB_NAME} ${HUB_VERSION}`, [...COMMANDS, { name: "help", usage: "hub --help", summary: "Show this help; hub COMMAND --help shows one command's" }]));
    return 0;
  }
  if (first === "--version") {
    print(versionLine());
    return 0;
  }
  const command = named ? COMMANDS.find((c) => c.name === first) : serve;
  if (!command) {
    process.stderr.write(`hub: unknown command "${first}"; run "hub --help" for the list\n`);
    return 2;
  }
  try {
    const { config, args } = configFrom(named ? argv.slice(1) : argv, process.env, command.flags);
    const stray = strayWord(command, args.positionals);
    if (stray !== null) throw new ConfigError(stray);
    return await command.run({ config, args, stdin: readStdin, out: print, workers: { checkpointer: new URL("./db/checkpointer.ts", import.meta.url), fieldImporter: new URL("./field/import-worker.ts", import.meta.url), backup: new URL("./backup/worker.ts", import.meta.url) } });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`hub: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CommandError || error instanceof DatabaseError) {
      process.stderr.write(`hub: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) {
  process.exit(await main(process.argv.slice(2)));
}
