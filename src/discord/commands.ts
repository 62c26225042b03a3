/**
 * The command set `hub discord register` puts with one bulk overwrite: names
 * and descriptions in English with Discord's localizations for the app's
 * other languages, all from the web app's catalogues.
 */
import { ApplicationCommandOptionType, ApplicationCommandType, type APIApplicationCommandOption, type RESTPutAPIApplicationCommandsJSONBody } from "discord-api-types/v10";
import { PLATFORM_LABELS, PLATFORMS } from "../domain/catalogue.ts";
import type { MessageKey } from "../web/i18n/messages/en.ts";
import { localizations } from "./locales.ts";
import { word } from "./words.ts";

/** The commands and options by their default (English) names, which is what Discord sends back whatever the reader's language. */
export const COMMANDS = { bonus: "bonus", when: "when", events: "events" } as const;
export type CommandName = (typeof COMMANDS)[keyof typeof COMMANDS];
export const OPTIONS = { platform: "platform", region: "region", role: "role" } as const;
export const ROLES = ["survivor", "killer"] as const;
export type Role = (typeof ROLES)[number];

type Named = keyof typeof COMMANDS | keyof typeof OPTIONS;

const NAME_KEYS: Readonly<Record<Named, MessageKey>> = {
  bonus: "discord.name.bonus",
  when: "discord.name.when",
  events: "discord.name.events",
  platform: "discord.name.platform",
  region: "discord.name.region",
  role: "discord.name.role",
};

const DESCRIPTION_KEYS: Readonly<Record<Named, MessageKey>> = {
  bonus: "discord.describe.bonus",
  when: "discord.describe.when",
  events: "discord.describe.events",
  platform: "discord.describe.platform",
  region: "discord.describe.region",
  role: "discord.describe.role",
};

function named(what: Named) {
  return {
    name: word("en", NAME_KEYS[what]),
    name_localizations: localizations((language) => word(language, NAME_KEYS[what])),
    description: word("en", DESCRIPTION_KEYS[what]),
    description_localizations: localizations((language) => word(language, DESCRIPTION_KEYS[what])),
  };
}

const platformOption = (): APIApplicationCommandOption => ({
  type: ApplicationCommandOptionType.String,
  ...named("platform"),
  required: false,
  choices: PLATFORMS.map((platform) => ({ name: PLATFORM_LABELS[platform], value: platform })),
});

const regionOption = (required: boolean): APIApplicationCommandOption => ({
  type: ApplicationCommandOptionType.String,
  ...named("region"),
  required,
  autocomplete: true,
});

const roleOption = (): APIApplicationCommandOption => ({
  type: ApplicationCommandOptionType.String,
  ...named("role"),
  required: false,
  choices: ROLES.map((role) => ({
    name: word("en", `role.${role}`),
    name_localizations: localizations((language) => word(language, `role.${role}`)),
    value: role,
  })),
});

/** What PUT /applications/{id}/commands receives: the whole set, so putting it again changes nothing. */
export function commandSet(): RESTPutAPIApplicationCommandsJSONBody {
  return [
    { type: ApplicationCommandType.ChatInput, ...named("bonus"), options: [platformOption(), regionOption(false)] },
    // Required options come first, as Discord requires.
    { type: ApplicationCommandType.ChatInput, ...named("when"), options: [regionOption(true), roleOption()] },
    { type: ApplicationCommandType.ChatInput, ...named("events") },
  ];
}
