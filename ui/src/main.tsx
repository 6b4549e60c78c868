// Entry point of the Preflight window.
import { render } from "preact";

import { App } from "./App";
import { t } from "./lib/i18n";
import { applyTheme, storedThemeChoice } from "./lib/theme";
import "./styles.css";

const root = document.getElementById("app");
if (!root) throw new Error("index.html has no #app element");

/** A failure no screen handles is shown, not swallowed (as text, never as HTML). */
function showFatal(message: string) {
  let banner = document.getElementById("fatal");
  if (!banner) {
    banner = document.createElement("p");
    banner.id = "fatal";
    banner.className = "error";
    banner.setAttribute("role", "alert");
    document.body.prepend(banner);
  }
  banner.textContent = t("app.fatal", { message });
}
window.addEventListener("error", (event) => showFatal(`${event.message}\n${String(event.error?.stack ?? "")}`));
window.addEventListener("unhandledrejection", (event) => {
  const reason = event.reason as { message?: string; stack?: string } | undefined;
  showFatal(`${reason?.message ?? JSON.stringify(event.reason)}\n${reason?.stack ?? ""}`);
});

applyTheme(storedThemeChoice());
render(<App />, root);
