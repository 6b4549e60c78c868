// Light and dark: the `data-theme` attribute on <html> selects the colour variables of
// styles.css. "System" follows `prefers-color-scheme` as it changes; an explicit choice (from
// Settings → Theme) is kept in localStorage. Only an attribute is set: the CSP allows no
// inline styles.
export type Theme = "light" | "dark";
export type ThemeChoice = "system" | Theme;

const STORAGE_KEY = "preflight.theme";
const DARK_QUERY = "(prefers-color-scheme: dark)";

/** The choice kept from an earlier run ("system" when none). */
export function storedThemeChoice(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

function systemQuery(): MediaQueryList | null {
  return typeof window !== "undefined" && typeof window.matchMedia === "function" ? window.matchMedia(DARK_QUERY) : null;
}

export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  if (choice !== "system") return choice;
  return systemDark ? "dark" : "light";
}

/** Stops following the system, when "System" is applied. */
let unfollow: (() => void) | null = null;

/** Sets <html data-theme> for `choice`; with "system", again each time the system changes. */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  unfollow?.();
  unfollow = null;
  const query = systemQuery();
  const set = () => {
    root.dataset.theme = resolveTheme(choice, query?.matches ?? false);
    root.dataset.themeChoice = choice;
  };
  set();
  if (choice === "system" && query) {
    query.addEventListener("change", set);
    unfollow = () => query.removeEventListener("change", set);
  }
}

/** Settings → Theme: applied at once and remembered across restarts. */
export function setThemeChoice(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(STORAGE_KEY);
    else localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // No storage: the choice holds for this run only.
  }
  applyTheme(choice);
}
