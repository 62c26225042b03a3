/**
 * The words of the answers, in the interaction's language, from the web app's
 * own catalogues; every piece of text that reaches Discord goes through
 * `plain` (the alerts' Discord escaping), so neither our sentences nor an
 * operator's region name or an agent's event label is read as Markdown, a
 * masked link or a mention.
 */
import { plain } from "../alerts/formats/discord.ts";
import type { Region } from "../domain/catalogue.ts";
import { LANGUAGE_CODES, loadMessages } from "../share/languages.ts";
import type { MessageKey, Messages } from "../web/i18n/messages/en.ts";

export type Params = Readonly<Record<string, string | number>>;

const catalogues = new Map<string, Messages>();

/**
 * Loads every language's words once. Discord asks in any language at any time and the answers are
 * synchronous, so a hub that answers Discord (or registers its commands) holds all fifteen; a hub
 * without Discord never loads this file.
 */
export async function loadWords(): Promise<void> {
  if (catalogues.size === LANGUAGE_CODES.length) return;
  const loaded = await Promise.all(LANGUAGE_CODES.map(async (code) => [code, await loadMessages(code)] as const));
  for (const [code, messages] of loaded) catalogues.set(code, messages);
}

function messagesFor(language: string): Messages {
  const messages = catalogues.get(language) ?? catalogues.get("en");
  if (!messages) throw new Error("the Discord words are used before loadWords() finished");
  return messages;
}

/** A catalogue message with its placeholders filled, as raw text (escape it with `plain` before it reaches Discord). */
export function word(language: string, key: MessageKey, params: Params = {}): string {
  return messagesFor(language)[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The same, escaped for Discord. */
export function say(language: string, key: MessageKey, params: Params = {}): string {
  return plain(word(language, key, params));
}

export { plain };

const formats = new Map<string, Intl.NumberFormat>();

/** A number with at most `digits` decimals in the language. */
export function number(language: string, value: number, digits: number): string {
  const key = `${language}|${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, { maximumFractionDigits: digits });
    formats.set(key, format);
  }
  return format.format(value);
}

/** "+75 %", as the board writes a bonus. */
export function bonusText(language: string, percent: number): string {
  return `+${number(language, percent, 0)} %`;
}

const countryNames = new Map<string, Intl.DisplayNames>();

function countryName(language: string, country: string): string | null {
  let names = countryNames.get(language);
  if (!names) {
    names = new Intl.DisplayNames([language], { type: "region" });
    countryNames.set(language, names);
  }
  return names.of(country) ?? null;
}

/**
 * A region's name for a reader of `language`: the catalogue's name, and, in
 * another language, the region's country in that language when the name
 * does not already hold it ("EU Central (Frankfurt) · Deutschland"), so a
 * reader finds a region by a name they know. Raw text.
 */
export function regionLabel(region: Region, language: string): string {
  if (language === "en" || region.country === null) return region.name;
  const country = countryName(language, region.country);
  return country === null || region.name.includes(country) ? region.name : `${region.name} · ${country}`;
}

/** Discord's own timestamp markup, which every reader's client shows in their time zone and language ("in 2 hours"). */
export function discordTime(ms: number, style: "R" | "f" | "t"): string {
  return `<t:${Math.floor(ms / 1000)}:${style}>`;
}
