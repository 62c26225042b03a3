/**
 * Builds the frozen Config from flags, environment, config file and
 * defaults, in that order of precedence. Any bad value becomes a ConfigError
 * whose message is the single line the CLI prints before exiting with code 2.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { Catalogue, regionOf, regionProblem, type Region } from "../domain/catalogue.ts";
import { unixSocketPath } from "../domain/net.ts";
import {
  CONFIG_OPTION,
  fileVariant,
  InvalidProvision,
  InvalidValue,
  OPTIONS,
  OPTION_KEYS,
  parseBoolean,
  parseProvisionList,
  provisionEntry,
  PEM_PUBLIC_KEY,
  type OptionSpec,
  type ProvisionEntry,
  type ProvisionField,
  type Settings,
} from "./options.ts";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export interface Config extends Omit<Settings, "origin" | "rpId" | "cookieSecure" | "agentSetupUrl"> {
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
const BY_FILE_FLAG = new Map<string, keyof Settings>(
  OPTION_KEYS.flatMap((key) => {
    const variant = fileVariant(key);
    return variant ? [[variant.flag, key] as const] : [];
  }),
);

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
  /** The files named by `--…-file` flags of secret settings, by option key. */
  readonly files: ReadonlyMap<keyof Settings, string>;
  readonly configFile: string | null;
  /** Flags that belong to the command itself. */
  readonly command: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
}

export interface CommandFlag {
  readonly name: string;
  /** False for switches such as `--yaml`, which take only true or false. */
  readonly takesValue: boolean;
  /** What its value is, in the command's help (`TARGET`, `N`); none for a switch. */
  readonly arg?: string;
  /** What it does, for the command's help and docs/reference/cli.md. */
  readonly help: string;
}

/**
 * A switch's value: true or false, also 1/0, yes/no, on/off, any case. Any
 * other word is an error naming the flag and the word, never a switch
 * silently read as on.
 */
function switchValue(flag: string, word: string): "true" | "false" {
  try {
    return parseBoolean(word) ? "true" : "false";
  } catch {
    throw new ConfigError(`${flag} takes true or false, not '${word}'`);
  }
}

/** Splits a command line into setting flags, the command's own flags and positionals. */
export function parseArgs(argv: readonly string[], commandFlags: readonly CommandFlag[] = []): ParsedArgs {
  const settings = new Map<keyof Settings, string>();
  const files = new Map<keyof Settings, string>();
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
    const fileKey = BY_FILE_FLAG.get(name);
    const own = commandFlags.find((f) => `--${f.name}` === name);
    const isSwitch = key ? OPTIONS[key].arg === undefined : own ? !own.takesValue : false;
    if (!key && !fileKey && !own && name !== CONFIG_OPTION.flag) {
      throw new ConfigError(`unknown flag ${name}; run "hub --help" for the list`);
    }
    if (isSwitch) {
      const next = argv[i + 1];
      if (inline !== undefined) inline = switchValue(name, inline);
      else if (next !== undefined && !next.startsWith("--")) {
        inline = switchValue(name, next);
        i++;
      } else inline = "true";
    } else if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`flag ${name} needs a value`);
      inline = next;
      i++;
    }
    if (name === CONFIG_OPTION.flag) configFile = inline;
    else if (key) settings.set(key, inline);
    else if (fileKey) files.set(fileKey, inline);
    else if (own) command.set(own.name, inline);
  }
  return { settings, files, configFile, command, positionals };
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

function readConfigFile(path: string, env: Env): FileSettings {
  if (!existsSync(path)) throw new ConfigError(`config file ${path} does not exist`);
  let parsed: unknown;
  let source: string;
  try {
    source = readFileSync(path, "utf8");
    parsed = path.endsWith(".json") ? JSON.parse(source) : Bun.YAML.parse(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "unreadable";
    throw new ConfigError(`config file ${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${reason}`);
  }
  if (parsed === null || parsed === undefined) return new Map();
  if (typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold a mapping of settings`);
  return fileSettings(interpolateDeep(parsed, env, `config file ${path}`) as Record<string, unknown>, path, source);
}

/** A value of the config file, by the key we read it under, with the key as the file wrote it (ours, or the field's path). */
type FileSettings = ReadonlyMap<string, { readonly value: unknown; readonly name: string }>;

/** The field hub's keys (SPEC §22), each the path it has in its file, to the setting it means here. */
const FIELD_KEYS = new Map<string, keyof Settings>(OPTION_KEYS.flatMap((key) => (OPTIONS[key].fieldKey ? [[OPTIONS[key].fieldKey ?? "", key] as const] : [])));
/** Blocks of the field's file (`auth`, `auth.bootstrap`, `poll`) that hold settings rather than being one. */
const FIELD_BLOCKS = new Set([...FIELD_KEYS.keys()].flatMap((path) => path.split(".").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("."))));
const OWN_FILE_KEYS = new Set<string>([...OPTION_KEYS, ...OPTION_KEYS.flatMap((key) => fileVariant(key)?.key ?? []), "regions"]);

/** Edit distance, for the nearest known key to a misspelt one. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The line a key is written on (1-based), found by following its path down the file; null when it cannot be told. */
function lineOf(source: string, path: readonly string[]): number | null {
  const lines = source.split(/\r?\n/);
  let from = 0;
  let found = -1;
  for (const segment of path) {
    const pattern = new RegExp(`^\\s*["']?${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*:`);
    found = lines.findIndex((line, i) => i >= from && pattern.test(line));
    if (found === -1) return null;
    from = found + 1;
  }
  return found + 1;
}

/**
 * The file's settings under our keys. The field hub's keys are read as
 * aliases (an empty value there means "not set", as the field reads it); a
 * key neither hub knows stops start-up naming its line and the nearest known
 * key, and a setting given under two names in one file must not disagree.
 */
function fileSettings(file: Record<string, unknown>, path: string, source: string): FileSettings {
  const found = new Map<string, { value: unknown; name: string }>();
  const put = (key: string, value: unknown, name: string): void => {
    const earlier = found.get(key);
    if (earlier && JSON.stringify(earlier.value) !== JSON.stringify(value)) {
      throw new ConfigError(`config file ${path} gives ${earlier.name} and ${name}, which are the same setting, different values; keep one`);
    }
    if (!earlier) found.set(key, { value, name });
  };
  const walk = (record: Record<string, unknown>, prefix: string): void => {
    for (const [name, value] of Object.entries(record)) {
      const full = prefix === "" ? name : `${prefix}.${name}`;
      const alias = FIELD_KEYS.get(full);
      if (prefix === "" && OWN_FILE_KEYS.has(name)) put(name, value, name);
      else if (alias !== undefined) {
        if (!(typeof value === "string" && value.trim() === "") && value !== null) put(alias, value, full);
      } else if (FIELD_BLOCKS.has(full)) {
        if (value === null) continue;
        if (typeof value !== "object" || Array.isArray(value)) throw new ConfigError(`${full} in config file ${path} must be a mapping of settings`);
        walk(value as Record<string, unknown>, full);
      } else {
        const known = prefix === "" ? [...OWN_FILE_KEYS, ...FIELD_KEYS.keys(), ...FIELD_BLOCKS] : [...FIELD_KEYS.keys(), ...FIELD_BLOCKS].filter((k) => k.startsWith(`${prefix}.`));
        const nearest = known.map((k) => ({ k, d: distance(full, k) })).sort((a, b) => a.d - b.d)[0]?.k;
        const line = lineOf(source, full.split("."));
        throw new ConfigError(
          `unknown setting "${full}" in config file ${path}${line === null ? "" : ` at line ${line}`}${nearest ? `; did you mean "${nearest}"?` : ""} (keys are the flag names in camelCase, or the field hub's)`,
        );
      }
    }
  };
  walk(file, "");
  return found;
}

/** A secret file larger than this is surely the wrong file, and reading it whole could exhaust a small machine's memory. */
const SECRET_FILE_MAX_BYTES = 1024 * 1024;

/** Why a file could not be read, in words for the line that stops start-up. */
export function fileProblem(error: unknown): string {
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (code === "ENOENT") return "it does not exist";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return code === "" ? "it cannot be read" : `it cannot be read (${code})`;
}

/**
 * The value in the file a `_FILE` setting names. The content is the value,
 * less one trailing line break (editors and `echo` add one); anything else,
 * spaces included, is left to the setting's own rules, as a value given
 * directly would be. The line that stops start-up names the setting and the
 * path, never the content.
 */
export function readSecretFile(path: string, name: string): string {
  let content: string;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new ConfigError(`cannot read ${path} (${name}): it is a directory`);
    if (!stat.isFile()) throw new ConfigError(`cannot read ${path} (${name}): it is not a regular file`);
    if (stat.size > SECRET_FILE_MAX_BYTES) throw new ConfigError(`cannot read ${path} (${name}): it is larger than 1 MiB`);
    content = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot read ${path} (${name}): ${fileProblem(error)}`);
  }
  const value = content.replace(/\r?\n$/, "");
  if (value === "") throw new ConfigError(`${path} (${name}) is empty`);
  return value;
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

/** A value one source gives a setting; `at` names it (and a place inside it, for a list) in the line that stops start-up. */
interface Given {
  readonly value: unknown;
  readonly at: (path: string) => string;
}

function given(value: unknown, at: (path: string) => string): Given | undefined {
  return value === undefined ? undefined : { value, at };
}

/**
 * A secret and its `_FILE` variant from one source: the value, or what the
 * named file holds. Both from the same source is refused, since which one
 * was meant would be a guess; across sources the usual precedence decides.
 */
function valueOrFile(value: Given | undefined, file: Given | undefined): Given | undefined {
  if (value && file) throw new ConfigError(`${value.at("")} and ${file.at("")} are both set; give the value or the file, not both`);
  if (!file) return value;
  const path = typeof file.value === "string" ? file.value.trim() : "";
  if (path === "") throw invalid(file.value, false, file.at(""), "a file path", "");
  return { value: readSecretFile(path, file.at("")), at: (inside) => `${file.at(inside)} (${path})` };
}

interface Sources {
  readonly args: ParsedArgs;
  readonly env: Env;
  readonly file: FileSettings;
  readonly configFile: string | null;
}

/** Reads a setting from one source; `undefined` when that source does not give it. */
type Source = (key: keyof Settings, from: Sources) => Given | undefined;

const fromFlags: Source = (key, { args }) => {
  const option = OPTIONS[key];
  const variant = fileVariant(key);
  return valueOrFile(
    given(args.settings.get(key), (path) => `${option.flag}${path}`),
    variant ? given(args.files.get(key), (path) => `${variant.flag}${path}`) : undefined,
  );
};

const fromEnv: Source = (key, { env }) => {
  const option = OPTIONS[key];
  const variant = fileVariant(key);
  const raw = env[option.env];
  const path = variant ? env[variant.env] : undefined;
  return valueOrFile(
    given(raw === undefined ? undefined : unquote(raw), (inside) => `${option.env}${inside}`),
    variant && path !== undefined ? given(unquote(path), (inside) => `${variant.env}${inside}`) : undefined,
  );
};

const fromConfigFile: Source = (key, { file, configFile }) => {
  const variant = fileVariant(key);
  const own = file.get(key);
  const fromFile = variant ? file.get(variant.key) : undefined;
  return valueOrFile(
    own ? given(own.value, (path) => `${own.name}${path} in ${configFile}`) : undefined,
    fromFile ? given(fromFile.value, (path) => `${fromFile.name}${path} in ${configFile}`) : undefined,
  );
};

const AGENT_VARIABLE: Readonly<Record<ProvisionField, string>> = { id: "ID", token: "TOKEN", region: "REGION", provider: "PROVIDER", label: "LABEL" };

function envProvisioned(env: Env, knownRegion: (id: string) => boolean): ProvisionEntry[] {
  const groups = new Map<number, Map<string, string>>();
  for (const [name, raw] of Object.entries(env)) {
    const match = /^AGENT(\d+)_(TOKEN|TOKEN_FILE|REGION|PROVIDER|ID|LABEL)$/.exec(name);
    if (!match || raw === undefined) continue;
    const n = Number(match[1]);
    const fields = groups.get(n) ?? new Map<string, string>();
    fields.set(match[2] ?? "", unquote(raw));
    groups.set(n, fields);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    // A token set but blank means "managed in the admin UI instead", as the field's hub reads it (its .env.example ships AGENT1_TOKEN=).
    .filter(([, fields]) => !(fields.get("TOKEN") === "" && !fields.has("TOKEN_FILE")))
    .map(([n, fields]) => {
      const token = valueOrFile(
        given(fields.get("TOKEN") || undefined, () => `AGENT${n}_TOKEN`),
        given(fields.get("TOKEN_FILE"), () => `AGENT${n}_TOKEN_FILE`),
      );
      if (!token) throw new ConfigError(`AGENT${n}_* is incomplete: AGENT${n}_TOKEN (or AGENT${n}_TOKEN_FILE) is not set`);
      for (const required of ["REGION", "PROVIDER"]) {
        if (!fields.get(required)) throw new ConfigError(`AGENT${n}_* is incomplete: AGENT${n}_${required} is not set`);
      }
      return provisionEntry(
        { id: fields.get("ID") ?? `agent${n}`, token: token.value, region: fields.get("REGION"), provider: fields.get("PROVIDER"), label: fields.get("LABEL") },
        { entry: `AGENT${n}_*`, field: (field) => (field === "token" ? token.at("") : `AGENT${n}_${AGENT_VARIABLE[field]}`) },
        knownRegion,
      );
    });
}

const REGION_KEYS = new Set(["id", "name", "tz", "flag", "latencyHost"]);

function parseRegions(value: unknown, file: string): Region[] {
  if (!Array.isArray(value)) throw new ConfigError(`regions in ${file} must be a list of { id, name, tz, flag?, latencyHost? }`);
  const added: Region[] = [];
  const known = new Catalogue().regions;
  for (const item of value) {
    const record = (item ?? {}) as Record<string, unknown>;
    const unknownKey = Object.keys(record).find((key) => !REGION_KEYS.has(key));
    if (unknownKey !== undefined) throw new ConfigError(`invalid region in ${file}: unknown key "${unknownKey}" (allowed: ${[...REGION_KEYS].join(", ")})`);
    const region = regionOf({
      id: String(record.id ?? ""),
      name: String(record.name ?? ""),
      tz: String(record.tz ?? ""),
      flag: typeof record.flag === "string" ? record.flag : undefined,
      latencyHost: record.latencyHost === undefined ? undefined : String(record.latencyHost),
    });
    const problem = regionProblem(region, [...known, ...added]);
    if (problem) throw new ConfigError(`invalid region in ${file}: ${problem}`);
    added.push(region);
  }
  return added;
}

export function loadConfig(args: ParsedArgs, env: Env): Config {
  const configFile = args.configFile ?? (env[CONFIG_OPTION.env] ? unquote(env[CONFIG_OPTION.env] ?? "") : null);
  const file = configFile ? readConfigFile(configFile, env) : new Map();

  const sources: Sources = { args, env, file, configFile };
  const explicit = new Set<keyof Settings>();
  const values: Record<string, unknown> = {};
  for (const key of OPTION_KEYS) {
    if (key === "provision") continue;
    const option = OPTIONS[key] as OptionSpec<unknown>;
    // Sources are asked in order of precedence, so a lower one's file is never read once a higher one gave the setting.
    const found = fromFlags(key, sources) ?? fromEnv(key, sources) ?? fromConfigFile(key, sources);
    if (found === undefined) {
      values[key] = option.default;
      continue;
    }
    explicit.add(key);
    values[key] = parseWith(option, found.value, found.at(""));
  }

  const regions = file.get("regions");
  const extraRegions = regions ? parseRegions(regions.value, String(configFile)) : [];
  const catalogue = new Catalogue(extraRegions);
  const knownRegion = (id: string) => catalogue.hasRegion(id);

  const provisioned = new Map<string, ProvisionEntry>();
  const addAll = (entries: readonly ProvisionEntry[]): void => {
    for (const entry of entries) provisioned.set(entry.id, entry);
  };
  const provisionFrom = (source: Source): ProvisionEntry[] => {
    const found = source("provision", sources);
    return found ? provisioning(() => parseProvisionList(found.value, found.at, knownRegion)) : [];
  };
  addAll(provisionFrom(fromConfigFile));
  addAll(provisionFrom(fromEnv));
  addAll(provisioning(() => envProvisioned(env, knownRegion)));
  addAll(provisionFrom(fromFlags));
  if (provisioned.size > 0) explicit.add("provision");

  const settings = values as Omit<Settings, "provision">;
  if (settings.gripUrl.length > 0) gripKeysProblem(settings);
  if (settings.gripStatsUrl.length > 0 && settings.gripStatsUrl.length !== settings.gripUrl.length) {
    throw new ConfigError(
      `GRIP_STATS_URL names ${settings.gripStatsUrl.length} ${settings.gripStatsUrl.length === 1 ? "endpoint" : "endpoints"} but GRIP_URL ${settings.gripUrl.length === 1 ? "names 1 node" : `names ${settings.gripUrl.length} nodes`}: give one stats endpoint per GRIP_URL entry, in the same order`,
    );
  }
  if (settings.backupSchedule.kind !== "off" && settings.backupTarget === null) {
    throw new ConfigError("BACKUP_SCHEDULE is set but BACKUP_TARGET is not: name where the backups go (a folder, or s3://bucket/prefix)");
  }
  const origin = settings.origin ?? `http://localhost:${settings.port}`;
  // Only a proxy can reach a hub on a Unix socket (the socket's mode decides which), and its peer has no address:
  // the client is who the proxy says, one hop, unless TRUSTED_PROXIES says otherwise.
  const behindSocket = unixSocketPath(settings.host) !== null && settings.trustedProxies.kind === "none";
  return Object.freeze({
    ...settings,
    trustedProxies: behindSocket ? ({ kind: "hops", hops: 1 } as const) : settings.trustedProxies,
    provision: [...provisioned.values()],
    origin,
    rpId: settings.rpId ?? new URL(origin).hostname,
    cookieSecure: settings.cookieSecure ?? origin.startsWith("https:"),
    agentSetupUrl: settings.agentSetupUrl ?? `${origin}/contribute/agents`,
    extraRegions,
    catalogue,
    explicit,
    configFile,
  });
}

/**
 * GRIP needs a key to check Grip-Sig with (without one any client could claim
 * to be the proxy and be answered with hold instructions) and a way to
 * authenticate publishes. Pushpin uses its one shared key for both; Fastly
 * Fanout signs with its own public key, which it uses for every service, so
 * the issuer must be checked too, and takes an API token for publishes.
 */
function gripKeysProblem(settings: Pick<Settings, "gripKey" | "gripVerifyKey" | "gripVerifyIss" | "gripPublishToken">): void {
  if (settings.gripKey === null && settings.gripVerifyKey === null) {
    throw new ConfigError("GRIP_URL is set but neither GRIP_KEY nor GRIP_VERIFY_KEY (or their _FILE variants) is: give the key your GRIP proxy signs Grip-Sig with (Pushpin's sig_key as GRIP_KEY; Fastly Fanout's public key as GRIP_VERIFY_KEY)");
  }
  if (settings.gripKey === null && settings.gripPublishToken === null) {
    throw new ConfigError("GRIP_URL is set but neither GRIP_KEY nor GRIP_PUBLISH_TOKEN (or their _FILE variants) is: the hub needs one to authenticate its publishes (Fastly Fanout: an API token allowed to publish, as GRIP_PUBLISH_TOKEN)");
  }
  if (settings.gripVerifyKey?.startsWith(PEM_PUBLIC_KEY) && settings.gripVerifyIss === null) {
    throw new ConfigError("GRIP_VERIFY_KEY is a public key but GRIP_VERIFY_ISS is not set: a proxy's public key may sign for others too, so name the issuer the hub must see (Fastly Fanout: fastly:SERVICE_ID)");
  }
}

/** Parse flags and environment in one step (the usual path of every command). */
export function configFrom(argv: readonly string[], env: Env, commandFlags: readonly CommandFlag[] = []): { config: Config; args: ParsedArgs } {
  const args = parseArgs(argv, commandFlags);
  return { config: loadConfig(args, env), args };
}
