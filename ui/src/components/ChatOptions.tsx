// The open chat's own plan-mode switches (they start from the settings' defaults when the
// chat is made): plan first, approve plans automatically, save plans into the workspace.
import type { Chat } from "../generated/Chat";
import type { ChatPatch } from "../generated/ChatPatch";

export interface ChatOptionsProps {
  chat: Chat;
  onChange: (patch: ChatPatch) => void;
}

export function ChatOptions({ chat, onChange }: ChatOptionsProps) {
  return (
    <div class="chat-options" data-testid="chat-options">
      <label class="check" title="The planner asks its questions and proposes a plan before anything is done">
        <input type="checkbox" data-testid="chat-plan-mode" checked={chat.plan_mode} onChange={(event) => onChange({ plan_mode: event.currentTarget.checked })} />
        Plan first
      </label>
      <label class="check" title="A plan goes to the executor without waiting for your approval">
        <input
          type="checkbox"
          data-testid="chat-auto-approve"
          checked={chat.auto_approve}
          disabled={!chat.plan_mode}
          onChange={(event) => onChange({ auto_approve: event.currentTarget.checked })}
        />
        Approve automatically
      </label>
      <label class="check" title="An approved plan is written to .dwp/plans/ in the workspace, and kept up to date as tasks finish">
        <input
          type="checkbox"
          data-testid="chat-save-plans"
          checked={chat.save_plans}
          disabled={chat.workspace === null}
          onChange={(event) => onChange({ save_plans: event.currentTarget.checked })}
        />
        Save plans to the workspace
      </label>
    </div>
  );
}
