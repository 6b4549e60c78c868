// The window's words: i18next with the English and Russian catalogues (../locales/*.json),
// the language taken from the system locale or chosen in Settings (kept in localStorage),
// and `useLanguage`, with which the window re-renders when the language changes. Every
// user-visible string goes through `t`; src/test/i18n.test.ts proves both catalogues hold
// every key the sources use, with every plural form each language needs.
import i18next from "i18next";
import { useEffect, useState } from "preact/hooks";

import en from "../locales/en.json";
import ru from "../locales/ru.json";

export type Language = "en" | "ru";
/** What Settings → Language holds: the system's language, or one chosen. */
export type LanguageChoice = "system" | Language;

export const CATALOGUES: Record<Language, object> = { en, ru };
const STORAGE_KEY = "preflight.language";

/** The first of the user's languages the window speaks (ru* → Russian), else English. */
export function systemLanguage(preferred: readonly string[] = navigatorLanguages()): Language {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split(/[-_]/)[0];
    if (base === "ru" || base === "en") return base;
  }
  return "en";
}

function navigatorLanguages(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

export function resolveLanguage(choice: LanguageChoice): Language {
  return choice === "system" ? systemLanguage() : choice;
}

/** The choice kept from an earlier run ("system" when none, or storage is unavailable). */
export function storedLanguageChoice(): LanguageChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "en" || value === "ru" ? value : "system";
  } catch {
    return "system";
  }
}

void i18next.init({
  resources: { en: { translation: en }, ru: { translation: ru } },
  lng: resolveLanguage(storedLanguageChoice()),
  fallbackLng: "en",
  supportedLngs: ["en", "ru"],
  nsSeparator: false,
  // Preact puts text into text nodes: nothing to escape.
  interpolation: { escapeValue: false },
  initAsync: false,
});
setDocumentLanguage();

function setDocumentLanguage() {
  if (typeof document !== "undefined") document.documentElement.lang = language();
}

/** The language the window speaks now. */
export function language(): Language {
  return i18next.language === "ru" ? "ru" : "en";
}

/** A time the engine sent (RFC 3339, UTC) as people read it: the window's language, the
 *  user's own locale for it where they have one, their time zone (`timeZone` only for tests),
 *  e.g. "4 Dec 2026, 18:02". Text that is not a time is shown as it came. */
export function formatTime(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (iso.trim() === "" || Number.isNaN(date.getTime())) return iso;
  const lang = language();
  const locale = navigatorLanguages().find((tag) => tag.toLowerCase().startsWith(lang)) ?? lang;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(date);
}

/** Switches the window's language now, without remembering it (tests; the stored choice). */
export function applyLanguage(choice: LanguageChoice): void {
  void i18next.changeLanguage(resolveLanguage(choice));
  setDocumentLanguage();
}

/** Settings → Language: applied at once and remembered across restarts. */
export function setLanguageChoice(choice: LanguageChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // No storage: the choice holds for this run only.
  }
  applyLanguage(choice);
}

/** The catalogue's text for `key` in the current language (`count` picks the plural form). */
export function t(key: string, values?: Record<string, string | number>): string {
  return i18next.t(key, values ?? {});
}

/** A number as the current language writes it ("12.3" / "12,3"), `digits` after the point. */
export function formatNumber(value: number, digits = 0): string {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(value);
}

/** The current language, re-rendering the caller (the window's root) when it changes. */
export function useLanguage(): Language {
  const [current, setCurrent] = useState(language());
  useEffect(() => {
    const changed = () => setCurrent(language());
    i18next.on("languageChanged", changed);
    return () => i18next.off("languageChanged", changed);
  }, []);
  return current;
}
