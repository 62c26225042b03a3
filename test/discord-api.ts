/**
 * A local server playing Discord's REST API for `hub discord register`: it
 * takes the bulk overwrite of an application's (or a server's) commands,
 * checks every command against Discord's published rules, keeps the set, and
 * refuses a wrong bot token as Discord does.
 */

/** Discord's locales, as its documentation lists them (Reference › Locales). */
export const DISCORD_LOCALE_CODES = [
  "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl", "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs",
  "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja", "zh-TW", "ko",
];

const NAME = /^[-_\p{L}\p{N}]{1,32}$/u;
const STRING_OPTION = 3;

type Json = Record<string, unknown>;

function problemsOfName(where: string, name: unknown): string[] {
  if (typeof name !== "string" || !NAME.test(name)) return [`${where}: name ${JSON.stringify(name)} does not match ^[-_\\p{L}\\p{N}]{1,32}$`];
  if (name !== name.toLowerCase()) return [`${where}: name ${JSON.stringify(name)} is not lower case`];
  return [];
}

function problemsOfDescription(where: string, description: unknown): string[] {
  if (typeof description !== "string" || description.length < 1 || description.length > 100) return [`${where}: description must be 1 to 100 characters, got ${JSON.stringify(description)}`];
  return [];
}

function localized(where: string, map: unknown, check: (where: string, value: unknown) => string[]): string[] {
  if (map === undefined || map === null) return [];
  if (typeof map !== "object") return [`${where}: localizations must be an object`];
  return Object.entries(map as Json).flatMap(([locale, value]) => (DISCORD_LOCALE_CODES.includes(locale) ? check(`${where} [${locale}]`, value) : [`${where}: "${locale}" is not one of Discord's locales`]));
}

/** What Discord would refuse in one command, in words; empty when it takes it. */
export function commandProblems(command: Json): string[] {
  const where = `command ${JSON.stringify(command.name)}`;
  const problems = [
    ...problemsOfName(where, command.name),
    ...problemsOfDescription(where, command.description),
    ...localized(`${where} name`, command.name_localizations, problemsOfName),
    ...localized(`${where} description`, command.description_localizations, problemsOfDescription),
  ];
  const options = (command.options ?? []) as Json[];
  if (!Array.isArray(options) || options.length > 25) problems.push(`${where}: at most 25 options`);
  let optionalSeen = false;
  const names = new Set<string>();
  for (const option of options) {
    const at = `${where} option ${JSON.stringify(option.name)}`;
    problems.push(...problemsOfName(at, option.name), ...problemsOfDescription(at, option.description));
    problems.push(...localized(`${at} name`, option.name_localizations, problemsOfName), ...localized(`${at} description`, option.description_localizations, problemsOfDescription));
    if (names.has(String(option.name))) problems.push(`${at}: a second option of that name`);
    names.add(String(option.name));
    if (option.required === true && optionalSeen) problems.push(`${at}: required options must come before optional ones`);
    if (option.required !== true) optionalSeen = true;
    const choices = option.choices as Json[] | undefined;
    if (choices !== undefined) {
      if (option.autocomplete === true) problems.push(`${at}: choices and autocomplete together`);
      if (!Array.isArray(choices) || choices.length > 25) problems.push(`${at}: at most 25 choices`);
      for (const choice of choices ?? []) {
        if (typeof choice.name !== "string" || choice.name.length < 1 || choice.name.length > 100) problems.push(`${at}: a choice name of 1 to 100 characters`);
        if (option.type === STRING_OPTION && (typeof choice.value !== "string" || choice.value.length > 100)) problems.push(`${at}: a string choice value of at most 100 characters`);
        problems.push(...localized(`${at} choice`, choice.name_localizations, (w, v) => (typeof v === "string" && v.length >= 1 && v.length <= 100 ? [] : [`${w}: 1 to 100 characters`])));
      }
    }
  }
  return problems;
}

export interface FakeDiscord {
  readonly url: string;
  /** The command set each route holds now ("global" or a guild id), as last put. */
  readonly sets: Map<string, Json[]>;
  /** Every PUT received, with what was wrong in it. */
  readonly puts: { readonly path: string; readonly authorization: string | null; readonly userAgent: string | null; readonly problems: string[] }[];
  stop(): void;
}

export function fakeDiscord(applicationId: string, botToken: string, guilds: readonly string[] = []): FakeDiscord {
  const sets = new Map<string, Json[]>();
  const puts: FakeDiscord["puts"] = [];
  let nextId = 1_400_000_000_000_000_000n;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const match = /^\/api\/v10\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path);
      if (!match || request.method !== "PUT") return Response.json({ message: "404: Not Found", code: 0 }, { status: 404 });
      const authorization = request.headers.get("authorization");
      const body = (await request.json()) as Json[];
      const problems = Array.isArray(body) ? body.flatMap(commandProblems) : ["the body is not a list of commands"];
      puts.push({ path, authorization, userAgent: request.headers.get("user-agent"), problems });
      if (authorization !== `Bot ${botToken}`) return Response.json({ message: "401: Unauthorized", code: 0 }, { status: 401 });
      if (match[1] !== applicationId) return Response.json({ message: "Missing Access", code: 50001 }, { status: 403 });
      const guild = match[2];
      if (guild !== undefined && !guilds.includes(guild)) return Response.json({ message: "Missing Access", code: 50001 }, { status: 403 });
      if (problems.length > 0) return Response.json({ message: "Invalid Form Body", code: 50035, errors: problems }, { status: 400 });
      const key = guild ?? "global";
      const previous = sets.get(key) ?? [];
      // Discord keeps a command's id when one of the same name is put again.
      const stored = body.map((command) => ({ ...command, id: previous.find((p) => p.name === command.name)?.id ?? String(nextId++), application_id: applicationId, version: "1" }));
      sets.set(key, stored);
      return Response.json(stored);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/api/v10`, sets, puts, stop: () => server.stop(true) };
}
