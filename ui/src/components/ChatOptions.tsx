// The open chat's own plan-mode switches (they start from the settings' defaults when the
// chat is made): plan first, approve plans automatically, save plans into the workspace.
import type { Chat } from "../generated/Chat";
import type { ChatPatch } from "../generated/ChatPatch";
import { t } from "../lib/i18n";

export interface ChatOptionsProps {
  chat: Chat;
  onChange: (patch: ChatPatch) => void;
}

type Switch = "plan_mode" | "auto_approve" | "save_plans";

/** The switches, in the window's language (made at each render so a language change shows). */
const switches = (): { key: Switch; label: string; hint: string; testId: string }[] => [
  { key: "plan_mode", label: t("chatOptions.planMode"), hint: t("chatOptions.planModeHint"), testId: "chat-plan-mode" },
  { key: "auto_approve", label: t("chatOptions.autoApprove"), hint: t("chatOptions.autoApproveHint"), testId: "chat-auto-approve" },
  { key: "save_plans", label: t("chatOptions.savePlans"), hint: t("chatOptions.savePlansHint"), testId: "chat-save-plans" },
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
      {switches().map(({ key, label, hint, testId }) => (
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
