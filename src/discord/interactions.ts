/**
 * One verified interaction in, its response out: PING, the three commands,
 * the region autocomplete and the Refresh button. Nothing here throws at an
 * odd payload: an unknown command or region gets a sentence only its reader
 * sees, never an error.
 */
import {
  ApplicationCommandOptionType,
  InteractionResponseType,
  InteractionType,
  type APIApplicationCommandInteractionDataOption,
  type APIApplicationCommandOptionChoice,
  type APIInteractionResponse,
} from "discord-api-types/v10";
import { isPlatform, type Platform, type Region } from "../domain/catalogue.ts";
import { ephemeral, eventsAnswer, platformBonus, regionBonus, whenToPlay, type MessageData, type View } from "./answers.ts";
import { COMMANDS, OPTIONS, ROLES, type Role } from "./commands.ts";
import { languageFor } from "./locales.ts";
import { regionLabel, say } from "./words.ts";

/** Discord shows at most this many autocomplete choices. */
export const MAX_CHOICES = 25;
/** A choice's name holds at most this many characters. */
const CHOICE_NAME_MAX = 100;
const DEFAULT_PLATFORM: Platform = "Windows";

/** How an interaction was answered, for hub_discord_interactions_total. */
export type Result = "answered" | "unknown_region" | "sign_in_required" | "unknown_command";

export interface Answer {
  readonly response: APIInteractionResponse;
  /** ping, bonus, when, events, autocomplete, refresh or other. */
  readonly type: string;
  readonly result: Result;
}

export interface Policy {
  /** Whether commands may be answered now (requireAuth off, or the operator allows Discord anyway). */
  answers(): boolean;
}

type Options = readonly APIApplicationCommandInteractionDataOption[];

/** The fields of an interaction the hub reads, checked as it reads them. */
interface Incoming {
  readonly type?: unknown;
  readonly locale?: unknown;
  readonly data?: { readonly name?: unknown; readonly options?: unknown; readonly custom_id?: unknown };
}

function stringOption(options: Options, name: string): string | null {
  const option = options.find((o) => o.name === name);
  return option && option.type === ApplicationCommandOptionType.String && typeof option.value === "string" ? option.value.trim() : null;
}

function optionsOf(data: Incoming["data"]): Options {
  if (!Array.isArray(data?.options)) return [];
  return (data.options as unknown[]).filter((o): o is APIApplicationCommandInteractionDataOption => o !== null && typeof o === "object");
}

const fold = (text: string): string => text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** The region a reader named: by id, else by a name or short name that only one region has (in English or the reader's language). */
export function findRegion(regions: readonly Region[], given: string, language: string): Region | null {
  const needle = fold(given);
  if (needle === "") return null;
  const byId = regions.find((r) => r.id === needle);
  if (byId) return byId;
  const named = regions.filter((r) => [r.name, r.shortName, regionLabel(r, language)].some((n) => fold(n) === needle));
  return named.length === 1 ? (named[0] ?? null) : null;
}

/** Autocomplete: regions whose id, name, short name or name in the reader's language holds what they typed, at most 25. */
export function regionChoices(regions: readonly Region[], typed: string, language: string): APIApplicationCommandOptionChoice<string>[] {
  const needle = fold(typed.trim());
  return regions
    .map((region) => ({ region, label: regionLabel(region, language) }))
    .filter(({ region, label }) => needle === "" || [region.id, region.name, region.shortName, label].some((n) => fold(n).includes(needle)))
    .slice(0, MAX_CHOICES)
    .map(({ region, label }) => ({ name: Array.from(label).slice(0, CHOICE_NAME_MAX).join(""), value: region.id }));
}

const message = (data: MessageData): APIInteractionResponse => ({ type: InteractionResponseType.ChannelMessageWithSource, data });

export function answer(view: View, policy: Policy, interaction: Incoming): Answer {
  const language = languageFor(interaction.locale);
  const regions = view.catalogue.regions;
  switch (interaction.type) {
    case InteractionType.Ping:
      return { type: "ping", result: "answered", response: { type: InteractionResponseType.Pong } };
    case InteractionType.ApplicationCommandAutocomplete: {
      const focused = optionsOf(interaction.data).find((o) => "focused" in o && o.focused === true);
      const typed = focused && "value" in focused && typeof focused.value === "string" ? focused.value : "";
      const choices = policy.answers() && focused?.name === OPTIONS.region ? regionChoices(regions, typed, language) : [];
      return { type: "autocomplete", result: policy.answers() ? "answered" : "sign_in_required", response: { type: InteractionResponseType.ApplicationCommandAutocompleteResult, data: { choices } } };
    }
    case InteractionType.ApplicationCommand: {
      const name = typeof interaction.data?.name === "string" ? interaction.data.name : "";
      const type = (Object.values(COMMANDS) as string[]).includes(name) ? name : "other";
      if (type === "other") return { type, result: "unknown_command", response: message(ephemeral(say(language, "discord.unknownCommand"))) };
      if (!policy.answers()) return { type, result: "sign_in_required", response: message(ephemeral(say(language, "discord.signInRequired"))) };
      return command(view, language, type, optionsOf(interaction.data));
    }
    case InteractionType.MessageComponent: {
      const id = typeof interaction.data?.custom_id === "string" ? interaction.data.custom_id : "";
      const [kind, platform = "", region = ""] = id.split(":");
      if (kind !== "refresh" || !isPlatform(platform)) return { type: "refresh", result: "unknown_command", response: message(ephemeral(say(language, "discord.unknownCommand"))) };
      if (!policy.answers()) return { type: "refresh", result: "sign_in_required", response: message(ephemeral(say(language, "discord.signInRequired"))) };
      const found = region === "*" ? null : view.catalogue.region(region);
      if (region !== "*" && !found) return { type: "refresh", result: "unknown_region", response: message(ephemeral(say(language, "discord.unknownRegion", { region }))) };
      const data = found ? regionBonus(view, language, platform, found) : platformBonus(view, language, platform);
      return { type: "refresh", result: "answered", response: { type: InteractionResponseType.UpdateMessage, data } };
    }
    default:
      return { type: "other", result: "unknown_command", response: message(ephemeral(say(language, "discord.unknownCommand"))) };
  }
}

function command(view: View, language: string, name: string, options: Options): Answer {
  const given = stringOption(options, OPTIONS.region);
  const region = given === null || given === "" ? null : findRegion(view.catalogue.regions, given, language);
  if (given !== null && given !== "" && region === null) {
    return { type: name, result: "unknown_region", response: message(ephemeral(say(language, "discord.unknownRegion", { region: given.slice(0, 100) }))) };
  }
  const platformGiven = stringOption(options, OPTIONS.platform);
  const platform = platformGiven !== null && isPlatform(platformGiven) ? platformGiven : DEFAULT_PLATFORM;
  switch (name) {
    case COMMANDS.bonus:
      return { type: name, result: "answered", response: message(region ? regionBonus(view, language, platform, region) : platformBonus(view, language, platform)) };
    case COMMANDS.when: {
      if (!region) return { type: name, result: "unknown_region", response: message(ephemeral(say(language, "discord.unknownRegion", { region: given ?? "" }))) };
      const roleGiven = stringOption(options, OPTIONS.role);
      const role = (ROLES as readonly string[]).includes(roleGiven ?? "") ? (roleGiven as Role) : null;
      return { type: name, result: "answered", response: message(whenToPlay(view, language, platform, region, role)) };
    }
    default:
      return { type: name, result: "answered", response: message(eventsAnswer(view, language)) };
  }
}

