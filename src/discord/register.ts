/**
 * `hub discord register`: the command set put with one bulk overwrite
 * (PUT /applications/{id}/commands, or a server's), so running it again
 * changes nothing, and a command dropped from the set is removed.
 */
import { Routes, type RESTPutAPIApplicationCommandsResult } from "discord-api-types/v10";
import { HUB_NAME, HUB_VERSION } from "../version.ts";
import { commandSet } from "./commands.ts";
import { loadWords } from "./words.ts";

/** Discord answers within seconds; past this the command gives up and says so. */
const TIMEOUT_MS = 15_000;

export interface RegisterInput {
  readonly apiUrl: string;
  readonly applicationId: string;
  readonly botToken: string;
  /** A server (guild) id, where commands show at once; null for every server the application is in. */
  readonly guildId: string | null;
  /** The hub's origin, named in the User-Agent as Discord asks of every client. */
  readonly origin: string;
}

export class RegisterError extends Error {
  override readonly name = "RegisterError";
}

/** What Discord says when it refuses: its message and code, when the body has them. */
async function reason(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { message?: unknown; code?: unknown; retry_after?: unknown };
    if (typeof body.message === "string") return `${body.message}${typeof body.code === "number" ? ` (code ${body.code})` : ""}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return response.statusText || `HTTP ${response.status}`;
}

export async function registerCommands(input: RegisterInput): Promise<string[]> {
  await loadWords();
  const route = input.guildId === null ? Routes.applicationCommands(input.applicationId) : Routes.applicationGuildCommands(input.applicationId, input.guildId);
  let response: Response;
  try {
    response = await fetch(`${input.apiUrl}${route}`, {
      method: "PUT",
      headers: {
        authorization: `Bot ${input.botToken}`,
        "content-type": "application/json",
        "user-agent": `DiscordBot (${input.origin}, ${HUB_VERSION}) ${HUB_NAME.replaceAll(" ", "")}`,
      },
      body: JSON.stringify(commandSet()),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new RegisterError(`could not reach Discord at ${input.apiUrl}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status === 401) throw new RegisterError("Discord refused the bot token (401): copy it again from the application's Bot page into DISCORD_BOT_TOKEN");
  if (response.status === 403 || (response.status === 404 && input.guildId !== null)) {
    throw new RegisterError(`Discord refused (${response.status}: ${await reason(response)}): ${input.guildId === null ? "check DISCORD_APPLICATION_ID" : `add the application to server ${input.guildId} first (the invite below), or check --guild`}`);
  }
  if (!response.ok) throw new RegisterError(`Discord refused the commands (${response.status}: ${await reason(response)})`);
  const put = (await response.json()) as RESTPutAPIApplicationCommandsResult;
  return put.map((command) => command.name);
}
