/**
 * Languages: every language the game offers, one catalogue each, loaded on
 * demand (only the chosen one is fetched), chosen from the browser, switchable
 * and remembered. Numbers, dates and relative times go through Intl.
 */
import { signal } from "@preact/signals";
import { en, type MessageKey, type Messages } from "./messages/en.ts";

export interface Language {
  /** BCP 47 tag, as set on <html lang>. */
  readonly code: string;
  /** The language's own name for itself. */
  readonly name: string;
  readonly load: () => Promise<Messages>;
}

export const LANGUAGES: readonly Language[] = [
  { code: "en", name: "English", load: async () => en },
  { code: "de", name: "Deutsch", load: async () => (await import("./messages/de.ts")).de },
  { code: "es", name: "Español (España)", load: async () => (await import("./messages/es.ts")).es },
  { code: "es-MX", name: "Español (Latinoamérica)", load: async () => (await import("./messages/es-MX.ts")).esMX },
  { code: "fr", name: "Français", load: async () => (await import("./messages/fr.ts")).fr },
  { code: "it", name: "Italiano", load: async () => (await import("./messages/it.ts")).it },
  { code: "ja", name: "日本語", load: async () => (await import("./messages/ja.ts")).ja },
  { code: "ko", name: "한국어", load: async () => (await import("./messages/ko.ts")).ko },
  { code: "pl", name: "Polski", load: async () => (await import("./messages/pl.ts")).pl },
  { code: "pt-BR", name: "Português (Brasil)", load: async () => (await import("./messages/pt-BR.ts")).ptBR },
  { code: "ru", name: "Русский", load: async () => (await import("./messages/ru.ts")).ru },
  { code: "th", name: "ไทย", load: async () => (await import("./messages/th.ts")).th },
  { code: "tr", name: "Türkçe", load: async () => (await import("./messages/tr.ts")).tr },
  { code: "zh-Hans", name: "简体中文", load: async () => (await import("./messages/zh-Hans.ts")).zhHans },
  { code: "zh-Hant", name: "繁體中文", load: async () => (await import("./messages/zh-Hant.ts")).zhHant },
];

const STORAGE_KEY = "hub.language";

/** The catalogue language closest to a browser language tag, or null. */
export function matchLanguage(tag: string): string | null {
  const lower = tag.toLowerCase();
  const exact = LANGUAGES.find((l) => l.code.toLowerCase() === lower);
  if (exact) return exact.code;
  const [base = "", ...rest] = lower.split("-");
  if (base === "zh") {
    const traditional = rest.some((part) => part === "hant" || part === "tw" || part === "hk" || part === "mo");
    return traditional ? "zh-Hant" : "zh-Hans";
  }
  if (base === "es") return rest.length === 0 || rest.includes("es") ? "es" : "es-MX";
  if (base === "pt") return "pt-BR";
  return LANGUAGES.find((l) => l.code === base)?.code ?? null;
}

/** The remembered choice, else the browser's first language the catalogue has, else English. */
export function initialLanguage(stored: string | null, browser: readonly string[]): string {
  if (stored && LANGUAGES.some((l) => l.code === stored)) return stored;
  for (const tag of browser) {
    const match = matchLanguage(tag);
    if (match) return match;
  }
  return "en";
}

export const language = signal("en");
const messages = signal<Messages>(en);

/** Switches to a language whose catalogue is at hand (the hub does this for each first paint it renders). */
export function applyLanguage(code: string, loaded: Messages): void {
  messages.value = loaded;
  language.value = code;
}

/** Loads and switches to a language; remembered when `remember` is set. */
export async function switchLanguage(code: string, remember: boolean): Promise<void> {
  const chosen = LANGUAGES.find((l) => l.code === code) ?? LANGUAGES[0];
  if (!chosen) return;
  applyLanguage(chosen.code, await chosen.load());
  document.documentElement.lang = chosen.code;
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, chosen.code);
    } catch {
      // Storage can be refused (private windows); the choice then lasts for this page only.
    }
  }
}

export function storedLanguage(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

function hasParams(params: Readonly<Record<string, string | number>>): boolean {
  for (const _ in params) return true;
  return false;
}

/** A message with its `{name}` placeholders filled. */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const template = messages.value[key] ?? en[key];
  // Without parameters every placeholder would stay as written, so the template is the answer (most calls: labels).
  if (!hasParams(params)) return template;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

type Formatter = Intl.NumberFormat | Intl.RelativeTimeFormat | Intl.DateTimeFormat;
const formatters = new Map<string, Formatter>();

function cached<T extends Formatter>(code: string, key: string, make: () => T): T {
  const full = `${code}|${key}`;
  let formatter = formatters.get(full);
  if (!formatter) {
    formatter = make();
    formatters.set(full, formatter);
  }
  return formatter as T;
}

const bonusFormat = (code: string) => cached(code, "bonus", () => new Intl.NumberFormat(code, { style: "percent", signDisplay: "exceptZero", maximumFractionDigits: 0 }));
const numberFormat = (code: string, digits: number) => cached(code, `number${digits}`, () => new Intl.NumberFormat(code, { maximumFractionDigits: digits }));
const relativeFormat = (code: string) => cached(code, "relative", () => new Intl.RelativeTimeFormat(code, { numeric: "auto" }));
const shortRelativeFormat = (code: string) => cached(code, "relativeShort", () => new Intl.RelativeTimeFormat(code, { numeric: "auto", style: "short" }));
const timeFormat = (code: string) => cached(code, "time", () => new Intl.DateTimeFormat(code, { hour: "numeric", minute: "2-digit" }));

/**
 * Makes the formatters the board shows (bonus, multiplier, relative time,
 * time of day) for a language now. The first use of Intl in a page sets up
 * ICU, 60–150 ms measured in headless Chromium on the development machine:
 * main.tsx calls this while the page's first requests are in flight, so the
 * first render, which needs them all, does not pay it.
 */
export function prepareFormatters(code: string): void {
  bonusFormat(code);
  numberFormat(code, 2);
  relativeFormat(code);
  shortRelativeFormat(code);
  timeFormat(code);
}

/** A bonus percent as "+75 %" in the viewer's language. */
export function formatBonus(percent: number): string {
  return bonusFormat(language.value).format(percent / 100);
}

/** A plain number with at most `digits` decimals. */
export function formatNumber(value: number, digits = 2): string {
  return numberFormat(language.value, digits).format(value);
}

const RELATIVE_STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
  ["week", 4.35],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** "3 minutes ago", "in 2 hours": `ms` relative to `now`; with `short`, the language's short form ("3 min. ago") for a phone's row. */
export function formatRelative(ms: number, now: number, short = false): string {
  const format = (short ? shortRelativeFormat : relativeFormat)(language.value);
  let value = (ms - now) / 1000;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit);
    value /= size;
  }
  return format.format(Math.round(value), "year");
}

/** A time of day in the viewer's time zone, such as "18:00" or "6:00 PM". */
export function formatTime(ms: number): string {
  return timeFormat(language.value).format(ms);
}

/** A short date in the viewer's time zone. */
export function formatDate(ms: number): string {
  const code = language.value;
  return cached(code, "date", () => new Intl.DateTimeFormat(code, { month: "short", day: "numeric" })).format(ms);
}

/** A date and time in the viewer's time zone. */
export function formatDateTime(ms: number): string {
  const code = language.value;
  return cached(code, "datetime", () => new Intl.DateTimeFormat(code, { dateStyle: "medium", timeStyle: "short" })).format(ms);
}

export type { MessageKey, Messages };
