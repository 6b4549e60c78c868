// Both themes are readable: the main text/background pairs of styles.css's variables meet
// WCAG AA (4.5:1 for body text), read from the stylesheet itself. And the theme switch: the
// attribute on <html>, the choice kept, and "System" following prefers-color-scheme live.
import { describe, expect, it, vi } from "vitest";

import css from "../styles.css?raw";
import { applyTheme, resolveTheme, setThemeChoice, storedThemeChoice } from "../lib/theme";

/** The custom properties of the first block opened by `selector`. */
function variables(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`styles.css has no ${selector} block`);
  const body = css.slice(start, css.indexOf("}", start));
  return Object.fromEntries([...body.matchAll(/(--[\w-]+):\s*([^;]+);/g)].map((match) => [match[1]!, match[2]!.trim()]));
}

const light = variables(":root");
// The dark block overrides what differs; the rest (the terminal's palette) is shared.
const dark = { ...light, ...variables(':root[data-theme="dark"]') };

function luminance(hex: string): number {
  const digits = /^#([0-9a-f]{6})$/i.exec(hex)?.[1];
  if (!digits) throw new Error(`not a #rrggbb colour: ${hex}`);
  const channel = (at: number) => {
    const value = parseInt(digits.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

/** Text colour on background colour, as the window pairs them. */
const PAIRS: [string, string][] = [
  ["--text", "--bg"],
  ["--text", "--panel"],
  ["--text", "--sidebar"],
  ["--text", "--selected"],
  ["--text", "--accent-soft"], // user messages, a chosen answer
  ["--text", "--input-bg"],
  ["--text", "--notice-bg"], // the model notice
  ["--text", "--code-bg"],
  ["--text", "--tool-bg"],
  ["--text", "--ins-bg"],
  ["--text", "--del-bg"],
  ["--muted", "--panel"],
  ["--muted", "--bg"],
  ["--muted", "--sidebar"],
  ["--muted", "--locked-bg"],
  ["--muted", "--code-bg"],
  ["--muted", "--priority-low-bg"],
  ["--accent", "--panel"], // links, the active task
  ["--accent", "--bg"],
  ["--on-accent", "--accent"], // primary buttons
  ["--on-danger", "--danger"],
  ["--danger", "--danger-soft"], // error banners
  ["--danger", "--panel"],
  ["--danger", "--priority-high-bg"],
  ["--ok", "--panel"], // done tasks, running servers
  ["--ok", "--ok-soft"],
  ["--warn", "--warn-soft"], // the unconfined warning
  ["--change", "--panel"], // "change asked"
  ["--term-text", "--term-bg"], // sandbox terminal blocks
  ["--term-muted", "--term-bg"],
  ["--term-err", "--term-bg"],
  ["--term-warn", "--term-warn-bg"],
  ["--badge-text", "--exit-ok-bg"],
  ["--badge-text", "--exit-bad-bg"],
  ["--badge-text", "--timed-out-bg"],
  ...["--hl-text", "--hl-keyword", "--hl-title", "--hl-constant", "--hl-string", "--hl-builtin", "--hl-comment", "--hl-tag", "--hl-bullet"].map(
    (token): [string, string] => [token, "--code-bg"],
  ),
  ["--hl-add", "--hl-add-bg"],
  ["--hl-del", "--hl-del-bg"],
];

describe("the themes' contrast (WCAG AA, 4.5:1)", () => {
  it.each([
    ["light", light],
    ["dark", dark],
  ] as const)("%s", (_name, theme) => {
    const failing = PAIRS.map(([fg, bg]) => ({ pair: `${fg} on ${bg}`, ratio: Math.round(contrast(theme[fg]!, theme[bg]!) * 100) / 100 })).filter(
      ({ ratio }) => ratio < 4.5,
    );
    expect(failing).toEqual([]);
  });

  it("the dark theme redefines every colour the light one has but the terminal's", () => {
    const own = variables(':root[data-theme="dark"]');
    const shared = Object.keys(light).filter((name) => !(name in own));
    expect(shared.every((name) => /^--(term|exit|timed-out|badge)/.test(name)), shared.join(", ")).toBe(true);
  });

  it("no rule outside the two theme blocks spells a colour", () => {
    const rules = css.slice(css.indexOf("* { box-sizing"));
    expect(rules.match(/#[0-9a-f]{3,8}\b|rgba?\(/gi) ?? []).toEqual([]);
  });
});

/** A prefers-color-scheme query the test can flip. */
function fakeSystem(dark: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    matches: dark,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal("matchMedia", () => query);
  return {
    listeners,
    set(next: boolean) {
      query.matches = next;
      listeners.forEach((listener) => listener());
    },
  };
}

describe("the theme switch", () => {
  const theme = () => document.documentElement.dataset.theme;

  it("System follows prefers-color-scheme, also when it changes", () => {
    const system = fakeSystem(true);
    applyTheme("system");
    expect(theme()).toBe("dark");
    system.set(false);
    expect(theme()).toBe("light");
    system.set(true);
    expect(theme()).toBe("dark");
    vi.unstubAllGlobals();
  });

  it("an explicit choice sets the attribute, is kept, and stops following the system", () => {
    const system = fakeSystem(false);
    expect(storedThemeChoice()).toBe("system");
    setThemeChoice("dark");
    expect([theme(), document.documentElement.dataset.themeChoice, storedThemeChoice()]).toEqual(["dark", "dark", "dark"]);
    expect(system.listeners.size).toBe(0);
    system.set(false);
    expect(theme()).toBe("dark");
    setThemeChoice("light");
    expect(theme()).toBe("light");
    setThemeChoice("system");
    expect([theme(), storedThemeChoice(), system.listeners.size]).toEqual(["light", "system", 1]);
    vi.unstubAllGlobals();
  });

  it("resolves a choice against the system", () => {
    expect([resolveTheme("system", true), resolveTheme("system", false), resolveTheme("light", true), resolveTheme("dark", false)]).toEqual(["dark", "light", "light", "dark"]);
  });
});
