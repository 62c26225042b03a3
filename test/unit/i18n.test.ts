import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { de } from "../../src/web/i18n/messages/de.ts";
import { en } from "../../src/web/i18n/messages/en.ts";
import { esMX } from "../../src/web/i18n/messages/es-MX.ts";
import { es } from "../../src/web/i18n/messages/es.ts";
import { fr } from "../../src/web/i18n/messages/fr.ts";
import { it as itMessages } from "../../src/web/i18n/messages/it.ts";
import { ja } from "../../src/web/i18n/messages/ja.ts";
import { ko } from "../../src/web/i18n/messages/ko.ts";
import { pl } from "../../src/web/i18n/messages/pl.ts";
import { ptBR } from "../../src/web/i18n/messages/pt-BR.ts";
import { ru } from "../../src/web/i18n/messages/ru.ts";
import { th } from "../../src/web/i18n/messages/th.ts";
import { tr } from "../../src/web/i18n/messages/tr.ts";
import { zhHans } from "../../src/web/i18n/messages/zh-Hans.ts";
import { zhHant } from "../../src/web/i18n/messages/zh-Hant.ts";

const CATALOGUES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  de,
  es,
  "es-MX": esMX,
  fr,
  it: itMessages,
  ja,
  ko,
  pl,
  "pt-BR": ptBR,
  ru,
  th,
  tr,
  "zh-Hans": zhHans,
  "zh-Hant": zhHant,
};

const EXPECTED_CODES = ["en", "de", "es", "es-MX", "fr", "it", "ja", "ko", "pl", "pt-BR", "ru", "th", "tr", "zh-Hans", "zh-Hant"];

const englishKeys = Object.keys(en);

function placeholders(message: string): string[] {
  return [...new Set([...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ""))].sort();
}

describe("message catalogues", () => {
  test("English is a non-empty reference", () => {
    expect(englishKeys.length).toBeGreaterThan(0);
    for (const key of englishKeys) expect(typeof en[key as keyof typeof en]).toBe("string");
  });

  for (const [code, messages] of Object.entries(CATALOGUES)) {
    describe(code, () => {
      test("has exactly the English keys", () => {
        const keys = Object.keys(messages);
        const missing = englishKeys.filter((key) => !Object.hasOwn(messages, key)).map((key) => `${code}: missing ${key}`);
        const extra = keys.filter((key) => !Object.hasOwn(en, key)).map((key) => `${code}: extra ${key}`);
        expect([...missing, ...extra]).toEqual([]);
      });

      test("every message is a non-empty string", () => {
        const bad = Object.entries(messages)
          .filter(([, value]) => typeof value !== "string" || value.trim() === "")
          .map(([key]) => `${code}: ${key} is empty or not a string`);
        expect(bad).toEqual([]);
      });

      test("every message has the English placeholders", () => {
        const wrong: string[] = [];
        for (const key of englishKeys) {
          const value = messages[key];
          if (typeof value !== "string") continue;
          const want = placeholders(en[key as keyof typeof en]);
          const got = placeholders(value);
          if (want.join(",") !== got.join(",")) wrong.push(`${code}: ${key} has {${got.join("},{")}} instead of {${want.join("},{")}}`);
        }
        expect(wrong).toEqual([]);
      });
    });
  }
});

describe("language list", () => {
  test("offers exactly the fifteen languages, English first", () => {
    const source = readFileSync(new URL("../../src/web/i18n/index.ts", import.meta.url), "utf8");
    const codes = [...source.matchAll(/\bcode:\s*"([^"]+)"/g)].map((m) => m[1]);
    expect(codes).toEqual(EXPECTED_CODES);
  });

  test("every listed language except English has a catalogue here", () => {
    expect(Object.keys(CATALOGUES).sort()).toEqual(EXPECTED_CODES.filter((code) => code !== "en").sort());
  });
});

describe("the server's copy of the language list", () => {
  test("the embeds offer exactly the web app's languages", async () => {
    const { LANGUAGES } = await import("../../src/web/i18n/index.ts");
    const { LANGUAGE_CODES } = await import("../../src/share/languages.ts");
    expect([...LANGUAGE_CODES].sort()).toEqual(LANGUAGES.map((l) => l.code).sort());
  });
});

describe("filling a message", () => {
  test("parameters fill their placeholders; a missing one stays as written, with or without others given", async () => {
    const { t } = await import("../../src/web/i18n/index.ts");
    expect(t("card.bonusFor", { role: "Killer" })).toBe("Killer bonus");
    expect(t("card.bonusFor")).toBe("{role} bonus");
    expect(t("card.bonusFor", { other: 1 })).toBe("{role} bonus");
    expect(t("role.killer")).toBe("Killer");
  });
});
