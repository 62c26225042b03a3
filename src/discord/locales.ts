/**
 * The app's 15 languages as Discord's locales: what `register` puts in the
 * commands' `name_localizations` / `description_localizations`, and which of
 * the app's catalogues answers an interaction's `locale`.
 */
import { Locale } from "discord-api-types/v10";
import { LANGUAGE_CODES } from "../share/languages.ts";

/** Discord's locales for each language of the app; English's are the commands' default names and need no localization. */
export const DISCORD_LOCALES: Readonly<Record<string, readonly Locale[]>> = {
  en: [Locale.EnglishUS, Locale.EnglishGB],
  de: [Locale.German],
  es: [Locale.SpanishES],
  "es-MX": [Locale.SpanishLATAM],
  fr: [Locale.French],
  it: [Locale.Italian],
  ja: [Locale.Japanese],
  ko: [Locale.Korean],
  pl: [Locale.Polish],
  "pt-BR": [Locale.PortugueseBR],
  ru: [Locale.Russian],
  th: [Locale.Thai],
  tr: [Locale.Turkish],
  "zh-Hans": [Locale.ChineseCN],
  "zh-Hant": [Locale.ChineseTW],
};

const BY_LOCALE = new Map<string, string>(LANGUAGE_CODES.flatMap((code) => (DISCORD_LOCALES[code] ?? []).map((locale) => [locale as string, code] as const)));

/** The app's language for a Discord locale (the user's, as the interaction carries it); English for any other. */
export function languageFor(locale: unknown): string {
  return typeof locale === "string" ? (BY_LOCALE.get(locale) ?? "en") : "en";
}

/** `{ locale: text }` for every language but English, the text made by `word` in that language. */
export function localizations(word: (language: string) => string): Partial<Record<Locale, string>> {
  const out: Partial<Record<Locale, string>> = {};
  for (const code of LANGUAGE_CODES) {
    if (code === "en") continue;
    for (const locale of DISCORD_LOCALES[code] ?? []) out[locale] = word(code);
  }
  return out;
}
