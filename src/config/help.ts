/** `hub --help` and the settings table of docs/reference/settings.md, both generated from the options table. */
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

export function renderHelp(title: string, commands: readonly CommandSummary[]): string {
  const lines = [title, "", "Usage: hub [command] [flags]", "", "Commands:"];
  const nameWidth = Math.max(...commands.map((c) => c.usage.length));
  for (const command of commands) lines.push(`  ${command.usage.padEnd(nameWidth)}  ${command.summary}`);
  lines.push("", "Settings (flag, environment variable, what it does, default):");
  const all = rows();
  const flagWidth = Math.max(...all.map((r) => r.flag.length));
  const envWidth = Math.max(...all.map((r) => r.env.length));
  for (const row of all) {
    lines.push(`  ${row.flag.padEnd(flagWidth)}  ${row.env.padEnd(envWidth)}  ${row.help} (default: ${row.defaultText})`);
  }
  lines.push(
    "",
    "Precedence: flag, then environment variable, then config file, then default.",
    "Switches such as --require-auth take an optional true/false. Bad values stop the hub with exit code 2.",
    "Each secret can be read from a file instead (the -file flag, _FILE variable or File key under it); giving a secret and its file in the same place is an error.",
  );
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
