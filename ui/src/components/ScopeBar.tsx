// The chat's planning scope (DESIGN §14): the folders or files of the workspace that the
// planner may read. Shown for a plan-mode chat with a workspace: each path as a chip that
// can be taken out, a folder typed (Enter adds it) or chosen with the native picker, which
// opens in the workspace. The engine checks every path (inside the workspace, existing);
// an empty scope is the whole workspace. Execution is not limited by it.
import { useState } from "preact/hooks";

import type { Chat } from "../generated/Chat";
import { t } from "../lib/i18n";

export interface ScopeBarProps {
  chat: Chat;
  /** Sets the whole scope (`[]`: the whole workspace). */
  onSet: (scope: string[]) => void;
  onChoose: () => void;
}

export function ScopeBar({ chat, onSet, onChoose }: ScopeBarProps) {
  const [typed, setTyped] = useState("");
  if (!chat.workspace || !chat.plan_mode) return null;
  const scope = chat.scope;
  return (
    <form
      class="scope-bar small"
      data-testid="scope-bar"
      title={t("scope.hint")}
      onSubmit={(event) => {
        event.preventDefault();
        const path = typed.trim();
        if (path === "") return;
        setTyped("");
        onSet([...scope, path]);
      }}
    >
      <span class="muted">{t("scope.label")}</span>{" "}
      {scope.length === 0 ? (
        <span class="scope-whole" data-testid="scope-whole">
          {t("scope.whole")}
        </span>
      ) : (
        scope.map((path) => (
          <span class="scope-chip" data-testid="scope-chip" key={path}>
            <code>{path}</code>
            <button type="button" class="icon" aria-label={t("scope.remove", { path })} title={t("scope.remove", { path })} onClick={() => onSet(scope.filter((kept) => kept !== path))}>
              ×
            </button>
          </span>
        ))
      )}
      <input data-testid="scope-path" aria-label={t("scope.add")} placeholder={t("scope.add")} value={typed} onInput={(event) => setTyped(event.currentTarget.value)} />
      <button type="button" class="secondary small" data-testid="choose-scope" onClick={onChoose}>
        {t("scope.choose")}
      </button>
    </form>
  );
}
