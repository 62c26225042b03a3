/**
 * Builds the frozen Config from flags, environment, config file and
 * defaults, in that order of precedence. Any bad value becomes a ConfigError
 * whose message is the single line the CLI prints before exiting with code 2.
 */
import { existsSync, readFileSync } from "node:fs";
import { Catalogue, regionProblem, flagEmoji, type Region } from "../domain/catalogue.ts";
import {
  CONFIG_OPTION,
  InvalidProvision,
  InvalidValue,
  OPTIONS,
  OPTION_KEYS,
  parseProvisionList,
  provisionEntry,
  type OptionSpec,
  type ProvisionAt,
  type ProvisionEntry,
  type ProvisionField,
  type Settings,
} from "./options.ts";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export interface Config extends Omit<Settings, "sessionSecret" | "origin" | "rpId" | "cookieSecure" | "agentSetupUrl"> {
  readonly sessionSecret: string;
  /** True when no secret was configured and this boot made one up. */
  readonly sessionSecretGenerated: boolean;
  readonly origin: string;
  readonly rpId: string;
  readonly cookieSecure: boolean;
  readonly agentSetupUrl: string;
  readonly extraRegions: readonly Region[];
  readonly catalogue: Catalogue;
  /** Settings the operator set by flag, environment or file (these lock runtime settings). */
  readonly explicit: ReadonlySet<keyof Settings>;
  readonly configFile: string | null;
}

export type Env = Readonly<Record<string, string | undefined>>;

const BY_FLAG = new Map<string, keyof Settings>(OPTION_KEYS.map((key) => [OPTIONS[key].flag, key]));

/** Strips one pair of matching surrounding quotes, as shells and env files leave them. */
export function unquote(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length >= 2) {
    const first = trimmed.charAt(0);
    if ((first === '"' || first === "'") && trimmed.endsWith(first)) return trimmed.slice(1, -1);
  }
  return trimmed;
}

export interface ParsedArgs {
  /** Setting flags, by option key, as given (last one wins). */
  readonly settings: ReadonlyMap<keyof Settings, string>;
  readonly configFile: string | null;
  /** Flags that belong to the command itself. */
  readonly command: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
}

export interface CommandFlag {
  readonly name: string;
  /** False for switches such as `--yaml` that take no value. */
  readonly takesValue: boolean;
}

const BOOLEAN_WORDS = /^(true|false|1|0|yes|no|on|off)$/i;

/** Splits a command line into setting flags, the command's own flags and positionals. */
export function parseArgs(argv: readonly string[], commandFlags: readonly CommandFlag[] = []): ParsedArgs {
  const settings = new Map<keyof Settings, string>();
  const command = new Map<string, string>();
  const positionals: string[] = [];
  let configFile: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--") || arg === "--") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg : arg.slice(0, eq);
    let inline: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    const key = BY_FLAG.get(name);
    const own = commandFlags.find((f) => `--${f.name}` === name);
    const isSwitch = key ? OPTIONS[key].arg === undefined : own ? !own.takesValue : false;
    if (!key && !own && name !== CONFIG_OPTION.flag) {
      throw new ConfigError(`unknown flag ${name}; run "hub --help" for the list`);
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (isSwitch) {
        if (key && next !== undefined && BOOLEAN_WORDS.test(next)) {
          inline = next;
          i++;
        } else {
          inline = "true";
        }
      } else {
        if (next === undefined) throw new ConfigError(`flag ${name} needs a value`);
        inline = next;
        i++;
      }
    }
    if (name === CONFIG_OPTION.flag) configFile = inline;
    else if (key) settings.set(key, inline);
    else if (own) command.set(own.name, inline);
  }
  return { settings, configFile, command, positionals };
}

function interpolate(value: string, env: Env, where: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined && set !== "") return unquote(set);
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${where} refers to \${${name}}, which is not set and has no default (write \${${name}:-value})`);
  });
}

function interpolateDeep(value: unknown, env: Env, where: string): unknown {
  if (typeof value === "string") return interpolate(value, env, where);
  if (Array.isArray(value)) return value.map((v) => interpolateDeep(v, env, where));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDeep(v, env, where)]));
  }
  return value;
}

function readConfigFile(path: string, env: Env): Record<string, unknown> {
  if (!existsSync(path)) throw new ConfigError(`config file ${path} does not exist`);
  let parsed: unknown;
  try {
    const source = readFileSync(path, "utf8");
    parsed = path.endsWith(".json") ? JSON.parse(source) : Bun.YAML.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "unreadable";
    throw new ConfigError(`config file ${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold a mapping of settings`);
  return interpolateDeep(parsed, env, `config file ${path}`) as Record<string, unknown>;
}

function describeValue(value: unknown, secret: boolean | undefined): string {
  if (secret) return "(hidden)";
  const shown = typeof value === "string" ? value : JSON.stringify(value);
  return JSON.stringify(shown.length > 80 ? `${shown.slice(0, 77)}...` : shown);
}

function invalid(value: unknown, secret: boolean | undefined, name: string, allowed: string, reason: string): ConfigError {
  return new ConfigError(`invalid value ${describeValue(value, secret)} for ${name}: expected ${allowed}${reason ? ` (${reason})` : ""}`);
}

function parseWith<T>(option: OptionSpec<T>, value: unknown, name: string): T {
  try {
    return option.parse(value);
  } catch (error) {
    if (!(error instanceof InvalidValue)) throw error;
    throw invalid(value, option.secret, name, option.allowed, error.message);
  }
}

/** Runs a provision parser; a bad entry becomes the one line naming where it was configured. */
function provisioning(parse: () => ProvisionEntry[]): ProvisionEntry[] {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof InvalidProvision)) throw error;
    throw invalid(error.value, error.secret, error.where, error.allowed, error.message);
  }
}

const AGENT_VARIABLE: Readonly<Record<ProvisionField, string>> = { id: "ID", token: "TOKEN", region: "REGION", provider: "PROVIDER", label: "LABEL" };

function envProvisioned(env: Env, knownRegion: (id: string) => boolean): ProvisionEntry[] {
  const groups = new Map<number, Map<string, string>>();
  for (const [name, raw] of Object.entries(env)) {
    const match = /^AGENT(\d+)_(TOKEN|REGION|PROVIDER|ID|LABEL)$/.exec(name);
    if (!match || raw === undefined) continue;
    const n = Number(match[1]);
    const fields = groups.get(n) ?? new Map<string, string>();
    fields.set(match[2] ?? "", unquote(raw));
    groups.set(n, fields);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, fields]) => {
      for (const required of ["TOKEN", "REGION", "PROVIDER"]) {
        if (!fields.get(required)) throw new ConfigError(`AGENT${n}_* is incomplete: AGENT${n}_${required} is not set`);
      }
      return provisionEntry(
        { id: fields.get("ID") ?? `agent${n}`, token: fields.get("TOKEN"), region: fields.get("REGION"), provider: fields.get("PROVIDER"), label: fields.get("LABEL") },
        { entry: `AGENT${n}_*`, field: (field) => `AGENT${n}_${AGENT_VARIABLE[field]}` },
        knownRegion,
      );
    });
}

function parseRegions(value: unknown, file: string): Region[] {
  if (!Array.isArray(value)) throw new ConfigError(`regions in ${file} must be a list of { id, name, tz, flag? }`);
  const added: Region[] = [];
  const known = new Catalogue().regions;
  for (const item of value) {
    const record = (item ?? {}) as Record<string, unknown>;
    const region: Region = {
      id: String(record.id ?? ""),
      name: String(record.name ?? ""),
      tz: String(record.tz ?? ""),
      flag: typeof record.flag === "string" ? (record.flag.length === 2 ? flagEmoji(record.flag) : record.flag) : "",
    };
    const problem = regionProblem(region, [...known, ...added]);
    if (problem) throw new ConfigError(`invalid region in ${file}: ${problem}`);
    added.push(region);
  }
  return added;
}

function randomSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export function loadConfig(args: ParsedArgs, env: Env): Config {
  const configFile = args.configFile ?? (env[CONFIG_OPTION.env] ? unquote(env[CONFIG_OPTION.env] ?? "") : null);
  const file = configFile ? readConfigFile(configFile, env) : {};
  const fileKeys = new Set<string>([...OPTION_KEYS, "regions"]);
  for (const key of Object.keys(file)) {
    if (!fileKeys.has(key)) throw new ConfigError(`unknown setting "${key}" in config file ${configFile}; keys are the flag names in camelCase`);
  }

  const explicit = new Set<keyof Settings>();
  const values: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) {
    if (key === "provision") continue;
    const option = OPTIONS[key] as OptionSpec<unknown>;
    const flagValue = args.settings.get(key);
    const envValue = env[option.env];
    let value: unknown = option.default;
    if (flagValue !== undefined) value = parseWith(option, flagValue, option.flag);
    else if (envValue !== undefined) value = parseWith(option, unquote(envValue), option.env);
    else if (key in file) value = parseWith(option, file[key], `${key} in ${configFile}`);
    else {
      values[key] = value;
      continue;
    }
    explicit.add(key);
    values[key] = value;
  }

  const extraRegions = "regions" in file ? parseRegions(file.regions, String(configFile)) : [];
  const catalogue = new Catalogue(extraRegions);
  const knownRegion = (id: string) => catalogue.hasRegion(id);

  const provisioned = new Map<string, ProvisionEntry>();
  const addAll = (entries: readonly ProvisionEntry[]): void => {
    for (const entry of entries) provisioned.set(entry.id, entry);
  };
  const provisionFrom = (value: unknown, at: ProvisionAt) => provisioning(() => parseProvisionList(value, at, knownRegion));
  if ("provision" in file) addAll(provisionFrom(file.provision, (path) => `provision${path} in ${configFile}`));
  if (env.PROVISION_AGENTS !== undefined) addAll(provisionFrom(unquote(env.PROVISION_AGENTS), (path) => `${OPTIONS.provision.env}${path}`));
  addAll(provisioning(() => envProvisioned(env, knownRegion)));
  const provisionFlag = args.settings.get("provision");
  if (provisionFlag !== undefined) addAll(provisionFrom(provisionFlag, (path) => `${OPTIONS.provision.flag}${path}`));
  if (provisioned.size > 0) explicit.add("provision");

  const settings = values as Omit<Settings, "provision">;
  const origin = settings.origin ?? `http://localhost:${settings.port}`;
  const sessionSecret = settings.sessionSecret ?? randomSecret();
  return Object.freeze({
    ...settings,
    provision: [...provisioned.values()],
    origin,
    rpId: settings.rpId ?? new URL(origin).hostname,
    cookieSecure: settings.cookieSecure ?? origin.startsWith("https:"),
    agentSetupUrl: settings.agentSetupUrl ?? `${origin}/docs#/agent`,
    sessionSecret,
    sessionSecretGenerated: settings.sessionSecret === null,
    extraRegions,
    catalogue,
    explicit,
    configFile,
  });
}

/** Parse flags and environment in one step (the usual path of every command). */
export function configFrom(argv: readonly string[], env: Env, commandFlags: readonly CommandFlag[] = []): { config: Config; args: ParsedArgs } {
  const args = parseArgs(argv, commandFlags);
  return { config: loadConfig(args, env), args };
}
