/**
 * The web app's catalogues, for the words the hub writes itself in a chosen
 * language (the embeds, the pushes). Each is loaded when a language is first
 * asked for, not at start-up: a hub that writes only English never holds the
 * other fourteen.
 */
import { LANGUAGES } from "../web/i18n/index.ts";
import { en, type Messages } from "../web/i18n/messages/en.ts";

export const LANGUAGE_CODES: readonly string[] = LANGUAGES.map((language) => language.code);

const loaded = new Map<string, Promise<Messages>>();

/** A language's catalogue, loaded once on first use; English for a code the app has no catalogue for. */
export function loadMessages(code: string): Promise<Messages> {
  let pending = loaded.get(code);
  if (!pending) {
    pending = LANGUAGES.find((language) => language.code === code)?.load() ?? Promise.resolve(en);
    loaded.set(code, pending);
  }
  return pending;
}
