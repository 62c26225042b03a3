/** `hub discord register [--guild ID]`: put the slash commands on the Discord application, then print where to add them to a server. */
import { ConfigError } from "../config/load.ts";
import { CommandError, type Command } from "./command.ts";

const USAGE = "hub discord register [--guild ID]";
const SNOWFLAKE = /^\d{17,20}$/;

export const discordCommand: Command = {
  name: "discord",
  usage: USAGE,
  summary: "Put the slash commands (/bonus, /when, /events) on the Discord application, in every language of the app, and print the invite URL",
  flags: [{ name: "guild", takesValue: true, arg: "ID", help: "A server's id (17 to 20 digits): the commands show there at once; without it they are global, in every server that adds the application" }],
  words: 1,
  settings: ["discordApplicationId", "discordPublicKey", "discordBotToken", "discordApiUrl", "origin"],
  notes: ["Puts the whole command set with one bulk overwrite, so running it again changes nothing. A missing setting or a bad --guild exits 2; a refusal from Discord exits 1 with its reason."],
  async run({ config, args, out }) {
    if (args.positionals[0] !== "register") throw new ConfigError(`use "${USAGE}"`);
    const guild = args.command.get("guild") ?? null;
    if (guild !== null && !SNOWFLAKE.test(guild)) throw new ConfigError(`--guild "${guild}" is not a server id: expected 17 to 20 digits (Discord: right-click the server, Copy Server ID)`);
    if (config.discordApplicationId === null) throw new ConfigError("set DISCORD_APPLICATION_ID and DISCORD_PUBLIC_KEY (the application's General Information page) first");
    if (config.discordBotToken === null) throw new ConfigError("set DISCORD_BOT_TOKEN (or DISCORD_BOT_TOKEN_FILE): the application's Bot page, Reset Token; it is needed only to register");
    // Loaded here, not with the CLI: the Discord libraries are for a hub that uses them.
    const { registerCommands, RegisterError } = await import("../discord/register.ts");
    const { inviteUrl, INTERACTIONS_PATH } = await import("../discord/invite.ts");
    let names: string[];
    try {
      names = await registerCommands({ apiUrl: config.discordApiUrl, applicationId: config.discordApplicationId, botToken: config.discordBotToken, guildId: guild, origin: config.origin });
    } catch (error) {
      if (error instanceof RegisterError) throw new CommandError(error.message);
      throw error;
    }
    const where = guild === null ? "every server the application is in (Discord may take up to an hour to show new ones)" : `server ${guild}`;
    out(`put ${names.length} commands (${names.map((n) => `/${n}`).join(", ")}) on application ${config.discordApplicationId} for ${where}`);
    out(`interactions endpoint URL to give Discord: ${config.origin}${INTERACTIONS_PATH}`);
    out(`invite: ${inviteUrl(config.discordApplicationId)}`);
    return 0;
  },
};
