// The catalogues are complete: English and Russian hold the same keys, each plural key has
// exactly the forms Intl.PluralRules asks for in its language, the placeholders match, and
// every key the sources pass to `t` is there (and every key there is used). Then the plurals
// and numbers as read, and how the language is chosen and kept.
import { describe, expect, it } from "vitest";

import { humanSize } from "../components/Attachments";
import { CATALOGUES, applyLanguage, formatTime, language, setLanguageChoice, storedLanguageChoice, systemLanguage, t, type Language } from "../lib/i18n";

const PLURAL = /_(zero|one|two|few|many|other)$/;

function flatten(tree: object, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out[path] = value;
    else Object.assign(out, flatten(value as object, path));
  }
  return out;
}

const flat: Record<Language, Record<string, string>> = { en: flatten(CATALOGUES.en), ru: flatten(CATALOGUES.ru) };
const baseOf = (key: string) => key.replace(PLURAL, "");
const bases = (lang: Language) => new Set(Object.keys(flat[lang]).map(baseOf));
const pluralBases = new Set([...Object.keys(flat.en), ...Object.keys(flat.ru)].filter((key) => PLURAL.test(key)).map(baseOf));
const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((match) => match[1]).sort();

/** Every source file of the window but the tests, as text. */
const sources = import.meta.glob(["../**/*.{ts,tsx}", "!../test/**", "!../generated/**"], { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const usedKeys = new Set(Object.values(sources).flatMap((text) => [...text.matchAll(/\bt\(\s*"([^"]+)"/g)].map((match) => match[1]!)));

describe("the catalogues", () => {
  it("hold the same keys in English and Russian", () => {
    const en = bases("en");
    const ru = bases("ru");
    expect([...en].filter((key) => !ru.has(key)), "missing in ru.json").toEqual([]);
    expect([...ru].filter((key) => !en.has(key)), "missing in en.json").toEqual([]);
    expect(en.size).toBeGreaterThan(250);
  });

  it.each(["en", "ru"] as const)("%s: every plural key has exactly the forms Intl.PluralRules needs", (lang) => {
    const needed = new Intl.PluralRules(lang).resolvedOptions().pluralCategories.slice().sort();
    expect(needed.length).toBe(lang === "en" ? 2 : 4);
    for (const base of pluralBases) {
      const forms = Object.keys(flat[lang]).filter((key) => baseOf(key) === base && PLURAL.test(key)).map((key) => PLURAL.exec(key)![1]).sort();
      expect(forms, `${lang}: ${base}`).toEqual(needed);
      expect(flat[lang][base], `${lang}: ${base} is plural, so it has no bare form`).toBeUndefined();
    }
  });

  it("have no empty texts, and the same placeholders in both languages", () => {
    for (const lang of ["en", "ru"] as const) {
      for (const [key, text] of Object.entries(flat[lang])) expect(text.trim(), `${lang}: ${key}`).not.toBe("");
    }
    for (const key of bases("en")) {
      const forms = (lang: Language) => Object.keys(flat[lang]).filter((k) => baseOf(k) === key);
      const names = (lang: Language) => [...new Set(forms(lang).flatMap((k) => placeholders(flat[lang][k]!)))].sort();
      expect(names("ru"), key).toEqual(names("en"));
    }
  });

  it("hold every key the sources pass to t, and nothing the sources do not use", () => {
    expect(usedKeys.size).toBeGreaterThan(250);
    const known = bases("en");
    expect([...usedKeys].filter((key) => !known.has(key)), "used in ui/src but in no catalogue").toEqual([]);
    expect([...known].filter((key) => !usedKeys.has(key)), "in the catalogue but used nowhere").toEqual([]);
  });

  it("are reached only through literal keys (so the check above sees every one)", () => {
    for (const [file, text] of Object.entries(sources)) {
      if (file.endsWith("lib/i18n.ts")) continue; // where `t` passes its key on to i18next
      expect(/\bt\(\s*[`'a-zA-Z]/.test(text.replace(/\bt\(\s*"[^"]+"/g, "")), `${file} calls t with a computed key`).toBe(false);
    }
  });
});

describe("plurals and numbers", () => {
  it("English: one and other", () => {
    expect([1, 3, 5].map((count) => t("toolGroup.calls", { count }))).toEqual(["1 tool call", "3 tool calls", "5 tool calls"]);
    expect(t("tasks.count", { done: 3, total: 7 })).toBe("3 of 7 done");
    expect(humanSize(12_300)).toBe("12.3 kB");
  });

  it("Russian: one, few, many", () => {
    applyLanguage("ru");
    expect([1, 3, 5, 11, 21, 22].map((count) => t("toolGroup.calls", { count }))).toEqual([
      "1 вызов инструмента",
      "3 вызова инструментов",
      "5 вызовов инструментов",
      "11 вызовов инструментов",
      "21 вызов инструмента",
      "22 вызова инструментов",
    ]);
    expect([1, 3, 5].map((count) => t("sandbox.lines", { count }))).toEqual(["1 строка", "3 строки", "5 строк"]);
    expect([1, 3, 7].map((done) => t("tasks.count", { done, total: 7 }))).toEqual(["1 из 7 готово", "3 из 7 готово", "7 из 7 готово"]);
    expect(humanSize(12_300)).toBe("12,3 кБ");
    expect(humanSize(512)).toBe("512 Б");
  });

  it("times as people read them, in the window's language, never as RFC 3339", () => {
    const at = "2026-12-04T18:02:51.733Z";
    applyLanguage("en");
    const english = formatTime(at, "UTC");
    expect(english).toMatch(/Dec/);
    expect(english).toMatch(/2026/);
    expect(english).toMatch(/18:02|6:02/);
    expect(english).not.toContain("T18");
    applyLanguage("ru");
    const russian = formatTime(at, "UTC");
    expect(russian).toMatch(/дек/);
    expect(russian).toContain("18:02");
    expect(formatTime("not a time")).toBe("not a time");
    expect(formatTime("")).toBe("");
  });
});

describe("the language", () => {
  it("follows the system locale: ru* is Russian, anything else English", () => {
    expect(systemLanguage(["ru-RU", "en-US"])).toBe("ru");
    expect(systemLanguage(["ru"])).toBe("ru");
    expect(systemLanguage(["en-GB", "ru-RU"])).toBe("en");
    expect(systemLanguage(["de-DE", "fr"])).toBe("en");
    expect(systemLanguage([])).toBe("en");
  });

  it("is chosen in Settings, applied at once and remembered; System forgets the choice", () => {
    expect(storedLanguageChoice()).toBe("system");
    setLanguageChoice("ru");
    expect([language(), document.documentElement.lang, storedLanguageChoice()]).toEqual(["ru", "ru", "ru"]);
    expect(t("questions.own")).toBe("Свой вариант");
    setLanguageChoice("system");
    expect(storedLanguageChoice()).toBe("system");
    expect(language()).toBe(systemLanguage());
  });
});
