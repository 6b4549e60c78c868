// A model switched mid-chat (DESIGN §15: never a silent change), as a quiet line across the
// conversation where the switch happened: "Model: gpt-4o (cloud) from here on".
import type { Notice } from "../generated/Notice";
import { t } from "../lib/i18n";
import { choiceText } from "../lib/modelChoice";

type Switched = Extract<Notice, { kind: "model_switched" }>;

/** "Model: gpt-4o (cloud) from here on" or "Planner's model: …". */
export function switchText(notice: Switched): string {
  const model = choiceText(notice.model);
  return notice.planner ? t("saidInChat.modelSwitched.planner", { model }) : t("saidInChat.modelSwitched.executor", { model });
}

export function ModelDivider({ messageId, notice }: { messageId: string; notice: Switched }) {
  return (
    <p class="model-divider" data-testid="model-divider" data-planner={notice.planner} data-message-id={messageId}>
      <span class="divider-rule" aria-hidden="true" />
      <span class="divider-label">{switchText(notice)}</span>
      <span class="divider-rule" aria-hidden="true" />
    </p>
  );
}
