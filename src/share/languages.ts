/** Every catalogue of the web app, for the pages the hub renders itself in a chosen language (the embeds). */
import { de } from "../web/i18n/messages/de.ts";
import { en, type Messages } from "../web/i18n/messages/en.ts";
import { es } from "../web/i18n/messages/es.ts";
import { esMX } from "../web/i18n/messages/es-MX.ts";
import { fr } from "../web/i18n/messages/fr.ts";
import { it } from "../web/i18n/messages/it.ts";
import { ja } from "../web/i18n/messages/ja.ts";
import { ko } from "../web/i18n/messages/ko.ts";
import { pl } from "../web/i18n/messages/pl.ts";
import { ptBR } from "../web/i18n/messages/pt-BR.ts";
import { ru } from "../web/i18n/messages/ru.ts";
import { th } from "../web/i18n/messages/th.ts";
import { tr } from "../web/i18n/messages/tr.ts";
import { zhHans } from "../web/i18n/messages/zh-Hans.ts";
import { zhHant } from "../web/i18n/messages/zh-Hant.ts";

const CATALOGUES: Readonly<Record<string, Messages>> = {
  en, de, es, "es-MX": esMX, fr, it, ja, ko, pl, "pt-BR": ptBR, ru, th, tr, "zh-Hans": zhHans, "zh-Hant": zhHant,
};

export const LANGUAGE_CODES = Object.keys(CATALOGUES);

export function messagesFor(code: string): Messages {
  return CATALOGUES[code] ?? en;
}
