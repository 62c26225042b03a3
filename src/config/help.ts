/** `hub --help` and the settings table of docs/reference/settings.md, both generated from the options table. */
import type { CommandFlag } from "./load.ts";
import { CONFIG_OPTION, FILE_VARIANT_REASON, fileVariant, OPTIONS, OPTION_KEYS, type Settings } from "./options.ts";

export interface CommandSummary {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
}

interface Row {
  readonly flag: string;
  readonly env: string;
  readonly key: string;
  /** The field hub's key for the same setting, where it differs (SPEC §22). */
  readonly fieldKey?: string;
  readonly help: string;
  readonly defaultText: string;
  readonly allowed: string;
}

/** The row of a secret's `_FILE` variant, shown right under the secret so that nobody misses it. */
function fileRow(key: keyof Settings): Row[] {
  const variant = fileVariant(key);
  if (!variant) return [];
  const env = OPTIONS[key].env;
  const what = key === "provision" ? `${env} (an entry per line) and AGENTn_TOKEN` : env;
  return [
    {
      flag: `${variant.flag} FILE`,
      env: key === "provision" ? `${variant.env}, AGENTn_TOKEN_FILE` : variant.env,
      key: variant.key,
      help: `${what} from a file (${FILE_VARIANT_REASON})`,
      defaultText: "none",
      allowed: "a readable file holding the value (one trailing line break is dropped)",
    },
  ];
}

function rows(): Row[] {
  const config: Row = {
    flag: `${CONFIG_OPTION.flag} ${CONFIG_OPTION.arg}`,
    env: CONFIG_OPTION.env,
    key: "—",
    help: CONFIG_OPTION.help,
    defaultText: CONFIG_OPTION.defaultText,
    allowed: "a file path",
  };
  return [
    config,
    ...OPTION_KEYS.flatMap((key) => {
      const option = OPTIONS[key];
      const row: Row = {
        flag: option.arg ? `${option.flag} ${option.arg}` : option.flag,
        env: key === "provision" ? `${option.env}, AGENTn_*` : option.env,
        key,
        fieldKey: option.fieldKey,
        help: option.public ? `${option.help} (public: ${option.public.as ?? key} in GET /api/v1/meta)` : option.help,
        defaultText: option.defaultText,
        allowed: option.allowed,
      };
      return [row, ...fileRow(key)];
    }),
  ];
}

/** No help line is wider than this: a terminal of 100 columns shows every line whole. */
export const HELP_WIDTH = 100;
const INDENT = "      ";

/** Words laid into lines of at most HELP_WIDTH columns, each starting with `indent`. */
export function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && indent.length + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(indent + line);
      line = "";
    }
    line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(indent + line);
  return lines;
}

/** A setting in help: its flag and variable on one line, what it does and its default below. */
function settingLines(row: Row): string[] {
  const head = `  ${row.flag}  ${row.env}`;
  return [...(head.length <= HELP_WIDTH ? [head] : [`  ${row.flag}`, ...wrap(row.env, INDENT)]), ...wrap(`${row.help} (default: ${row.defaultText})`, INDENT)];
}

/** The rows of these settings, each secret followed by its `_FILE` variant. */
function settingRows(keys: "all" | readonly (keyof Settings)[]): Row[] {
  if (keys === "all") return rows();
  return rows().filter((row) => row.key === "—" || keys.some((key) => row.key === key || row.key === fileVariant(key)?.key));
}

export interface CommandHelp extends CommandSummary {
  readonly flags: readonly CommandFlag[];
  /** The settings this command reads, shown in its help; "all" for the server. */
  readonly settings: "all" | readonly (keyof Settings)[];
  /** Paragraphs after the flags. */
  readonly notes?: readonly string[];
}

const CLOSING = [
  "Precedence: flag, then environment variable, then config file, then default.",
  "A switch such as --require-auth takes true or false (also 1/0, yes/no, on/off), as --require-auth=false or as the next word; alone it means true. Bad values stop the hub with exit code 2.",
  "Each secret can be read from a file instead (the -file flag, _FILE variable or File key under it); giving a secret and its file in the same place is an error.",
];

function paragraphs(texts: readonly string[]): string[] {
  return texts.flatMap((text) => ["", ...wrap(text, "")]);
}

/** `hub --help`: every command in a line or two, then every setting. */
export function renderHelp(title: string, commands: readonly CommandSummary[]): string {
  const lines = [title, "", "Usage: hub [command] [flags]", "", 'Commands ("hub COMMAND --help" shows one command\'s usage and flags):'];
  const nameWidth = Math.max(...commands.map((c) => c.name.length));
  for (const command of commands) {
    const [first = "", ...rest] = wrap(command.summary, " ".repeat(nameWidth + 4));
    lines.push(`  ${command.name.padEnd(nameWidth)}  ${first.trimStart()}`, ...rest);
  }
  lines.push("", "Settings (flag, environment variable; what it does, default):");
  for (const row of rows()) lines.push(...settingLines(row));
  lines.push(...paragraphs(CLOSING));
  return lines.join("\n");
}

/** The usage string's forms, one a line (`hub agent create … | hub agent list`). */
export function usageForms(usage: string): string[] {
  const forms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < usage.length; i++) {
    const char = usage[i];
    if (char === "(" || char === "[") depth++;
    if (char === ")" || char === "]") depth--;
    if (depth === 0 && usage.startsWith(" | ", i)) {
      forms.push(usage.slice(start, i));
      start = i + 3;
    }
  }
  forms.push(usage.slice(start));
  return forms.map((form) => form.trim());
}

/** `hub COMMAND --help`: its usage, its own flags, and the settings it reads. */
export function renderCommandHelp(command: CommandHelp): string {
  const lines = [...wrap(`hub ${command.name}: ${command.summary}`, ""), "", "Usage:"];
  for (const form of usageForms(command.usage)) lines.push(...wrap(form, "  "));
  if (command.flags.length > 0) {
    lines.push("", "Its flags:");
    for (const flag of command.flags) {
      lines.push(`  --${flag.name}${flag.takesValue ? ` ${flag.arg ?? "VALUE"}` : " [true|false]"}`, ...wrap(flag.help, INDENT));
    }
  }
  const settings = settingRows(command.settings);
  lines.push("", command.settings === "all" ? "Settings (flag, environment variable; what it does, default):" : "Settings it reads (flag, environment variable; what it does, default):");
  for (const row of settings) lines.push(...settingLines(row));
  lines.push(...paragraphs([...(command.notes ?? []), ...(command.settings === "all" ? [] : ['Every other setting of "hub serve --help" is accepted too.']), ...CLOSING]));
  return lines.join("\n");
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

export function renderSettingsTable(): string {
  const lines = ["| Setting | Environment | Flag | Config key | Default | Allowed |", "|---|---|---|---|---|---|"];
  for (const row of rows()) {
    const key = row.key === "—" ? "—" : `\`${row.key}\`${row.fieldKey ? ` (field: \`${row.fieldKey}\`)` : ""}`;
    lines.push(`| ${cell(row.help)} | \`${row.env}\` | \`${row.flag}\` | ${key} | ${cell(row.defaultText)} | ${cell(row.allowed)} |`);
  }
  return lines.join("\n");
}
