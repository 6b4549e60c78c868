// The open chat's own plan-mode switches (they start from the settings' defaults when the
// chat is made): plan first, approve plans automatically, save plans into the workspace; and
// the model the chat plans with (the header's picker chooses the one that carries it out).
import type { Chat } from "../generated/Chat";
import type { ChatPatch } from "../generated/ChatPatch";
import { t } from "../lib/i18n";
import { choiceOfValue, choiceValue, groupModels, optionOf, providerLabel } from "../lib/modelChoice";
import type { ModelsController } from "../lib/useModels";

export interface ChatOptionsProps {
  chat: Chat;
  onChange: (patch: ChatPatch) => void;
  /** The models the planner may use; without it, no choice of the planner's model. */
  models?: ModelsController;
  /** A turn runs: the planner's model waits for its end. */
  busy?: boolean;
  /** The chat has messages: its own worktree can no longer be chosen. */
  started?: boolean;
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

export function ChatOptions({ chat, onChange, models, busy = false, started = false }: ChatOptionsProps) {
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
      {chat.workspace !== null && (
        <label class="check" title={t("chatOptions.worktreeHint")}>
          <input
            type="checkbox"
            data-testid="chat-worktree"
            checked={chat.worktree != null}
            disabled={started || busy}
            onChange={(event) => onChange({ worktree: event.currentTarget.checked })}
          />
          {t("chatOptions.worktree")}
        </label>
      )}
      {models && chat.plan_mode && <PlannerModel chat={chat} models={models} busy={busy} onChange={onChange} />}
    </div>
  );
}

/** The planner's model: the settings' (null) or one of the list, by provider. */
function PlannerModel({ chat, models, busy, onChange }: { chat: Chat; models: ModelsController; busy: boolean; onChange: (patch: ChatPatch) => void }) {
  const chosen = chat.planner_model;
  const groups = models.list ? groupModels(models.list) : [];
  // A choice the list does not hold (not read yet, or its provider gone) is still shown.
  const missing = chosen !== null && optionOf(models.list, chosen) === null;
  return (
    <label class="planner-model" title={busy ? t("picker.busy") : t("chatOptions.plannerModelHint")}>
      {t("chatOptions.plannerModel")}
      <select
        data-testid="planner-model"
        value={choiceValue(chosen)}
        disabled={busy}
        onFocus={() => models.list === null && models.load()}
        onMouseDown={() => models.list === null && models.load()}
        onChange={(event) => onChange({ planner_model: choiceOfValue(event.currentTarget.value) })}
      >
        <option value="">{t("chatOptions.plannerDefault")}</option>
        {missing && <option value={choiceValue(chosen)}>{chosen.model}</option>}
        {groups.map((group) => (
          <optgroup key={group.provider} label={providerLabel(group.provider)}>
            {group.options.map((option) => (
              <option key={option.model} value={choiceValue(option)}>
                {option.model}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
