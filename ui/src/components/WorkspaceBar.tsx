// The chat's workspace folder: typed or pasted (Enter sets it), or chosen with the native
// picker; the engine checks that the folder exists. "Sandbox" shows the chat's code sandbox:
// whether bubblewrap confines it, its Python, venv and packages, and a venv it does not use
// (VenvCard: "Use this environment" for an earlier Preflight's).
import { useEffect, useState } from "preact/hooks";

import type { Chat } from "../generated/Chat";
import type { SandboxView } from "../generated/SandboxView";
import { asApiError } from "../lib/api";
import { describeError } from "../lib/errorText";
import { t } from "../lib/i18n";
import { VenvCard } from "./VenvCard";

export interface WorkspaceBarProps {
  chat: Chat;
  onSet: (path: string | null) => void;
  onChoose: () => void;
  /** The chat's code sandbox in its own words (`sandbox_info`). */
  loadSandbox?: () => Promise<SandboxView>;
  /** Adopts the workspace's venv an earlier Preflight made, at the user's word. */
  adoptVenv?: () => Promise<SandboxView>;
}

export function WorkspaceBar({ chat, onSet, onChoose, loadSandbox, adoptVenv }: WorkspaceBarProps) {
  const [path, setPath] = useState(chat.workspace ?? "");
  useEffect(() => setPath(chat.workspace ?? ""), [chat.id, chat.workspace]);
  return (
    <form
      class="workspace-bar"
      onSubmit={(event) => {
        event.preventDefault();
        onSet(path.trim() === "" ? null : path.trim());
      }}
    >
      <label for="workspace-path">{t("workspace.label")}</label>
      <input
        id="workspace-path"
        data-testid="workspace-path"
        placeholder={t("workspace.none")}
        value={path}
        onInput={(event) => setPath(event.currentTarget.value)}
      />
      <button type="button" class="secondary" data-testid="choose-workspace" onClick={onChoose}>
        {t("workspace.choose")}
      </button>
      {chat.workspace && loadSandbox && <SandboxButton key={`${chat.id}:${chat.workspace}`} load={loadSandbox} adopt={adoptVenv} />}
    </form>
  );
}

/** "Sandbox": opens the sandbox's own account (confinement, Python, venv, packages). */
function SandboxButton({ load, adopt }: { load: () => Promise<SandboxView>; adopt?: () => Promise<SandboxView> }) {
  const [open, setOpen] = useState(false);
  const [view, setView] = useState<SandboxView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const toggle = () => {
    const opening = !open;
    setOpen(opening);
    if (!opening) return;
    setError(null);
    load().then(setView, (failure: unknown) => setError(describeError(asApiError(failure))));
  };
  return (
    <div class="sandbox-info">
      <button type="button" class="secondary" data-testid="sandbox-button" aria-expanded={open} onClick={toggle}>
        {t("workspace.sandbox")}
      </button>
      {open && (
        <div class="sandbox-popover" role="dialog" aria-label={t("workspace.sandboxLabel")} data-testid="sandbox-info">
          {view === null && error === null && <p class="muted">{t("workspace.sandboxStarting")}</p>}
          {error !== null && <p class="error">{error}</p>}
          {view !== null && <SandboxSummary view={view} adopt={adopt} />}
        </div>
      )}
    </div>
  );
}

export function SandboxSummary({ view, adopt }: { view: SandboxView; adopt?: () => Promise<SandboxView> }) {
  const status = !view.available ? t("workspace.noSandbox") : view.confined ? t("workspace.confined") : t("workspace.unconfined");
  return (
    <>
      <p class={`sandbox-status ${view.available && view.confined ? "ok" : "warn"}`} data-testid="sandbox-status">
        {status}
      </p>
      <VenvCard view={view} adopt={adopt} />
      <pre class="sandbox-text">{view.text}</pre>
    </>
  );
}
