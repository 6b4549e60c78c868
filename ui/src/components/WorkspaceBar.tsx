// The chat's workspace folder: typed or pasted (Enter sets it), or chosen with the native
// picker; the engine checks that the folder exists.
import { useEffect, useState } from "preact/hooks";

import type { Chat } from "../generated/Chat";

export interface WorkspaceBarProps {
  chat: Chat;
  onSet: (path: string | null) => void;
  onChoose: () => void;
}

export function WorkspaceBar({ chat, onSet, onChoose }: WorkspaceBarProps) {
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
      <label for="workspace-path">Workspace</label>
      <input
        id="workspace-path"
        data-testid="workspace-path"
        placeholder="No folder: the chat has no file tools"
        value={path}
        onInput={(event) => setPath(event.currentTarget.value)}
      />
      <button type="button" class="secondary" data-testid="choose-workspace" onClick={onChoose}>
        Choose…
      </button>
    </form>
  );
}
