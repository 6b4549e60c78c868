// The open chat's own plan-mode switches (they start from the settings' defaults when the
// chat is made): plan first, approve plans automatically, save plans into the workspace.
import type { Chat } from "../generated/Chat";
import type { ChatPatch } from "../generated/ChatPatch";

export interface ChatOptionsProps {
  chat: Chat;
  onChange: (patch: ChatPatch) => void;
}

type Switch = "plan_mode" | "auto_approve" | "save_plans";

const SWITCHES: { key: Switch; label: string; hint: string; testId: string }[] = [
  { key: "plan_mode", label: "Plan first", hint: "The planner asks its questions and proposes a plan before anything is done", testId: "chat-plan-mode" },
  { key: "auto_approve", label: "Approve automatically", hint: "A plan goes to the executor without waiting for your approval", testId: "chat-auto-approve" },
  {
    key: "save_plans",
    label: "Save plans to the workspace",
    hint: "An approved plan is written to .dwp/plans/ in the workspace, and kept up to date as tasks finish",
    testId: "chat-save-plans",
  },
];

/** A switch that cannot apply to the chat as it is. */
function disabled(chat: Chat, key: Switch): boolean {
  if (key === "auto_approve") return !chat.plan_mode;
  if (key === "save_plans") return chat.workspace === null;
  return false;
}

export function ChatOptions({ chat, onChange }: ChatOptionsProps) {
  return (
    <div class="chat-options" data-testid="chat-options">
      {SWITCHES.map(({ key, label, hint, testId }) => (
        <label class="check" title={hint} key={key}>
          <input
            type="checkbox"
            data-testid={testId}
            checked={chat[key]}
            disabled={disabled(chat, key)}
            onChange={(event) => onChange({ [key]: event.currentTarget.checked })}
          />
          {label}
        </label>
      ))}
    </div>
  );
}
